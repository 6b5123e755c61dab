// One run of a job at a time (docs/commands/jobs.md, "Jobs"), with two real processes on one journal: while
// an import runs, a second `--resume`, a fresh run and a `--restart` of it each say "running in
// process N" and exit 2 having sent nothing — the first ends normally, every row stored once;
// `jobs ls` from a third process shows it running. A lock left by a process killed with -9 is
// taken over by the next run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { assertEachOnce, writeLeads } from '../helpers/leads.js';
import { waitFor } from '../helpers/wait.js';

const ROWS = 200;

test('a second run of a running import — --resume, fresh or --restart — says "running in process N", exit 2, sends nothing', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 40, burst: 5 });
  const env = envFor(sb, t);
  const file = writeLeads(tempDir(t), ROWS);
  const first = startCli(['import', file], { env });
  await waitFor(() => sb.contacts().length >= 20);

  for (const extra of [['--resume'], [], ['--restart']]) {
    const second = await runCli(['import', file, ...extra], { env });
    assert.equal(second.code, 2, `${extra.join(' ')}: ${second.stderr}`);
    assert.match(second.stderr, new RegExp(`callctl: the import of .*leads\\.csv is running in process ${first.child.pid} \\(since [0-9T:.Z-]+\\)`));
    assert.doesNotMatch(second.stderr, /did not finish/);
  }
  const listed = JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ state: string; counts: { rows?: number } }>;
  assert.equal(listed[0]?.state, 'running');
  assert.ok((listed[0]?.counts.rows ?? 0) > 0, 'its counts so far');

  const r = await first.result;
  assert.equal(r.code, 0, r.stderr);
  assertEachOnce(sb.contacts().map((c) => c.phone), ROWS);
  // Every POST the service admitted was the first run's, one per row.
  assert.equal((sb.stats().byRoute['POST /contacts'] ?? 0) - sb.stats().throttled, ROWS);
  const journals = join(env.CALLCTL_CONFIG_DIR as string, 'journals');
  assert.deepEqual(readdirSync(journals).filter((n) => n.endsWith('.lock')), [], 'the lock is let go at the end');
});

test('a lock left by a process killed with -9 is taken over: jobs ls says interrupted, --resume runs', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 40, burst: 5 });
  const env = envFor(sb, t);
  const file = writeLeads(tempDir(t), 120);
  const first = startCli(['import', file], { env });
  await waitFor(() => sb.contacts().length >= 20);
  first.child.kill('SIGKILL');
  await first.result;
  const journals = join(env.CALLCTL_CONFIG_DIR as string, 'journals');
  const lock = readdirSync(journals).find((n) => n.endsWith('.lock'));
  assert.ok(lock && existsSync(join(journals, lock)), 'the dead process left its lock');
  const listed = JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ state: string }>;
  assert.equal(listed[0]?.state, 'interrupted');
  const resumed = await runCli(['import', file, '--resume', '--json'], { env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assertEachOnce(sb.contacts().map((c) => c.phone), 120);
  assert.deepEqual(readdirSync(journals).filter((n) => n.endsWith('.lock')), []);
});
