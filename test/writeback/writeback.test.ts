// Outcome writeback end to end: `calls outcome --from` against the sandbox (with faults), the
// server's state afterwards, the rejects file, the dry run, kill -9 / Ctrl-C then --resume, the
// outcome vocabulary, and `calls summary` against totals computed from the sandbox's own state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';


const OUTCOMES = ['booked_job', 'no_answer', 'quote_sent'];

/** A file of good rows for `ids` (outcome and value by position), with the bad rows appended. */
function writeFile(dir: string, ids: string[], extra: string[] = [], name = 'outcomes.csv'): { path: string; expected: Map<string, { outcome: string; value?: number; currency?: string }> } {
  const expected = new Map<string, { outcome: string; value?: number; currency?: string }>();
  const lines = ['Call ID,Outcome,Value,Currency'];
  ids.forEach((id, i) => {
    const outcome = OUTCOMES[i % 3] as string;
    if (i % 3 === 0) {
      const value = 100 + (i % 50) + 0.25;
      lines.push(`${id},${outcome},${value},${i % 2 === 0 ? 'usd' : 'EUR'}`);
      expected.set(id, { outcome, value, currency: i % 2 === 0 ? 'USD' : 'EUR' });
    } else {
      lines.push(`${id},${outcome},,`);
      expected.set(id, { outcome });
    }
  });
  const path = join(dir, name);
  writeFileSync(path, `${[...lines, ...extra].join('\n')}\n`);
  return { path, expected };
}

const BAD_ROWS = [
  'call_unknown,booked_job,,', // 404 from the server
  ',booked_job,,', // no call id
  'CALLID_X,Booked Job,,', // not snake_case
  'CALLID_X,booked_job,"$1,250",USD', // not a plain number
  'CALLID_X,booked_job,1.250,00', // a value with a currency that is not one ("00")
  'CALLID_X,booked_job,250,', // a value needs a currency (none given, no default)
  'CALLID_X,booked_job,-5,USD', // negative
  'CALLID_X,booked_job,10,XYZ', // not ISO 4217
];

test('a 1,000-row writeback with bad rows of every kind and server faults: exact values on the server, every bad row in the rejects file with its reason', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 1000, faults: 0.03, faultDelayMs: 400 });
  const dir = tempDir(t);
  const ids = sb.calls().map((c) => c.id);
  const first = ids[0] as string;
  const bad = BAD_ROWS.map((r) => r.replace('CALLID_X', first));
  // A later row for a call already in the file is a duplicate (the first row wins).
  const { path, expected } = writeFile(dir, ids, [...bad, `${first},quote_sent,,`]);
  const r = await runCli(['--timeout', '300', 'calls', 'outcome', '--from', path, '--json'], { env: envFor(sb, t), timeoutMs: 120_000 });
  assert.equal(r.code, 6, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(s), ['file', 'rows', 'updated', 'rejected', 'duplicates', 'failed', 'skipped', 'dryRun', 'rejectsFile', 'requests', 'throttled', 'elapsedMs']);
  assert.equal(s.rows, 1000 + BAD_ROWS.length + 1);
  assert.equal(s.updated, 1000);
  assert.equal(s.rejected, BAD_ROWS.length);
  assert.equal(s.duplicates, 1);
  assert.equal(s.failed, 0);
  assert.ok(sb.stats().faults > 0, 'faults happened');
  sb.setFaults(0);
  for (const call of sb.calls()) {
    const want = expected.get(call.id);
    assert.ok(want, call.id);
    assert.equal(call.outcome, want.outcome, call.id);
    assert.equal(call.value ?? undefined, want.value, call.id);
    assert.equal(call.currency ?? undefined, want.currency, call.id);
  }
  const rejectsText = readFileSync(s.rejectsFile, 'utf8');
  assert.ok(rejectsText.startsWith('\ufeffCall ID,Outcome,Value,Currency,error,line\n'));
  const rejects = rejectsText.trim().split('\n');
  const body = rejects.slice(1).join('\n');
  for (const reason of [/unknown call \(404\)/, /no call id/, /not snake_case \(use booked_job\)/, /""\$1,250"" is not a plain number/, /""00"" is not an ISO 4217/, /a value needs a currency/, /""-5"" is not a plain number/, /""XYZ"" is not an ISO 4217/, /duplicate: call/]) {
    assert.match(body, reason);
  }
  // Each reject names its line in the source (the header is line 1).
  assert.ok(rejects.some((l) => /^call_unknown,.*\(404\).*,1002$/.test(l)), 'the 404 row names line 1002');
  assert.ok(rejects.some((l) => /^,booked_job,,,no call id,1003$/.test(l)), 'the row without an id names line 1003');
});

