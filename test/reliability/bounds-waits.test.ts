// No wait past a timer's range, whatever a server or a file asks (docs/network.md, "Bounds"): a
// long pause is slept in pieces of at most 2³¹−1 ms — Node fires a longer timer at once, and a
// 30-day Retry-After became a busy loop of TimeoutOverflowWarnings — `--max-pause` and `--timeout`
// have ceilings (exit 2 beyond, nothing sent), and a remembered limit no service could have (a rate
// of 1e-300 requests/s) is ignored with one warning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_TIMER_MS, sleepInPieces, systemDeps } from '../../src/deps.js';
import { fingerprint } from '../../src/pace/index.js';
import { startCli, tempDir } from '../helpers/cli.js';
import { assertEachOnce, writeLeads } from '../helpers/leads.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';
import { waitFor } from '../helpers/wait.js';

const KEY = `sk_live_${'w'.repeat(24)}`;

test('a sleep of 30 days is timers of at most 2³¹−1 ms each, adding up to it, and ends at once on abort', async () => {
  const asked: number[] = [];
  await sleepInPieces(2_592_000_000, undefined, async (ms) => void asked.push(ms));
  assert.ok(asked.every((ms) => ms <= MAX_TIMER_MS && ms > 0), asked.join(' '));
  assert.equal(asked.reduce((a, b) => a + b, 0), 2_592_000_000);
  assert.equal(asked.length, 2);

  // The real sleep: no TimeoutOverflowWarning, still asleep while watched, ended by its signal.
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  try {
    const stop = new AbortController();
    let state = 'asleep';
    const slept = systemDeps().sleep(MAX_TIMER_MS + 10_000, stop.signal).then(() => (state = 'woke'), (err: Error) => (state = err.name));
    // Watched for half a second: a timer past its range would have fired (and warned) within 1 ms.
    await assert.rejects(waitFor(() => state !== 'asleep' || warnings.length > 0, 500, 'a wrong wake-up'));
    stop.abort();
    await slept;
    assert.equal(state, 'AbortError');
    assert.deepEqual(warnings, []);
  } finally {
    process.off('warning', onWarning);
  }
});

test('--max-pause and --timeout beyond their ceilings are exit 2 before anything is sent; a 30-day Retry-After stops at once under the highest --max-pause', async (t) => {
  const server = await scriptedServer(t, (_hit, res) => json(res, 429, { error: { message: 'come back next month' } }, { 'retry-after': '2592000' }));
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) };
  for (const [flag, value, ceiling] of [['--max-pause', '99999999', '86400'], ['--timeout', '9999999999', '3600000']] as const) {
    const run = startCli(['contacts', 'ls', flag, value], { env, timeoutMs: 20_000 });
    let ended: Awaited<typeof run.result> | undefined;
    void run.result.then((r) => (ended = r));
    await waitFor(() => ended !== undefined, 10_000, `${flag} ${value} refused`);
    assert.equal(ended!.code, 2, ended!.stderr);
    assert.match(ended!.stderr, new RegExp(`^callctl: option '${flag} <\\w+>' argument '${value}' is invalid\\. expected a whole number from 1 to ${ceiling} \\(see callctl --help\\)\\n$`));
    assert.doesNotMatch(ended!.stderr, /TimeoutOverflowWarning/);
  }
  assert.equal(server.hits.length, 0, 'nothing sent');

  const run = startCli(['contacts', 'ls', '--max-pause', '86400'], { env, timeoutMs: 20_000 });
  let ended: Awaited<typeof run.result> | undefined;
  void run.result.then((r) => (ended = r));
  await waitFor(() => ended !== undefined, 10_000, 'the 30-day pause refused');
  assert.equal(ended!.code, 1, ended!.stderr);
  assert.match(ended!.stderr, /^callctl: the service asks for a pause of 720\.0 h \(429, Retry-After\), past --max-pause 86400 s \(try again after [\d-]+ \d\d:\d\d:\d\d, or raise --max-pause\)\n$/);
  assert.equal(server.hits.length, 1);
});

test('a remembered limit of 1e-300 requests/s is ignored with one warning, and the import runs at the service\'s pace', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const env = envFor(sb, t);
  const limits = join(env.CALLCTL_CONFIG_DIR as string, 'limits');
  mkdirSync(limits, { recursive: true });
  const file = join(limits, `${fingerprint(sb.baseUrl, sb.secretKey)}.json`);
  writeFileSync(file, JSON.stringify({ version: 1, baseUrl: sb.baseUrl, limit: { shape: 'rate', rate: 1e-300, source: 'learnt', learntAt: Date.now() - 60_000, headers: null } }));
  const leads = writeLeads(tempDir(t), 12);
  const run = startCli(['import', leads], { env, timeoutMs: 40_000 });
  let ended: Awaited<typeof run.result> | undefined;
  void run.result.then((r) => (ended = r));
  await waitFor(() => ended !== undefined, 30_000, 'the import ended');
  assert.equal(ended!.code, 0, ended!.stderr);
  const warnings = ended!.stderr.split('\n').filter((l) => l.startsWith('callctl: warning:'));
  assert.deepEqual(warnings.length, 1, ended!.stderr);
  assert.match(warnings[0]!, /the remembered rate limit in .*\.json is outside plausible bounds \(rate 1e-300\); starting without it \(the next job replaces it\)/);
  assert.doesNotMatch(ended!.stderr, /TimeoutOverflowWarning/);
  assertEachOnce(sb.contacts().map((c) => c.phone), 12);
});
