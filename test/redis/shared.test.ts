// One rate-limit budget across processes through a real Redis (the tests' own, helpers/redis.ts;
// skipped, saying so, where none can be started).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { checkBaseUrl } from '../../src/http/safety.js';
import { sharedLimiterId } from '../../src/pace/index.js';
import { ROOT, runCli, startCli, tempDir } from '../helpers/cli.js';
import { redisOrSkip } from '../helpers/redis.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

const { url: REDIS, skip } = await redisOrSkip();

function leads(dir: string, p: number, n: number): string {
  const rows = ['Name,Phone'];
  for (let i = 0; i < n; i++) rows.push(`P${p}R${i},+4474001${p}${String(i).padStart(4, '0')}`);
  const file = join(dir, `leads${p}.csv`);
  writeFileSync(file, `${rows.join('\n')}\n`);
  return file;
}

/**
 * Two budgets on one key, started in turn: the first leads, with one start granted to itself. The
 * second is started, nothing asked of it yet.
 */
async function leaderAndOther(id: string, hooks: { now(): number; follow(): void; lost(err: unknown): void; leading?: () => void }) {
  const { connectShared } = await import('../../src/pace/index.js');
  const log = { warn: () => undefined, info: () => undefined, debug: () => undefined } as unknown as Parameters<typeof connectShared>[0]['log'];
  const leader = await connectShared({ redisUrl: REDIS!, id, log, required: true });
  const other = await connectShared({ redisUrl: REDIS!, id, log, required: true });
  assert.ok(leader && other);
  leader.start(hooks);
  const first = await leader.acquire();
  other.start(hooks);
  return { leader, other, first };
}

test('three imports at once with the same key share the budget: each row once, and far fewer 429s than three paced apart', { skip }, async (t) => {
  const R = 20;
  const N = 80;
  const sb = await startTestSandbox(t, { rateLimit: R, burst: R });
  const dir = tempDir(t);
  const started = performance.now();
  const runs = await Promise.all([0, 1, 2].map((p) => runCli(['import', leads(dir, p, N), '--json', '--redis-url', REDIS!], { env: envFor(sb, t) })));
  const secs = (performance.now() - started) / 1000;
  for (const r of runs) {
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /warning/);
  }
  const phones = sb.contacts().map((c) => c.phone);
  assert.equal(phones.length, 3 * N);
  assert.equal(new Set(phones).size, 3 * N);
  // Three imports each pacing at the limit alone send at three times it: about two requests in
  // three would meet a 429. One budget keeps them together at the limit; how close, and at how few
  // 429s, the virtual-clock simulation of three processes holds (pace-sim.test.ts) — a real-time
  // share on a loaded machine would only measure the machine.
  const st = sb.stats();
  t.diagnostic(`429s ${st.throttled}/${st.requests} in ${secs.toFixed(1)} s`);
  assert.ok(st.throttled < 0.25 * st.requests, `429 share ${st.throttled}/${st.requests}`);
});

test('Redis unreachable: a warning and the local limiter (exit 0); with --require-redis, exit 1', { skip }, async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  const env = envFor(sb, t, { CALLCTL_REDIS_URL: `redis://127.0.0.1:${port}` });
  const soft = await runCli(['contacts', 'ls', '--json'], { env });
  assert.equal(soft.code, 0, soft.stderr);
  assert.match(soft.stderr, /warning: Redis at 127\.0\.0\.1:\d+ is unreachable.*pacing this process alone/);
  assert.equal(JSON.parse(soft.stdout).length, 2);
  const hard = await runCli(['contacts', 'ls', '--require-redis'], { env });
  assert.equal(hard.code, 1);
  assert.match(hard.stderr, /^callctl: Redis at .* is unreachable/);
  assert.equal(hard.stderr.trim().split('\n').length, 1);
});

// Redis killed (it refuses), or stopped (SIGSTOP: it hangs — every request waits for its grant
// through Redis, so a Redis that stops answering must not hold the import for good either).
for (const [how, signal] of [['vanishes', 'SIGKILL'], ['stops answering (SIGSTOP)', 'SIGSTOP']] as const) {
  test(`a Redis that ${how} mid-import: the import goes on alone, no row lost or doubled`, { skip }, async (t) => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    t.after(() => {
      redis.kill('SIGCONT');
      redis.kill('SIGKILL');
    });
    await new Promise((r) => setTimeout(r, 300));
    const sb = await startTestSandbox(t, { rateLimit: 30, burst: 5 });
    const dir = tempDir(t);
    const run = startCli(['import', leads(dir, 5, 120), '--json', '--redis-url', `redis://127.0.0.1:${port}`], { env: envFor(sb, t) });
    for (let i = 0; i < 500 && sb.contacts().length < 30; i++) await new Promise((r) => setTimeout(r, 20));
    redis.kill(signal);
    const r = await run.result;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: the shared rate limit on Redis failed/);
    const phones = sb.contacts().map((c) => c.phone);
    assert.equal(phones.length, 120);
    assert.equal(new Set(phones).size, 120);
  });
}