test('--dry-run checks every row and sends nothing, with no key at all', async (t) => {
  const dir = tempDir(t);
  const { path } = writeFile(dir, ['call_1', 'call_2', 'call_3'], ['call_4,Not Snake,,']);
  const r = await runCli(['calls', 'outcome', '--from', path, '--dry-run', '--json'], { env: { CALLCTL_CONFIG_DIR: dir, CALLCTL_API_KEY: undefined, CALLCTL_BASE_URL: undefined } });
  assert.equal(r.code, 6, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.dryRun, true);
  assert.equal(s.rows, 4);
  assert.equal(s.rejected, 1);
  assert.equal(s.requests, 0);
  assert.match(r.stderr, /valid\s+3\s+\(would be written\)/);
});

test('usage: --from with a call id, a file without a call id column, a bulk flag without --from — exit 2, nothing sent', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 1 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  const noId = join(dir, 'no-id.csv');
  writeFileSync(noId, 'Outcome,Value\nbooked_job,1\n');
  for (const args of [
    ['calls', 'outcome', 'call_1', 'booked_job', '--from', noId],
    ['calls', 'outcome', '--from', noId],
    ['calls', 'outcome', 'call_1', 'booked_job', '--dry-run'],
    ['calls', 'outcome', 'call_1'],
  ]) {
    const r = await runCli(args, { env });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
  assert.equal(sb.stats().requests, 0);
});

for (const signal of ['SIGKILL', 'SIGINT'] as const) {
  test(`${signal} mid-writeback, then --resume: every call written, at most the in-flight rows sent again`, async (t) => {
    const ROWS = 150;
    const WINDOW = 16;
    const sb = await startTestSandbox(t, { rateLimit: 40, burst: 5, seed: ROWS });
    const dir = tempDir(t);
    const ids = sb.calls().map((c) => c.id);
    const { path, expected } = writeFile(dir, ids);
    const env = envFor(sb, t);
    const patches = () => sb.stats().byRoute['PATCH /calls/{id}'] ?? 0;
    const run = startCli(['calls', 'outcome', '--from', path, '--json'], { env });
    await waitFor(() => patches() >= 40);
    run.child.kill(signal);
    const first = await run.result;
    if (signal === 'SIGINT') {
      assert.equal(first.code, 130, first.stderr);
      const s = JSON.parse(first.stdout);
      // Every row read is in exactly one count.
      assert.equal(s.rows, s.updated + s.rejected + s.duplicates + s.failed + s.skipped + (s.unfinished ?? 0));
    }
    const writtenAtStop = sb.calls().filter((c) => c.outcome).length;
    assert.ok(writtenAtStop < ROWS, 'stopped mid-way');
    const before = patches() - sb.stats().throttled;
    const resumed = await runCli(['calls', 'outcome', '--from', path, '--resume', '--json'], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    const s = JSON.parse(resumed.stdout);
    assert.equal(s.skipped + s.updated, ROWS);
    assert.ok(s.updated <= ROWS - writtenAtStop + WINDOW, `re-sent at most the window: ${s.updated} for ${ROWS - writtenAtStop} left`);
    assert.ok(patches() - sb.stats().throttled - before >= ROWS - writtenAtStop);
    for (const call of sb.calls()) assert.equal(call.outcome, expected.get(call.id)?.outcome, call.id);
  });
}

test('an outcome vocabulary: outside it, the single command is exit 2 and a row is rejected, each with the nearest name', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  assert.equal((await runCli(['config', 'set', 'outcomes', 'booked_job,no_answer,quote_sent'], { env })).code, 0);
  const bad = await runCli(['config', 'set', 'outcomes', 'booked_job,Not Snake'], { env });
  assert.equal(bad.code, 2);
  const ids = sb.calls().map((c) => c.id);
  const single = await runCli(['calls', 'outcome', ids[0] as string, 'bookedjob'], { env });
  assert.equal(single.code, 2);
  assert.match(single.stderr, /not in this profile's outcomes \(did you mean booked_job\?/);
  const file = join(dir, 'o.csv');
  writeFileSync(file, `callId,outcome\n${ids[0]},booked_job\n${ids[1]},no_anser\n`);
  const r = await runCli(['calls', 'outcome', '--from', file, '--json'], { env });
  assert.equal(r.code, 6);
  assert.deepEqual([JSON.parse(r.stdout).updated, JSON.parse(r.stdout).rejected], [1, 1]);
  assert.match(readFileSync(`${file}.rejects.csv`, 'utf8'), /did you mean no_answer/);
  assert.equal(sb.calls().find((c) => c.id === ids[1])?.outcome ?? null, null);
});

test('without a vocabulary, a new outcome is written with a warning naming the closest; an outcome without a value over a call that has one says so', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3 });
  const env = envFor(sb, t);
  const [a, b] = sb.calls().map((c) => c.id) as [string, string];
  assert.equal((await runCli(['calls', 'outcome', a, 'booked_job', '--value', '250', '--currency', 'USD'], { env })).code, 0);
  const typo = await runCli(['calls', 'outcome', b, 'booked_jobs'], { env });
  assert.equal(typo.code, 0);
  assert.match(typo.stderr, /no call has the outcome "booked_jobs" yet.*did you mean booked_job/);
  const over = await runCli(['calls', 'outcome', a, 'quote_sent'], { env });
  assert.equal(over.code, 0);
  assert.match(over.stderr, /has a value of 250 USD.*--value 250 --currency USD/);
});

