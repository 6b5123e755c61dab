// The operator's own copies, the hard cases: a person's number inside a note after a date or a
// count, or beside another number in one cell, is found and its row purged; a rejects file that a
// running import is still writing is named but never rewritten under it (rewritten, every row the
// import wrote afterwards would be lost when it renames its file into place); a rejects file that
// is a symlink is cleaned where it points, the link kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';
import { type ExactCsv, readExactCsv, rewriteWithout } from '../../src/erasure/csv-exact.js';

test('a number inside a note after a date or a count, or beside another number in one cell, is the person: --purge-local removes those rows and only those', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  assert.equal((await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Zoë', phone: '+44 7700 900123' } })).status, 201);
  const leads = join(dir, 'leads.csv');
  writeFileSync(
    leads,
    'First Name,Phone,Email,Notes\n' +
      'Zoë,+44 7400 300005,not-an-email,called 2024-01-05 07700 900123\n' +
      'Zoë,07700 900123 / 020 7946 0958,also-not-an-email,\n' +
      'Zoë,+44 7400 300006,bad-email,order 12 07700 900123\n' +
      'Other,+44 7400 300007,bad@,called 2024-01-05 07400 300007\n' +
      'Another,+44 7400 300008,bad-mail,order 12 units on 2024-01-05\n',
  );
  assert.equal((await runCli(['import', leads, '--country', 'GB'], { env })).code, 6);
  const rejects = `${leads}.rejects.csv`;
  const before = readFileSync(rejects, 'utf8');
  const expected = before.split(/(?<=\n)/).filter((l) => !l.startsWith('Zoë,')).join('');
  assert.equal(before.split(/(?<=\n)/).length - expected.split(/(?<=\n)/).length, 3, before);

  const r = await runCli(['contacts', 'rm', '--phone', '+44 7700 900123', '--confirm', '--purge-local', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).localCopies, [{ file: rejects, rows: 3, purged: true }]);
  assert.equal(readFileSync(rejects, 'utf8'), expected);
});

test('a rejects file a running import is still writing is named, not rewritten: the import loses no row', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2, latencyMs: 40 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  assert.equal((await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Zoë', phone: '+44 7700 900123' } })).status, 201);
  const rows = ['First Name,Phone,Email', 'Zoë,+44 7700 900123,not-an-email'];
  const rejected = 120;
  for (let i = 0; i < rejected; i += 1) {
    rows.push(`Lead${i},+44 7400 ${String(400000 + i)},lead${i}@example.com`);
    rows.push(`Bad${i},+44 7400 ${String(500000 + i)},bad-email-${i}`);
  }
  const leads = join(dir, 'leads.csv');
  writeFileSync(leads, `${rows.join('\n')}\n`);
  const rejects = `${leads}.rejects.csv`;
  const partial = `${rejects}.partial`;
  const run = startCli(['import', leads, '--country', 'GB'], { env });
  await waitFor(() => existsSync(partial) && readFileSync(partial, 'utf8').includes('Zoë,'));

  const r = await runCli(['contacts', 'rm', '--phone', '+44 7700 900123', '--confirm', '--purge-local', '--json'], { env });
  assert.equal(run.child.exitCode, null, 'the import was still running when the erasure ended');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).localCopies, [{ file: partial, rows: 1, purged: false }]);
  assert.match(r.stderr, /a job that writes it is running/);

  const imported = await run.result;
  assert.equal(imported.code, 6, imported.stderr);
  const lines = readFileSync(rejects, 'utf8').trim().split('\n');
  assert.equal(lines.filter((l) => l.startsWith('Bad')).length, rejected, 'every row the import rejected is in its rejects file');
  assert.equal(lines.filter((l) => l.startsWith('Zoë,')).length, 1, 'not cleaned under the running import: named for the operator');
});

test('a rejects file that is a symlink is cleaned where it points: the link stays, the person leaves its target', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  assert.equal((await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Zoë', phone: '+44 7700 900123' } })).status, 201);
  const leads = join(dir, 'leads.csv');
  writeFileSync(leads, 'First Name,Phone,Email\nZoë,+44 7700 900123,not-an-email\nOther,+44 7400 300007,bad@\n');
  assert.equal((await runCli(['import', leads, '--country', 'GB'], { env })).code, 6);
  const rejects = `${leads}.rejects.csv`;
  const shared = join(dir, 'shared');
  mkdirSync(shared);
  const target = join(shared, 'rejects.csv');
  renameSync(rejects, target);
  symlinkSync(target, rejects);
  const before = readFileSync(target, 'utf8');

  const r = await runCli(['contacts', 'rm', '--phone', '+44 7700 900123', '--confirm', '--purge-local', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).localCopies, [{ file: rejects, rows: 1, purged: true }]);
  assert.ok(lstatSync(rejects).isSymbolicLink(), 'the link is kept');
  assert.equal(readFileSync(target, 'utf8'), before.split(/(?<=\n)/).filter((l) => !l.startsWith('Zoë,')).join(''));
});

test('a file that changed after it was read is not rewritten: the rows added to it stay', (t) => {
  const file = join(tempDir(t), 'changing.csv');
  writeFileSync(file, 'name,phone\nZoë,+44 7700 900123\nAnn,+44 7400 300001\n');
  const read = readExactCsv(file) as ExactCsv;
  appendFileSync(file, 'Bob,+44 7400 300002\n');
  assert.throws(() => rewriteWithout(read, new Set([1])), /changed while being read/);
  assert.equal(readFileSync(file, 'utf8'), 'name,phone\nZoë,+44 7700 900123\nAnn,+44 7400 300001\nBob,+44 7400 300002\n');
});
