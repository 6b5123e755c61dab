// The HTTP core against the sandbox's real token bucket: a burst far over the limit, with and
// without rate-limit headers, ends with every request answered once and no 429 surfacing as an
// error. How fast, and at what share of 429s, is the simulation's and the benchmark's to say
// (test/http/pace-sim.test.ts, BENCHMARKS.md) — never a wall-clock assertion here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { ApiClient } from '../../src/http/client.js';
import { Logger } from '../../src/output/log.js';
import { startTestSandbox } from '../helpers/sandbox.js';

function clientFor(baseUrl: string, apiKey: string, concurrency = 4) {
  return new ApiClient({
    baseUrl: new URL(baseUrl), apiKey, concurrency, rate: undefined, timeoutMs: 5_000,
    log: new Logger(new PassThrough(), 'quiet', false), now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });
}

for (const headers of [true, false]) {
  test(`a burst of 120 GETs against 40/s ${headers ? 'with' : 'without'} RateLimit headers: all answered, few 429s`, async (t) => {
    const sb = await startTestSandbox(t, { rateLimit: 40, burst: 10, rateLimitHeaders: headers });
    const c = clientFor(sb.baseUrl, sb.secretKey, 8);
    t.after(() => c.close());
    const results = await Promise.all(Array.from({ length: 120 }, () => c.request({ method: 'GET', path: '/contacts', query: { limit: 1 } })));
    assert.ok(results.every((r) => r.status === 200), 'every request answered 200: a 429 never surfaced');
    const stats = sb.stats();
    assert.equal(stats.requests - stats.throttled, 120, 'every request answered once');
    assert.equal(c.stats().throttled, stats.throttled, 'the client saw every 429 the server sent');
    assert.equal(c.stats().requests, stats.requests, 'the client counted every attempt it made');
  });
}

test('faults (500, 503, drops, held replies past the timeout) are retried for GET and safe POSTs', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, faults: 0.3, faultDelayMs: 400 });
  const c = new ApiClient({
    baseUrl: new URL(sb.baseUrl), apiKey: sb.secretKey, concurrency: 4, rate: undefined, timeoutMs: 200,
    log: new Logger(new PassThrough(), 'quiet', false), now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 50))),
  });
  t.after(() => c.close());
  // A bulk job's patience: a one-shot command gives up after --timeout (here 200 ms) in all.
  c.forBulkJob();
  const phones = Array.from({ length: 40 }, (_, i) => `+4420794600${String(i).padStart(2, '0')}`);
  // With 30 % faults, one request in 1,400 meets a fault on all six attempts (0.3^6) and fails,
  // as it should: sent again, as an operator would — a POST that did land must not land twice.
  const again = async <R>(send: () => Promise<R>): Promise<R> => {
    for (let i = 1; ; i++) {
      try {
        return await send();
      } catch (e) {
        if (i === 3) throw e;
      }
    }
  };
  await Promise.all(phones.map((phone) => again(() => c.request({ method: 'POST', path: '/contacts', body: { phone }, safeToRetry: true }))));
  await Promise.all(Array.from({ length: 20 }, () => again(() => c.request({ method: 'GET', path: '/contacts', query: { limit: 5 } }))));
  assert.ok(sb.stats().faults > 0, 'faults happened');
  sb.setFaults(0);
  const stored = sb.contacts().map((x) => x.phone).sort();
  assert.deepEqual(stored, [...phones].sort(), 'each phone stored exactly once despite retries');
});
