// The HTTP core against scripted servers: retries by method, 429 pauses for everyone, the server's
// message in errors, the key masked in --verbose. (Pace against the sandbox is in pace.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { ApiClient, pathOf } from '../../src/http/client.js';
import { ApiError, exitCodeOf, InterruptedError } from '../../src/errors.js';
import { Logger } from '../../src/output/log.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';

const KEY = `sk_live_${'k'.repeat(12)}${Math.random().toString(36).slice(2, 10)}`;

const realSleep = (ms: number, signal?: AbortSignal) => new Promise<void>((done, fail) => {
  const timer = setTimeout(done, ms);
  signal?.addEventListener('abort', () => (clearTimeout(timer), fail(signal.reason)), { once: true });
});

function client(baseUrl: string, extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) {
  const stderr = new PassThrough();
  let log = '';
  stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
  const logger = new Logger(stderr, 'verbose', false);
  logger.addSecret(KEY);
  const c = new ApiClient({
    baseUrl: new URL(baseUrl),
    apiKey: KEY,
    concurrency: 4,
    rate: undefined,
    timeoutMs: 2_000,
    log: logger,
    now: () => Date.now(),
    // Back-off is real but short: what is asserted is how many attempts reach the server. (The
    // limiter's pauses use the same sleep: tests of 429 pauses pass realSleep.)
    sleep: (ms, signal) => new Promise((done, fail) => {
      const timer = setTimeout(done, Math.min(ms, 20));
      signal?.addEventListener('abort', () => (clearTimeout(timer), fail(signal.reason)), { once: true });
    }),
    random: () => 0.5,
    ...extra,
  });
  return { c, log: () => log };
}

test('a GET is retried through 5xx and dropped connections, and succeeds', async (t) => {
  const server = await scriptedServer(t, (_hit, res, i) => {
    if (i === 0) return json(res, 503, { error: { message: 'busy' } });
    if (i === 1) return void res.socket?.destroy();
    return json(res, 200, { ok: true });
  });
  const { c } = client(server.baseUrl);
  t.after(() => c.close());
  const res = await c.request({ method: 'GET', path: '/contacts' });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { ok: true });
  assert.equal(server.hits.length, 3);
  assert.equal(res.attempts, 3);
});

test('a POST not marked safe is sent once after a 5xx; a safe one is retried', async (t) => {
  const server = await scriptedServer(t, (hit, res) => {
    const n = server.hits.filter((h) => h.body === hit.body).length;
    return n === 1 ? json(res, 500, { message: 'oops' }) : json(res, 201, { id: 'c1' });
  });
  const { c } = client(server.baseUrl);
  t.after(() => c.close());
  await assert.rejects(c.request({ method: 'POST', path: '/contacts', body: { firstName: 'A' } }), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 500);
    assert.match(err.message, /oops/);
    assert.equal(exitCodeOf(err), 1);
    return true;
  });
  const safe = await c.request({ method: 'POST', path: '/contacts', body: { phone: '+442079460958' }, safeToRetry: true });
  assert.equal(safe.status, 201);
  assert.equal(safe.ambiguousBefore, true);
  assert.equal(server.hits.length, 3, 'one unsafe attempt, two safe ones');
});

test('a refused connection on loopback fails at once before any answer (a wrong port); after one it is an outage, retried at least 5 times', async (t) => {
  const { createServer } = await import('node:http');
  const live = createServer((_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  await new Promise<void>((r) => live.listen(0, '127.0.0.1', r));
  const livePort = (live.address() as { port: number }).port;
  // A port nothing listens on: bind-and-close gives one that is free right now.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const deadPort = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));

  const wrong = client(`http://127.0.0.1:${deadPort}/api/v1`);
  t.after(() => wrong.c.close());
  await assert.rejects(wrong.c.request({ method: 'GET', path: '/contacts' }), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 'network');
    assert.match(err.message, /cannot reach 127\.0\.0\.1:\d+: connection refused/);
    assert.match(err.hint ?? '', /nothing listens on that port/);
    assert.equal(err.attempts, 1, 'no retries');
    assert.equal(exitCodeOf(err), 1);
    return true;
  });
  assert.doesNotMatch(wrong.log(), /retrying/);

  const { c, log } = client(`http://127.0.0.1:${livePort}/api/v1`, { sleep: async () => undefined });
  t.after(() => c.close());
  // A bulk job's patience (a one-shot command gives up after --timeout in all).
  c.forBulkJob();
  assert.equal((await c.request({ method: 'GET', path: '/contacts' })).status, 200);
  live.closeAllConnections();
  await new Promise((r) => live.close(r));
  await assert.rejects(c.request({ method: 'POST', path: '/contacts', body: {} }), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.match(err.message, /cannot reach 127\.0\.0\.1:\d+: connection refused/);
    assert.ok(err.attempts >= 5, `attempts ${err.attempts}`);
    return true;
  });
  assert.match(log(), /connection refused on POST \/contacts; retrying \(2\/6\)…/);
  assert.match(log(), /retrying \(5\/6\)…/);
});

