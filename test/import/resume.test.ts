// Crashes and Ctrl-C: after kill -9 or SIGINT mid-import, --resume stores every row exactly once
// and re-sends at most what was in flight. Without --resume/--restart an unfinished journal is exit 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { assertEachOnce, writeLeads } from '../helpers/leads.js';
import { waitFor } from '../helpers/wait.js';

const ROWS = 150;
/** The in-flight window of the import at --concurrency 4 (see run-import.ts): 16. */
const WINDOW = 16;



for (const signal of ['SIGKILL', 'SIGINT', 'SIGTERM'] as const) {
  test(`${signal} mid-import, then --resume: every row once, at most the in-flight rows sent again`, async (t) => {
    const sb = await startTestSandbox(t, { rateLimit: 40, burst: 5 });
    const dir = tempDir(t);
    const file = writeLeads(dir, ROWS);
    const env = envFor(sb, t);
    const run = startCli(['import', file], { env });
    await waitFor(() => sb.contacts().length >= 40);
    run.child.kill(signal);
    const first = await run.result;
    if (signal === 'SIGKILL') assert.equal(first.signal, 'SIGKILL');
    else {
      assert.equal(first.code, 130, first.stderr);
      assert.match(first.stderr, /interrupted.*--resume/);
      assert.match(first.stderr, /created\s+\d+/, 'the summary is printed');
    }
    const storedAtStop = sb.contacts().length;
    assert.ok(storedAtStop < ROWS, 'stopped mid-way');

    const again = await runCli(['import', file], { env });
    assert.equal(again.code, 2, 'an unfinished journal needs --resume or --restart');
    assert.match(again.stderr, /did not finish.*--resume.*--restart/);

    const postsBefore = sb.stats().byRoute['POST /contacts'] ?? 0;
    const resumed = await runCli(['import', file, '--resume', '--json'], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    const s = JSON.parse(resumed.stdout);
    assert.ok(s.skipped >= storedAtStop - WINDOW, `skipped ${s.skipped}, stored before ${storedAtStop}`);
    assert.equal(s.skipped + s.created + s.matched, ROWS);
    const resent = (sb.stats().byRoute['POST /contacts'] ?? 0) - postsBefore - (ROWS - storedAtStop);
    assert.ok(s.matched <= WINDOW, `re-sent ${s.matched} rows already stored; at most the ${WINDOW} in flight`);
    assert.ok(resent - sb.stats().throttled <= WINDOW);
    assertEachOnce(sb.contacts().map((c) => c.phone), ROWS);

    // Finished: the next plain run is a fresh import again, matching everything.
    const fresh = await runCli(['import', file, '--json'], { env });
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.equal(JSON.parse(fresh.stdout).matched, ROWS);
  });
}

test('--restart ignores the journal and sends every row again (matched, so no duplicate)', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 50, burst: 5 });
  const dir = tempDir(t);
  const file = writeLeads(dir, 60);
  const env = envFor(sb, t);
  const run = startCli(['import', file], { env });
  await waitFor(() => sb.contacts().length >= 10);
  run.child.kill('SIGKILL');
  await run.result;
  const r = await runCli(['import', file, '--restart', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.skipped, 0);
  assert.equal(s.created + s.matched, 60);
  assert.equal(sb.contacts().length, 60);
  const both = await runCli(['import', file, '--resume', '--restart'], { env });
  assert.equal(both.code, 2);
});
