// Job records are kept for a month, or as many as `config set jobsKept` says — but the rejects and
// changes files those jobs wrote stay on disk beside their lists. The own-copies search found files
// through the records only: once a record was pruned its rejects file, still holding the person,
// was never named — and the erasure said none of callctl's files held them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

test('a rejects file of a job whose record was pruned (jobsKept) is still searched and purged', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  assert.equal((await runCli(['config', 'set', 'jobsKept', '1'], { env })).code, 0);
  assert.equal((await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Zoë', phone: '+44 7700 900123' } })).status, 201);

  const old = join(dir, 'old-leads.csv');
  writeFileSync(old, 'firstName,phone,email\nZoë,12,zoe@example.com\nAnn,34,ann@example.com\n');
  assert.equal((await runCli(['import', old], { env })).code, 6);
  const rejects = `${old}.rejects.csv`;
  const before = readFileSync(rejects, 'utf8');
  const later = join(dir, 'later.csv');
  writeFileSync(later, 'firstName,phone\nBea,+44 7400 123456\n');
  assert.equal((await runCli(['import', later], { env })).code, 0);
  const jobs = JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ file: string }>;
  assert.deepEqual(jobs.map((j) => j.file), [later], 'the old import\'s record is pruned');

  const r = await runCli(['contacts', 'rm', '--email', 'zoe@example.com', '--confirm', '--purge-local', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).localCopies, [{ file: rejects, rows: 1, purged: true }]);
  assert.equal(readFileSync(rejects, 'utf8'), before.split(/(?<=\n)/).filter((l) => !l.includes('zoe@')).join(''));
});
