// A number copied from a phone's contact card or a web page carries invisible format characters
// (direction marks and isolates around it, a zero-width space): the import reads the number
// under them, as find and rm do (docs/people.md, "How numbers are compared").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

test('a phone wrapped in direction marks or holding a zero-width space is imported as its number, not rejected', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const file = join(dir, 'copied.csv');
  // No --country: the + under the first mark is what makes the number international.
  writeFileSync(file, 'firstName,phone\nAda,\u202a+44 7911 123456\u202c\nBo,\u200e+44 7911\u200b 123457\u200f\n');
  const r = await runCli(['import', file, '--json'], { env: envFor(sb, t) });
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual([s.created, s.rejected], [2, 0]);
  assert.deepEqual(sb.contacts().map((c) => [c.firstName, c.phone]).sort(), [['Ada', '+447911123456'], ['Bo', '+447911123457']]);
});

test('a number typed in full-width forms (＋４４, an ideographic space) or after a label (Mobile: +44…) is international without --country, not refused as national', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const file = join(dir, 'typed.csv');
  writeFileSync(file, 'firstName,phone\nAoi,＋４４\u3000７９１１\u3000１２３４５８\nBo,Mobile: +44 7911 123459\nCy,0044 7911 123460\n');
  const r = await runCli(['import', file, '--json'], { env: envFor(sb, t) });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([JSON.parse(r.stdout).created, JSON.parse(r.stdout).rejected], [3, 0]);
  assert.deepEqual(sb.contacts().map((c) => [c.firstName, c.phone]).sort(), [['Aoi', '+447911123458'], ['Bo', '+447911123459'], ['Cy', '+447911123460']]);
});
