// Faults and outages during an import: every row stored exactly once, exit 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';
import { assertEachOnce, writeLeads } from '../helpers/leads.js';


test('300 rows under --faults 0.3 with a timeout shorter than the fault delay (writes landed, answers lost)', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, faults: 0.3, faultDelayMs: 500 });
  const file = writeLeads(tempDir(t), 300);
  const env = envFor(sb, t);
  const r = await runCli(['--timeout', '200', '--concurrency', '8', 'import', file, '--json'], { env });
  let s = JSON.parse(r.stdout);
  // Eight rows in flight and their retries all listen on the job's one abort signal: no warning
  // from Node about it on the operator's stderr.
  assert.doesNotMatch(r.stderr, /MaxListenersExceededWarning|memory leak/);
  // A row fails only when all six of its attempts meet a fault (about 0.2^6 each, a few runs in a
  // hundred for one of 300): it is reported, exit 6, and `--resume` — what the summary says to
  // run — sends it again.
  if (r.code === 6 && s.failed > 0 && s.failed <= 3) {
    const again = await runCli(['--timeout', '200', '--concurrency', '8', 'import', file, '--json', '--resume'], { env });
    assert.equal(again.code, 0, again.stderr);
    const resumed = JSON.parse(again.stdout);
    s = { ...s, created: s.created + resumed.created, matched: s.matched + resumed.matched };
  } else {
    assert.equal(r.code, 0, r.stderr);
  }
  assert.equal(s.created + s.matched, 300);
  // Some retried rows had landed already and the service matched them: each is the contact its own
  // lost attempt stored (created after that attempt was sent), so it counts as created, not matched.
  assert.deepEqual([s.created, s.matched, s.uncertain], [300, 0, undefined]);
  sb.setFaults(0);
  assertEachOnce(sb.contacts().map((c) => c.phone), 300);
});

for (const mode of ['refuse', 'drop'] as const) {
  test(`an outage of 3 s (${mode}) mid-import is waited out with back-off, told in one line as it starts and one as it ends`, async (t) => {
    const sb = await startTestSandbox(t, { rateLimit: 40, burst: 5 });
    const file = writeLeads(tempDir(t), 120);
    const run = startCli(['import', file, '--json'], { env: envFor(sb, t) });
    for (let i = 0; i < 500 && sb.contacts().length < 30; i++) await new Promise((r) => setTimeout(r, 20));
    const storedAtOutage = sb.contacts().length;
    sb.outage(3_000, mode);
    const r = await run.result;
    // The outage fell in the middle of the import, and the import met it (and waited it out).
    assert.ok(storedAtOutage >= 30 && storedAtOutage < 120, `${storedAtOutage} rows stored when the outage began`);
    // Told in one line when it starts and one when it ends (stderr is no terminal here), not a
    // line per retry: those are for -v.
    // (The line as it starts depends on when progress looked; test/bulk/progress.test.ts pins it on a virtual clock.)
    assert.match(r.stderr, /^progress: service reachable again \(unreachable for \d+ s\); \d+ of ~?\d+ rows done$/m, r.stderr);
    assert.doesNotMatch(r.stderr, /retrying \(\d\/\d\)/);
    assert.ok(r.stderr.split('\n').filter((l) => l.includes('service unreachable')).length <= 2, r.stderr);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).failed, 0);
    assertEachOnce(sb.contacts().map((c) => c.phone), 120);
  });
}

test('killed at random points (kill -9 and SIGINT alternately), resumed each time: every row once', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 60, burst: 5 });
  const file = writeLeads(tempDir(t), 200);
  const env = envFor(sb, t);
  let seed = 42;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  for (let round = 0; round < 4; round++) {
    const target = Math.min(160, sb.contacts().length + 10 + Math.floor(random() * 30));
    const run = startCli(['import', file, ...(round > 0 ? ['--resume'] : [])], { env });
    for (let i = 0; i < 1000 && sb.contacts().length < target; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(sb.contacts().length < 200, `round ${round}: still importing when killed`);
    run.child.kill(round % 2 === 0 ? 'SIGKILL' : 'SIGINT');
    const r = await run.result;
    // Killed mid-import: never a clean exit (a kill after the import ended would prove nothing).
    assert.ok(round % 2 === 0 ? r.signal === 'SIGKILL' : r.code === 130, `round ${round}: ${r.code} ${r.signal} ${r.stderr}`);
  }
  const last = await runCli(['import', file, '--resume', '--json'], { env });
  assert.equal(last.code, 0, last.stderr);
  assertEachOnce(sb.contacts().map((c) => c.phone), 200);
});

test('429 without Retry-After, and with an HTTP-date Retry-After, during an import: waited out, not failures', async (t) => {
  const stored = new Set<string>();
  const server = await scriptedServer(t, (hit, res, i) => {
    if (i === 3) return json(res, 429, { error: { message: 'slow down' } });
    if (i === 9) return json(res, 429, {}, { 'retry-after': new Date(Date.now() + 1_500).toUTCString() });
    const phone = JSON.parse(hit.body).phone as string;
    const known = stored.has(phone);
    stored.add(phone);
    json(res, known ? 200 : 201, { id: `c_${phone}`, phone });
  });
  const file = writeLeads(tempDir(t), 20);
  const r = await runCli(['import', file, '--json'], { env: { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: `sk_live_${'r'.repeat(24)}`, CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual([s.created, s.failed, s.throttled], [20, 0, 2]);
  assert.equal(stored.size, 20);
});