test('calls summary: per outcome and per channel, sums exact to the cent, equal to totals computed from the sandbox', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 120 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  const ids = sb.calls().map((c) => c.id);
  // 0.1 + 0.2 style values: floating point would drift.
  const lines = ['callId,outcome,value,currency'];
  ids.forEach((id, i) => {
    if (i % 4 === 3) return; // some calls keep no outcome
    lines.push(`${id},${OUTCOMES[i % 3]},${i % 2 ? '0.1' : '0.2'},${i % 5 === 0 ? 'EUR' : 'USD'}`);
  });
  writeFileSync(join(dir, 'o.csv'), `${lines.join('\n')}\n`);
  assert.equal((await runCli(['calls', 'outcome', '--from', join(dir, 'o.csv')], { env })).code, 0);

  const expected = new Map<string, { calls: number; cents: Map<string, number> }>();
  for (const c of sb.calls()) {
    const key = `${c.outcome ?? '(none)'}|${c.channel}`;
    const e = expected.get(key) ?? { calls: 0, cents: new Map() };
    e.calls += 1;
    if (typeof c.value === 'number' && c.currency) e.cents.set(c.currency, (e.cents.get(c.currency) ?? 0) + Math.round(c.value * 100));
    expected.set(key, e);
  }
  const r = await runCli(['calls', 'summary', '--by', 'channel', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  const rows = JSON.parse(r.stdout) as Array<{ outcome: string; channel: string; calls: number; totals: Record<string, number> }>;
  assert.equal(rows.length, expected.size);
  for (let i = 1; i < rows.length; i++) assert.ok((rows[i - 1] as { calls: number }).calls >= (rows[i] as { calls: number }).calls, 'most calls first');
  for (const row of rows) {
    const e = expected.get(`${row.outcome}|${row.channel}`);
    assert.ok(e, `${row.outcome}|${row.channel}`);
    assert.equal(row.calls, e.calls);
    assert.deepEqual(row.totals, Object.fromEntries([...e.cents].sort(([x], [y]) => x.localeCompare(y)).map(([cur, cents]) => [cur, cents / 100])));
  }
  assert.ok(rows.some((row) => row.outcome === '(none)'));
  const table = await runCli(['calls', 'summary'], { env });
  assert.equal(table.code, 0);
  assert.match(table.stdout, /booked_job/);
  assert.match(table.stderr, /120 calls in \d+ groups/);
});
