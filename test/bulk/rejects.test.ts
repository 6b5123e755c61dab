import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';
import { RejectsFile } from '../../src/bulk/rejects.js';

test('a rejects file keeps the operator\'s cells as read and guards only callctl\'s error text', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'callctl-rejects-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'leads.csv.rejects.csv');
  const rejects = new RejectsFile(path, ['Name', 'Phone', 'Notes'], false, { delimiter: ',', encoding: 'utf8' }, { redact: (s) => s });
  rejects.add(['=cmd', '+447400100555', '-rename'], '=HYPERLINK("x") from the server', 2);
  rejects.close();
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  assert.equal(text, `Name,Phone,Notes,error,line\n=cmd,+447400100555,-rename,"'=HYPERLINK(""x"") from the server",2\n`);

  const raw = new RejectsFile(join(dir, 'raw.csv'), ['Name'], false, undefined, { redact: (s) => s, csvRaw: true });
  raw.add(['a'], '@reason', 3);
  raw.close();
  assert.equal(readFileSync(join(dir, 'raw.csv'), 'utf8').replace(/^\uFEFF/, ''), 'Name,error,line\na,@reason,3\n');
});
