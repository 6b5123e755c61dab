// The limit remembered between runs (docs/pacing.md, "The memory"), through the real CLI against
// the sandbox: kept per base URL and key fingerprint in the config folder, started from by the
// next job, shown by `callctl limit`, dropped by `limit forget`, and a damaged file ignored with
// one warning. How fast a second run goes is the simulation's to say (memory-sim.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprint } from '../../src/pace/index.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

function leads(dir: string, name: string, n: number, offset = 0): string {
  const rows = ['Name,Phone'];
  for (let i = 0; i < n; i++) rows.push(`L${offset + i},+4474009${String(offset + i).padStart(5, '0')}`);
  const file = join(dir, name);
  writeFileSync(file, `${rows.join('\n')}\n`);
  return file;
}

const KEYS = ['baseUrl', 'source', 'shape', 'rate', 'burst', 'window', 'quota', 'maxInFlight', 'headers', 'learntAt'];

test('a job remembers the limit it learnt for this base URL and key; the next starts from it; another key or base URL does not', async (t) => {
  // A limit a slow machine still meets: 40 rows into 10 a second (burst 2) meet 429s however busy
  // the machine is, so there is always something learnt to remember. How close the learnt rate comes
  // to the real one is a bound on time, pinned on the virtual clock (test/pace/real-limiters.test.ts).
  const sb = await startTestSandbox(t, { rateLimit: 10, burst: 2, rateLimitHeaders: 'none' });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const none = await runCli(['limit'], { env });
  assert.equal(none.code, 4, none.stderr);
  assert.match(none.stderr, /^callctl: nothing is known of the rate limit for .* yet/);

  const first = await runCli(['import', leads(dir, 'a.csv', 40), '--json'], { env });
  assert.equal(first.code, 0, first.stderr);
  const files = readdirSync(join(env.CALLCTL_CONFIG_DIR as string, 'limits'));
  assert.deepEqual(files, [`${fingerprint(sb.baseUrl, sb.secretKey)}.json`]);
  const text = readFileSync(join(env.CALLCTL_CONFIG_DIR as string, 'limits', files[0] as string), 'utf8');
  assert.ok(!text.includes(sb.secretKey), 'the key itself is never written');

  const shown = await runCli(['limit', '--json'], { env });
  assert.equal(shown.code, 0, shown.stderr);
  const limit = JSON.parse(shown.stdout);
  assert.deepEqual(Object.keys(limit), KEYS);
  assert.equal(limit.baseUrl, sb.baseUrl);
  assert.equal(limit.source, 'learnt');
  assert.equal(limit.headers, null);
  assert.ok(limit.rate > 0, `rate ${limit.rate}`);
  assert.ok(Date.parse(limit.learntAt) > Date.now() - 60_000);
  const human = await runCli(['limit'], { env });
  assert.equal(human.code, 0);
  assert.match(human.stdout, /^http:\/\/127\.0\.0\.1:\d+\/api\/v1 with the key sk_live_…\w{4}:\n {2}shape {6}/);

  const second = await runCli(['import', leads(dir, 'b.csv', 20, 100), '-v'], { env });
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stderr, /· starting from the rate limit learnt on \d{4}-\d\d-\d\d: \w+, [\d.]+ requests\/s/);

  // The sandbox's read-only key is another key: nothing is known for it.
  const otherKey = await runCli(['limit'], { env: { ...env, CALLCTL_API_KEY: sb.readOnlyKey } });
  assert.equal(otherKey.code, 4, otherKey.stderr);
  // Another service with the same key: nothing either.
  const sb2 = await startTestSandbox(t, { keys: { secret: sb.secretKey } });
  const otherBase = await runCli(['limit', '--json'], { env: { ...env, CALLCTL_BASE_URL: sb2.baseUrl } });
  assert.equal(otherBase.code, 4, otherBase.stderr);
  assert.equal(otherBase.stdout, '');
});

