// A workbook's shared strings kept on disk (src/source/disk-strings.ts): every text comes back
// whole, whatever its length or script, in any order, and the file is gone after close.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { DiskStrings } from '../../src/source/disk-strings.js';

test('shared strings on disk: each text back as it was added, in any order; the file removed on close', (ctx) => {
  // A temporary folder of the test's own: other test files read workbooks (and make such files) meanwhile.
  const own = mkdtempSync(join(tmpdir(), 'callctl-test-strings-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = own;
  ctx.after(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(own, { recursive: true, force: true });
  });
  const before = new Set(readdirSync(tmpdir()).filter((f) => f.startsWith('callctl-strings-')));
  const t = new DiskStrings();
  const texts: string[] = [];
  for (let i = 0; i < 30_000; i++) texts.push(i % 1000 === 7 ? 'x'.repeat(10_000 + i) : i % 3 === 0 ? `Zoë Ñúñez ${i} 東京 📞` : i % 5 === 0 ? '' : `lead${i}@example.com`);
  for (const s of texts) t.add(s);
  assert.equal(t.size, texts.length);
  // Backwards, then a scattered pass that revisits some (the cache), then forwards.
  for (let i = texts.length - 1; i >= 0; i -= 7) assert.equal(t.get(i), texts[i], `string ${i}`);
  for (let k = 0; k < 20_000; k++) {
    const i = (k * 7919) % texts.length;
    assert.equal(t.get(i), texts[i], `string ${i}`);
  }
  for (let i = 0; i < texts.length; i++) assert.equal(t.get(i), texts[i], `string ${i}`);
  assert.equal(t.get(texts.length), undefined);
  assert.equal(t.get(-1), undefined);
  const made = readdirSync(tmpdir()).filter((f) => f.startsWith('callctl-strings-') && !before.has(f));
  assert.equal(made.length, 1);
  t.close();
  assert.equal(existsSync(`${tmpdir()}/${made[0]}`), false);
});