test('a 429 pauses every request for Retry-After, then all succeed; it is never a failure', async (t) => {
  let answered429At = 0;
  const server = await scriptedServer(t, (hit, res, i) => {
    if (i === 2) {
      answered429At = hit.at;
      return json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '1' });
    }
    setTimeout(() => json(res, 200, { i }), 30);
  });
  // Client and server share one clock here (performance.now): the pause's end is what the client
  // chose to wait until, a lower bound that only a pause cut short can fail — never a slow machine.
  const wakes: number[] = [];
  const pauses: Array<[number, number]> = [];
  const { c } = client(server.baseUrl, {
    now: () => performance.now(),
    sleep: (ms, signal) => {
      const at = performance.now();
      wakes.push(at + ms);
      if (ms >= 500) pauses.push([at, at + ms]);
      return realSleep(ms, signal);
    },
  });
  t.after(() => c.close());
  // When the client put each request on the wire (its first attempt), on the client's own clock:
  // a loaded machine delays when the server sees a request, never the order of the client's steps.
  const dispatched: number[] = [];
  const results = await Promise.all(Array.from({ length: 12 }, () => c.request({ method: 'GET', path: '/calls', beforeSend: () => dispatched.push(performance.now()) })));
  assert.ok(results.every((r) => r.status === 200));
  assert.equal(c.stats().throttled, 1);
  assert.ok(wakes.some((w) => w >= answered429At + 1000), 'the limiter waited until Retry-After had passed');
  assert.ok(pauses.length >= 1, 'the 429 paused the limiter');
  // No request left the client during the pause: the whole limiter waited, not the one request.
  for (const [from, to] of pauses) {
    for (const d of dispatched) assert.ok(d <= from + 1 || d >= to - 1, `a request was sent ${Math.round(d - from)} ms into a ${Math.round(to - from)} ms pause`);
  }
  // And requests sent after it reached the server after its end.
  assert.ok(server.hits.some((h) => h.at >= answered429At + 1000), 'requests went on after the pause');
});

test('Retry-After as an HTTP date is honoured; a 429 without it backs off and retries', async (t) => {
  let first = 0;
  const server = await scriptedServer(t, (hit, res, i) => {
    if (i === 0) {
      first = hit.at;
      return json(res, 429, {}, { 'retry-after': new Date(Date.now() + 2_000).toUTCString() });
    }
    if (i === 1) return json(res, 429, {});
    return json(res, 200, { ok: 1 });
  });
  const { c } = client(server.baseUrl, { concurrency: 1, sleep: realSleep });
  t.after(() => c.close());
  const res = await c.request({ method: 'GET', path: '/contacts' });
  assert.equal(res.status, 200);
  assert.equal(server.hits.length, 3);
  // An HTTP date has one-second resolution: the wait is at least a second after the 429.
  assert.ok((server.hits[1] as { at: number }).at - first >= 1_000);
  assert.equal(c.stats().throttled, 2);
});

test('errors carry the server message and map to the contract exit codes', async (t) => {
  const answers: Array<[number, unknown]> = [
    [401, { error: { code: 'unauthorized', message: 'unknown key' } }],
    [403, { message: 'missing scope contacts:write' }],
    [404, { error: 'no such contact' }],
    [422, { error: { message: 'email is invalid' } }],
    [409, 'plain text conflict'],
    [400, undefined],
  ];
  const server = await scriptedServer(t, (_h, res, i) => {
    const [status, body] = answers[i] as [number, unknown];
    if (typeof body === 'string') {
      res.writeHead(status, { 'content-type': 'text/plain' });
      return void res.end(body);
    }
    json(res, status, body);
  });
  const { c } = client(server.baseUrl, { concurrency: 1 });
  t.after(() => c.close());
  const expected: Array<[RegExp, number]> = [
    [/401.*unknown key/, 3],
    [/403.*missing scope contacts:write/, 3],
    [/404.*no such contact/, 4],
    [/422.*email is invalid/, 5],
    [/409.*plain text conflict/, 5],
    [/400.*Bad Request/, 5],
  ];
  for (const [message, code] of expected) {
    await assert.rejects(c.request({ method: 'PATCH', path: pathOf`/contacts/${'x'}`, body: {} }), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.match(err.message, message);
      assert.equal(exitCodeOf(err), code);
      return true;
    });
  }
});

test('ids are one encoded path segment; the key is sent but only ever logged masked', async (t) => {
  const server = await scriptedServer(t, (_h, res) => json(res, 404, { error: { message: 'nope' } }));
  const { c, log } = client(server.baseUrl);
  t.after(() => c.close());
  for (const id of ['../calls', '...', 'a/b c', 'ü?x=1']) {
    await assert.rejects(c.request({ method: 'GET', path: pathOf`/contacts/${id}` }));
  }
  assert.deepEqual(server.hits.map((h) => h.url), ['/api/v1/contacts/..%2Fcalls', '/api/v1/contacts/...', '/api/v1/contacts/a%2Fb%20c', '/api/v1/contacts/%C3%BC%3Fx%3D1']);
  // `.` and `..` would be resolved by the URL itself into another endpoint: refused, nothing sent.
  for (const id of ['.', '..', ' ']) assert.throws(() => pathOf`/contacts/${id}`, (err: unknown) => exitCodeOf(err) === 2);
  assert.equal(server.hits.length, 4);
  assert.equal(server.hits[0]?.headers.authorization, `Bearer ${KEY}`);
  assert.doesNotMatch(log(), new RegExp(KEY));
  assert.match(log(), new RegExp(`sk_live_…${KEY.slice(-4)}`));
});

test('Ctrl-C during a back-off ends the request as interrupted', async (t) => {
  const server = await scriptedServer(t, (_h, res) => json(res, 503, {}));
  const ac = new AbortController();
  const { c } = client(server.baseUrl, { sleep: (_ms, signal) => new Promise((_d, fail) => signal?.addEventListener('abort', () => fail(signal.reason), { once: true })) });
  t.after(() => c.close());
  const pending = c.request({ method: 'GET', path: '/contacts', signal: ac.signal });
  setTimeout(() => ac.abort(), 50);
  await assert.rejects(pending, (err: unknown) => err instanceof InterruptedError);
});
