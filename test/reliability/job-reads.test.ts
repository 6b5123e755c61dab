// A bulk job's reads before its rows — the contacts an undo reads, the listing an erasure resolves
// with, the existing contacts an import compares with — are the job's (docs/network.md): each
// attempt bounded by --timeout and retried as a row's is, never given up after --timeout in all as
// a one-shot command's request. The sandbox holds the first request of the job unanswered for
// ever: the job's next attempt is answered, and the job does its work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { writeLeads } from '../helpers/leads.js';

/** A sandbox that, once `holdNext()` is called, holds the next request it gets unanswered until the test ends. */
async function holdingSandbox(t: Parameters<typeof startTestSandbox>[0]) {
  let armed = false;
  let held = 0;
  let release: () => void = () => undefined;
  const released = new Promise<void>((done) => (release = done));
  t.after(() => release());
  const sb = await startTestSandbox(t, {
    rateLimit: 0,
    seed: 3,
    latencyMs: 1,
    wait: async () => {
      if (!armed) return;
      armed = false;
      held += 1;
      await released;
    },
  });
  return { sb, holdNext: () => void (armed = true), held: () => held };
}

test('undo: a read before its DELETEs that is never answered is tried again, and the import is taken back', async (t) => {
  const { sb, holdNext, held } = await holdingSandbox(t);
  const before = sb.contacts().map((c) => c.id);
  const env = envFor(sb, t);
  const file = writeLeads(tempDir(t), 5);
  assert.equal((await runCli(['import', file], { env })).code, 0);
  const job = (JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ id: string }>)[0]!.id;
  holdNext();
  const r = await runCli(['--timeout', '300', 'import', 'undo', job, '--confirm', '--json'], { env });
  assert.equal(held(), 1, 'the first read was held');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).erased, 5);
  assert.deepEqual(sb.contacts().map((c) => c.id), before);
});

test('erasure --from: the listing it resolves with, its first page never answered, is read again, and the person erased', async (t) => {
  const { sb, holdNext, held } = await holdingSandbox(t);
  const env = envFor(sb, t);
  const person = sb.contacts()[1]!;
  const others = sb.contacts().filter((c) => c.id !== person.id).map((c) => c.id);
  const file = join(tempDir(t), 'requests.csv');
  writeFileSync(file, `phone\n${String(person.phone)}\n`);
  holdNext();
  const r = await runCli(['--timeout', '300', 'contacts', 'rm', '--from', file, '--confirm', '--json'], { env });
  assert.equal(held(), 1, 'the first page was held');
  assert.equal(r.code, 0, r.stderr);
  // Before its rows there is no progress line yet: the retry is said, as a one-shot command's is.
  assert.match(r.stderr, /^callctl: timed out on GET \/contacts; retrying \(2\/6\)…$/m);
  assert.equal(JSON.parse(r.stdout).erased, 1);
  assert.deepEqual(sb.contacts().map((c) => c.id), others);
});

test('import --check-existing: the listing of existing contacts, its first page never answered, is read again, and the rows stored', async (t) => {
  const { sb, holdNext, held } = await holdingSandbox(t);
  const env = envFor(sb, t);
  const seeded = sb.contacts().length;
  const file = writeLeads(tempDir(t), 4);
  holdNext();
  const r = await runCli(['--timeout', '300', 'import', file, '--check-existing', '--json'], { env });
  assert.equal(held(), 1, 'the first page was held');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).created, 4);
  assert.equal(sb.contacts().length, seeded + 4);
});