for (const [what, content] of [
  ['not JSON', '{"version": 1, "limit": '],
  ['from another version', JSON.stringify({ version: 99, baseUrl: 'x', limit: { shape: 'bucket', rate: 5 } })],
] as const) {
  test(`a memory file ${what} is ignored with one warning, and the job replaces it`, async (t) => {
    const sb = await startTestSandbox(t, { rateLimit: 50, burst: 50 });
    const env = envFor(sb, t);
    const limits = join(env.CALLCTL_CONFIG_DIR as string, 'limits');
    mkdirSync(limits, { recursive: true });
    const file = join(limits, `${fingerprint(sb.baseUrl, sb.secretKey)}.json`);
    writeFileSync(file, content);
    const r = await runCli(['import', leads(tempDir(t), 'a.csv', 30), '--json'], { env });
    assert.equal(r.code, 0, r.stderr);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('callctl: warning:'));
    assert.equal(warnings.length, 1, r.stderr);
    assert.match(warnings[0] as string, /the remembered rate limit in .*\.json (is not valid JSON|is from another version of callctl or damaged); starting without it/);
    // The job read the limit from the sandbox's headers, and kept it.
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(kept.version, 1);
    assert.equal(kept.limit.source, 'headers');
    assert.equal(kept.limit.headers, 'draft6');
    const again = await runCli(['limit', '--json'], { env });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stderr, '');
  });
}

test('limit forget drops what is remembered; --rate is shown when nothing else is known, and a remembered limit never raises it', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 50, burst: 50 });
  const env = envFor(sb, t);
  const onlyRate = await runCli(['limit', '--json', '--rate', '7'], { env });
  assert.equal(onlyRate.code, 0, onlyRate.stderr);
  assert.deepEqual(JSON.parse(onlyRate.stdout), { baseUrl: sb.baseUrl, source: '--rate', shape: null, rate: 7, burst: null, window: null, quota: null, maxInFlight: null, headers: null, learntAt: null });

  assert.equal((await runCli(['import', leads(tempDir(t), 'a.csv', 30)], { env })).code, 0);
  const learnt = JSON.parse((await runCli(['limit', '--json'], { env })).stdout);
  assert.equal(learnt.source, 'headers');
  assert.ok(learnt.rate > 7);
  const capped = JSON.parse((await runCli(['limit', '--json', '--rate', '7'], { env })).stdout);
  assert.equal(capped.rate, 7, 'the pace never passes --rate');
  assert.match((await runCli(['limit', '--rate', '7'], { env })).stdout, /--rate {5}7 requests\/s: a ceiling the pace never passes \(under the limit above\)/);

  const file = join(env.CALLCTL_CONFIG_DIR as string, 'limits', `${fingerprint(sb.baseUrl, sb.secretKey)}.json`);
  const forget = await runCli(['limit', 'forget'], { env });
  assert.equal(forget.code, 0, forget.stderr);
  assert.match(forget.stderr, /^forgot the rate limit remembered for http:\/\/127\.0\.0\.1:\d+\/api\/v1 with the key sk_live_…/);
  assert.ok(!existsSync(file));
  assert.equal((await runCli(['limit'], { env })).code, 4);
  const twice = await runCli(['limit', 'forget'], { env });
  assert.equal(twice.code, 0);
  assert.match(twice.stderr, /^nothing was remembered for /);
  assert.equal((await runCli(['limit', 'forget', '--json'], { env })).code, 2, '--json does not apply to forget');
});

test('a dry run says how long the real run would take at the limit known, or that it is not known yet', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 20, burst: 20 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const file = leads(dir, 'a.csv', 40);
  const noKey = await runCli(['import', file, '--dry-run'], { env: { ...env, CALLCTL_API_KEY: undefined } });
  assert.equal(noKey.code, 0, noKey.stderr);
  assert.match(noKey.stderr, /the rate limit is not known yet \(the first real run learns it and remembers it; --rate sets a ceiling\): no estimate of its time/);
  const atRate = await runCli(['import', file, '--dry-run', '--rate', '4'], { env: { ...env, CALLCTL_API_KEY: undefined } });
  assert.match(atRate.stderr, /the real run would take about 10 s for 40 requests at --rate 4\/s/);
  assert.equal((await runCli(['import', leads(dir, 'b.csv', 30, 500)], { env })).code, 0);
  const known = await runCli(['import', file, '--dry-run'], { env });
  assert.equal(known.code, 0, known.stderr);
  assert.match(known.stderr, /the real run would take about \d+ s for 40 requests at the limit read from headers on \d{4}-\d\d-\d\d, [\d.]+ requests\/s/);
});
