// Broken input files: each ends in one clear line, the documented exit code, and no lost row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomFillSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

function oneLine(stderr: string): void {
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  assert.equal(stderr.trim().split('\n').filter((l) => l.startsWith('callctl:')).length, 1, stderr);
}

test('missing file, a folder, an empty file, binary garbage: one line, exit 2 or 1, nothing sent', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  writeFileSync(join(dir, 'empty.csv'), '');
  const garbage = Buffer.alloc(4096);
  randomFillSync(garbage);
  garbage[10] = 0;
  writeFileSync(join(dir, 'garbage.csv'), garbage);
  // A PNG: its first line (up to byte 5, a newline) holds no NUL; the bytes after it do.
  writeFileSync(join(dir, 'picture.csv'), Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.from('IHDR'), Buffer.alloc(64, 7)]));
  mkdirSync(join(dir, 'folder.csv'));
  const cases: Array<[string, number, RegExp]> = [
    ['nope.csv', 2, /no such file: .*nope\.csv/],
    ['folder.csv', 2, /is a folder/],
    ['empty.csv', 2, /is empty: no header row/],
    ['garbage.csv', 1, /not valid utf8|looks binary/],
    ['picture.csv', 1, /looks binary, not a CSV file \(export the sheet as CSV/],
  ];
  for (const [name, code, message] of cases) {
    const r = await runCli(['import', join(dir, name)], { env });
    assert.equal(r.code, code, `${name}: ${r.stderr}`);
    assert.match(r.stderr, message);
    oneLine(r.stderr);
  }
  // A workbook piped in: it can only be read from a file, and the hint says so.
  const piped = await runCli(['import', '-'], { env, input: readFileSync(join(ROOT, 'fixtures/leads.xlsx')) });
  assert.equal(piped.code, 1, piped.stderr);
  assert.match(piped.stderr, /stdin looks binary, not a CSV file \(an \.xlsx workbook is read from a file, not stdin; otherwise export/);
  oneLine(piped.stderr);
  assert.equal(sb.stats().requests, 0);
});

test('a header with no rows is 0 rows, exit 0; duplicate header names keep the first column', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  writeFileSync(join(dir, 'header.csv'), 'First Name,Phone\n');
  const h = await runCli(['import', join(dir, 'header.csv'), '--json'], { env });
  assert.equal(h.code, 0, h.stderr);
  assert.equal(JSON.parse(h.stdout).rows, 0);
  writeFileSync(join(dir, 'dup.csv'), 'Phone,Name,Phone\n+447400120001,Ann,+447400120999\n');
  const d = await runCli(['import', join(dir, 'dup.csv'), '--json'], { env });
  assert.equal(d.code, 0, d.stderr);
  assert.match(d.stderr, /ignoring columns: Phone \(duplicate column\)/);
  assert.deepEqual(sb.contacts().map((c) => c.phone), ['+447400120001']);
});

test('a 5 MB cell rejects its row locally; the rows around it are imported', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const file = join(dir, 'big.csv');
  writeFileSync(file, `Name,Phone,Notes\nBefore,+447400120001,ok\nHuge,+447400120002,"${'y'.repeat(5 * 1024 * 1024)}"\nAfter,+447400120003,ok\n`);
  const r = await runCli(['import', file, '--json'], { env: envFor(sb, t) });
  assert.equal(r.code, 6, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual([s.created, s.rejected, s.failed], [2, 1, 0]);
  assert.deepEqual(sb.contacts().map((c) => c.firstName).sort(), ['After', 'Before']);
});

test('--encoding utf16le on a UTF-8 file, a long row, a short row: each handled, none lost', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const file = join(dir, 'rows.csv');
  writeFileSync(file, 'Name,Phone,City\nShort,+447400120001\nLong,+447400120002,Leeds,extra\nFine,+447400120003,York\n');
  const r = await runCli(['import', file, '--json'], { env: envFor(sb, t) });
  assert.equal(r.code, 6);
  const s = JSON.parse(r.stdout);
  assert.deepEqual([s.rows, s.created, s.rejected], [3, 2, 1]);
});