test('the leader killed mid-import: another process takes the lead and finishes every row of its own', { skip }, async (t) => {
  const { Redis } = await import('ioredis');
  const redis = new Redis(REDIS!);
  t.after(() => redis.disconnect());
  const sb = await startTestSandbox(t, { rateLimit: 20, burst: 5 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  // The first process starts alone, so it takes the lead.
  const first = startCli(['import', leads(dir, 6, 200), '--json', '--redis-url', REDIS!], { env });
  // The budget's name, as the client makes it from this sandbox's base URL and key.
  const key = `${sharedLimiterId(checkBaseUrl(sb.baseUrl).href, sb.secretKey)}:pace:leader`;
  let firstToken: string | null = null;
  for (let i = 0; i < 500 && (firstToken = await redis.get(key)) === null; i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(firstToken, 'no leader was ever recorded in Redis');
  const second = startCli(['import', leads(dir, 7, 120), '--json', '--redis-url', REDIS!], { env });
  for (let i = 0; i < 500 && sb.contacts().length < 40; i++) await new Promise((r) => setTimeout(r, 20));
  first.child.kill('SIGKILL');
  const killed = await first.result;
  assert.equal(killed.code, null, 'the first import had ended before it was killed');
  // The lock lapses (3 s) and the second process takes it.
  let taken: string | null = null;
  for (let i = 0; i < 300 && !taken; i++) {
    const now = await redis.get(key);
    if (now !== null && now !== firstToken) taken = now;
    else await new Promise((r) => setTimeout(r, 20));
  }
  const r = await second.result;
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /warning/);
  assert.ok(taken, 'no other process took the lead after the leader died');
  const phones = new Set(sb.contacts().map((c) => c.phone));
  for (let i = 0; i < 120; i++) assert.ok(phones.has(`+4474001${7}${String(i).padStart(4, '0')}`), `row ${i} of the second import is missing`);
  assert.equal(JSON.parse(r.stdout).created, 120);
});

test('a budget closed at the end of a job reports no failure for what was still on its way to Redis', { skip }, async () => {
  const { connectShared } = await import('../../src/pace/index.js');
  const warnings: string[] = [];
  const log = { warn: (line: string) => warnings.push(line), info: () => undefined, debug: () => undefined } as unknown as Parameters<typeof connectShared>[0]['log'];
  const lost: string[] = [];
  // The budget renews its lead every 50 ms, and pops wants, grants and answers as they come:
  // closing at every millisecond around the first of those ticks closes some of them half-way.
  for (let offset = 44; offset <= 62; offset++) {
    const budget = await connectShared({ redisUrl: REDIS!, id: `callctl:test-close-${process.pid}-${offset}`, log, required: true });
    assert.ok(budget);
    budget.start({ now: () => Date.now(), follow: () => undefined, lost: (err) => lost.push(`${offset} ms: ${String(err)}`) });
    // Alone on its budget, it leads: its own wants are granted.
    const grants = await Promise.all([1, 2, 3].map(() => budget.acquire()));
    for (const [i, g] of grants.entries()) budget.record(g, { at: Date.now(), sentAt: 0, status: i === 0 ? 429 : 200 });
    // Still waiting when the budget closes: refused as closed, not as a failure of Redis.
    const waiting = Array.from({ length: 20 }, () => budget.acquire().then(() => 'granted', (err: Error) => err.message));
    await new Promise((r) => setTimeout(r, offset));
    await budget.close();
    for (const w of await Promise.all(waiting)) assert.ok(w === 'granted' || /closed/.test(w), w);
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(lost, []);
  assert.deepEqual(warnings, []);
});

test('a process killed with starts granted to it: the leader gives them up within its mark’s 3 s, not never', { skip }, async (t) => {
  const { connectShared } = await import('../../src/pace/index.js');
  const id = `callctl:test-killed-${process.pid}`;
  const quiet = () => undefined;
  const log = { warn: quiet, info: quiet, debug: quiet } as unknown as Parameters<typeof connectShared>[0]['log'];
  const leader = await connectShared({ redisUrl: REDIS!, id, log, required: true });
  assert.ok(leader);
  leader.start({ now: () => Date.now(), follow: quiet, lost: (err) => assert.fail(String(err)) });
  await leader.acquire();
  // Another process is granted two starts, and is killed: no answer, no goodbye.
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/helpers/budget-child.ts'), REDIS!, id, '2'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  await new Promise<void>((ok, fail) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('granted') && ok());
    child.on('exit', (code) => fail(new Error(`the other process ended (${code}) before its grants`)));
  });
  const gate = leader.leadGate;
  assert.ok(gate, 'the first process leads');
  assert.equal(gate.inflight, 3);
  child.kill('SIGKILL');
  const from = Date.now();
  while (gate.inflight > 1 && Date.now() - from < 6_000) await new Promise((r) => setTimeout(r, 50));
  // (Before the mark, a lease of a request's timeout + 10 s — 40 s by default — held them.)
  assert.equal(gate.inflight, 1, 'the killed process’s grants are still counted in flight');
  await leader.close();
});

test('a budget closed just as it takes the lead another let go leaves no connection open', { skip }, async () => {
  const port = Number(new URL(REDIS!).port || 6379);
  // Sockets to Redis still open in this process: each one would hold an ended import open for good.
  const open = () => (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().filter((h) => (h as { remotePort?: number }).remotePort === port && !(h as { destroyed?: boolean }).destroyed).length;
  // The leader ends and lets go of its lock; the other closes the moment its tick has taken the
  // lock up, before it opens its lead. (Three imports by hand: one printed its summary and never
  // exited — its lead's connection was opened after it closed.)
  let closing: Promise<void> | undefined;
  let b: Awaited<ReturnType<typeof leaderAndOther>>['other'] | undefined;
  const hooks = { now: () => Date.now(), follow: () => undefined, lost: () => undefined, leading: () => void (b && (closing ??= b.close())) };
  const pair = await leaderAndOther(`callctl:test-close-lead-${process.pid}`, hooks);
  const a = pair.leader;
  b = pair.other;
  await a.close();
  for (let i = 0; i < 100 && !closing; i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(closing, 'the other never took the lead up');
  await closing;
  const from = Date.now();
  while (open() > 0 && Date.now() - from < 2_000) await new Promise((r) => setTimeout(r, 50));
  assert.equal(open(), 0, 'a connection to Redis is still open after every budget closed');
});

test('three imports against a cap on requests in flight, one budget: each row once, every import ends', { skip }, async (t) => {
  // A full cap grants each process's next start ahead, in the place of its own request in flight
  // (central-gate.ts, follow-ons): sent the moment that answer comes, or given back.
  const N = 150;
  const sb = await startTestSandbox(t, { limiter: 'concurrency', maxInflight: 2, latencyMs: 30, rateLimit: 0 });
  const dir = tempDir(t);
  const runs = await Promise.all([0, 1, 2].map((p) => runCli(['import', leads(dir, p, N), '--json', '--redis-url', REDIS!], { env: envFor(sb, t) })));
  for (const r of runs) {
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /warning/);
    assert.equal(JSON.parse(r.stdout).created, N);
  }
  const phones = sb.contacts().map((c) => c.phone);
  assert.equal(phones.length, 3 * N);
  assert.equal(new Set(phones).size, 3 * N);
  // How many 429s finding the cap costs is the simulation's to bound (shared-gate.test.ts, the ramp
  // after a pause; pace-sim.test.ts): over real Redis on a loaded machine it measures the machine.
  t.diagnostic(`429s ${sb.stats().throttled}/${sb.stats().requests}`);
});

test('a leader closing hands over once what it granted is answered, with the cap it found', { skip }, async (t) => {
  const hooks = { now: () => Date.now(), follow: () => undefined, lost: (err: unknown) => assert.fail(String(err)) };
  const id = `callctl:test-handover-${process.pid}`;
  const { leader, other, first } = await leaderAndOther(id, hooks);
  t.after(() => Promise.all([leader.close(), other.close()]));
  leader.record(first, { at: Date.now(), sentAt: Date.now() - 1, status: 200 });
  // A cap of 3 found by the leader, written to the budget's state with the pace at its next tick.
  leader.leadGate?.gate.capAtMost(3, Date.now());
  await new Promise((r) => setTimeout(r, 120));
  const granted = await other.acquire();
  const sentAt = Date.now();
  let closed = false;
  const closing = leader.close().then(() => (closed = true));
  await new Promise((r) => setTimeout(r, 300));
  // Still at the server: the leader holds on, so that no new gate grants its place again.
  assert.equal(closed, false, 'the leader let go with a request still in flight');
  assert.equal(other.leadGate, undefined);
  other.record(granted, { at: Date.now(), sentAt, status: 200 });
  await closing;
  const from = Date.now();
  const next = () => other.leadGate;
  while (next() === undefined && Date.now() - from < 2_000) await new Promise((r) => setTimeout(r, 20));
  assert.equal(next()?.gate.window, 3, 'the next leader starts from the cap found');
});
