// A bulk job waits out an outage (docs/network.md, "Failures, timeouts and waits"): a service that
// answers nothing but failures for a minute — a restart, a deploy — is retried past a row's six
// attempts, so no row fails and nothing is left for --resume; an outage longer than the patience
// fails the row. A one-shot command keeps its six attempts. Virtual time: each back-off
// moves the clock, the server is real on loopback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { ApiClient } from '../../src/http/client.js';
import { OUTAGE_PATIENCE_MS } from '../../src/http/outage.js';
import { ApiError } from '../../src/errors.js';
import { Logger } from '../../src/output/log.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';

const KEY = `sk_live_${'p'.repeat(24)}`;

function virtualClient(baseUrl: string, bulk = true): { c: ApiClient; clock: { now: number } } {
  const clock = { now: 1_000_000 };
  const c = new ApiClient({
    baseUrl: new URL(baseUrl), apiKey: KEY, concurrency: 1, rate: undefined, timeoutMs: 2_000,
    log: new Logger(new PassThrough(), 'quiet', false),
    now: () => clock.now,
    sleep: async (ms) => void (clock.now += ms),
    random: () => 0.5,
  });
  if (bulk) c.forBulkJob();
  return { c, clock };
}

test('a bulk job: a minute of 503s is waited out past six attempts; past the patience the row fails', async (t) => {
  let failFor = 0;
  let failing = 0;
  const server = await scriptedServer(t, (_hit, res) => (failing++ < failFor ? json(res, 503, { error: { message: 'restarting' } }) : json(res, 201, { id: 'ct_1', phone: '+447400700001' })));
  const { c, clock } = virtualClient(server.baseUrl);
  t.after(() => c.close());
  const post = () => c.request({ method: 'POST', path: '/contacts', body: { phone: '+447400700001' }, safeToRetry: true });

  failFor = 12; // about a minute of back-offs (capped at 8 s): twice the six attempts
  const started = clock.now;
  const res = await post();
  assert.equal(res.status, 201);
  assert.equal(res.attempts, 13);
  assert.ok(clock.now - started > 40_000 && clock.now - started < OUTAGE_PATIENCE_MS, `${clock.now - started} ms`);

  failing = 0;
  failFor = 1_000; // never heals within the patience
  const before = clock.now;
  await assert.rejects(post(), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.match(err.message, /503/);
    return true;
  });
  assert.ok(clock.now - before <= OUTAGE_PATIENCE_MS + 8_000, `gave up after ${clock.now - before} ms`);
  assert.ok(failing < 30, `${failing} attempts`);
});

test('a one-shot command keeps its six attempts at most (its --timeout in all binds first)', async (t) => {
  const server = await scriptedServer(t, (_hit, res) => json(res, 503, { error: { message: 'down' } }));
  const { c } = virtualClient(server.baseUrl, false);
  t.after(() => c.close());
  await assert.rejects(c.request({ method: 'GET', path: '/contacts' }), (err: unknown) => err instanceof ApiError && err.attempts <= 6);
  assert.ok(server.hits.length <= 6);
});
