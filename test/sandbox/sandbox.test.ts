// One test per rule of docs/commands/sandbox.md, over real HTTP on loopback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sandboxRequest as call, startTestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

test('auth: each surface takes only its own key; unknown keys are 401 with the error body', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  assert.equal((await call(sb, 'GET', '/contacts')).status, 200);
  const none = await call(sb, 'GET', '/contacts', { key: null });
  assert.equal(none.status, 401);
  assert.equal(none.body.error.code, 'unauthorized');
  assert.equal((await call(sb, 'GET', '/contacts', { key: sb.widgetKey })).status, 401, 'widget key as bearer on /api/v1');
  assert.equal((await call(sb, 'GET', '/contacts', { key: null, widget: sb.widgetKey })).status, 401, 'widget header on /api/v1');
  assert.equal((await call(sb, 'GET', '/contacts', { key: `sk_live_${'0'.repeat(20)}` })).status, 401);
  const cb = await call(sb, 'POST', '/api/public/callback', { key: null, widget: sb.widgetKey, body: { phone: '+44 20 7946 0958', name: 'Ada' } });
  assert.equal(cb.status, 201);
  assert.equal(cb.body.phone, '+442079460958');
  const secretThere = await call(sb, 'POST', '/api/public/callback', { key: sb.secretKey, body: { phone: '+442079460958' } });
  assert.equal(secretThere.status, 401);
  assert.match(secretThere.body.error.message, /secret key is not accepted/);
});

test('scopes: the read-only key reads, and is refused writes with 403 naming the scope', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 1 });
  const ro = sb.readOnlyKey;
  assert.equal((await call(sb, 'GET', '/contacts', { key: ro })).status, 200);
  assert.equal((await call(sb, 'GET', '/calls', { key: ro })).status, 200);
  const post = await call(sb, 'POST', '/contacts', { key: ro, body: { firstName: 'X' } });
  assert.equal(post.status, 403);
  assert.match(post.body.error.message, /contacts:write/);
  const outcome = await call(sb, 'PATCH', '/calls/call_00001', { key: ro, body: { outcome: 'booked' } });
  assert.equal(outcome.status, 403);
  assert.match(outcome.body.error.message, /calls:write/);
  assert.equal(sb.contacts().length, 1);
});

test('POST with an international phone matches and merges; a national phone duplicates', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const a = await call(sb, 'POST', '/contacts', { body: { firstName: 'Ada', phone: '+44 20 7946 0958' } });
  assert.equal(a.status, 201);
  const b = await call(sb, 'POST', '/contacts', { body: { email: 'ada@example.com', phone: '+44 (20) 7946-0958' } });
  assert.equal(b.status, 200);
  assert.equal(b.body.id, a.body.id);
  assert.equal(b.body.firstName, 'Ada');
  assert.equal(b.body.email, 'ada@example.com');
  const n1 = await call(sb, 'POST', '/contacts', { body: { phone: '020 7946 0958' } });
  const n2 = await call(sb, 'POST', '/contacts', { body: { phone: '020 7946 0958' } });
  assert.equal(n1.status, 201);
  assert.equal(n2.status, 201);
  assert.notEqual(n1.body.id, n2.body.id);
  assert.equal(sb.contacts().length, 3);
});

test('PATCH changes only the fields sent; a phone of another contact is 409', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const a = (await call(sb, 'POST', '/contacts', { body: { firstName: 'Ada', lastName: 'L', phone: '+442079460958', tags: ['x'] } })).body;
  const b = (await call(sb, 'POST', '/contacts', { body: { firstName: 'Bob', phone: '+442079460959' } })).body;
  const p = await call(sb, 'PATCH', `/contacts/${a.id}`, { body: { status: 'customer' } });
  assert.equal(p.status, 200);
  assert.deepEqual({ ...p.body, updatedAt: undefined }, { ...a, status: 'customer', updatedAt: undefined });
  const clash = await call(sb, 'PATCH', `/contacts/${b.id}`, { body: { phone: '+44 20 7946 0958' } });
  assert.equal(clash.status, 409);
  assert.equal((await call(sb, 'GET', `/contacts/${b.id}`)).body.phone, '+442079460959');
});

test('DELETE erases the contact, its calls and recordings; totals drop them', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const [call1, call2] = sb.calls();
  for (const c of [call1!, call2!]) assert.equal((await call(sb, 'PATCH', `/calls/${c.id}`, { body: { outcome: 'booked_job', value: 100, currency: 'USD' } })).status, 200);
  assert.equal((await call(sb, 'GET', `/calls/${call1!.id}/recording`)).body.callId, call1!.id);
  const del = await call(sb, 'DELETE', `/contacts/${call1!.contactId}`);
  assert.equal(del.status, 204);
  assert.equal(del.body, undefined);
  assert.equal((await call(sb, 'GET', `/contacts/${call1!.contactId}`)).status, 404);
  assert.equal((await call(sb, 'GET', `/calls/${call1!.id}`)).status, 404);
  assert.equal((await call(sb, 'GET', `/calls/${call1!.id}/recording`)).status, 404);
  const totals = (await call(sb, 'GET', '/analytics/outcomes')).body.data;
  assert.deepEqual(totals.map((r: any) => [r.outcome, r.calls, r.value]), [['booked_job', 1, 100]]);
  assert.equal((await call(sb, 'DELETE', `/contacts/${call1!.contactId}`)).status, 404);
});

test('outcome writeback: shows on the call and in /analytics/outcomes per outcome, channel and currency', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3 });
  const calls = sb.calls();
  await call(sb, 'PATCH', `/calls/${calls[0]!.id}`, { body: { outcome: 'booked_job', value: 250, currency: 'USD' } });
  await call(sb, 'PATCH', `/calls/${calls[1]!.id}`, { body: { outcome: 'no_answer' } });
  assert.equal((await call(sb, 'GET', `/calls/${calls[0]!.id}`)).body.outcome, 'booked_job');
  const rows = (await call(sb, 'GET', '/analytics/outcomes')).body.data;
  assert.deepEqual(rows.find((r: any) => r.outcome === 'booked_job'), { outcome: 'booked_job', channel: calls[0]!.channel, calls: 1, value: 250, currency: 'USD' });
  for (const [body, field] of [[{ outcome: '' }, 'outcome'], [{ outcome: 'x', value: -1, currency: 'USD' }, 'value'], [{ outcome: 'x', value: 5 }, 'currency'], [{ outcome: 'x', value: 5, currency: 'usd' }, 'currency']] as const) {
    const r = await call(sb, 'PATCH', `/calls/${calls[2]!.id}`, { body });
    assert.equal(r.status, 422);
    assert.match(r.body.error.message, new RegExp(field));
  }
});

test('list envelope, limits and pages past the end', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 7 });
  const p = await call(sb, 'GET', '/contacts?page=2&limit=3');
  assert.equal(p.status, 200);
  assert.equal(p.body.data.length, 3);
  assert.deepEqual(p.body.pagination, { page: 2, limit: 3, total: 7, totalPages: 3 });
  assert.equal((await call(sb, 'GET', '/contacts')).body.pagination.limit, 50);
  assert.deepEqual((await call(sb, 'GET', '/contacts?page=9')).body.data, []);
  for (const q of ['limit=0', 'limit=101', 'page=0', 'limit=abc']) assert.equal((await call(sb, 'GET', `/contacts?${q}`)).status, 422, q);
});

test('bodies: 400 malformed JSON, 415 wrong type, 413 over 64 KiB, 422 unknown or over-long field', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  assert.equal((await call(sb, 'POST', '/contacts', { raw: '{"firstName":' })).status, 400);
  assert.equal((await call(sb, 'POST', '/contacts', { raw: '{}', type: 'text/plain' })).status, 415);
  assert.equal((await call(sb, 'POST', '/contacts', { raw: JSON.stringify({ notes: 'x'.repeat(70_000) }) })).status, 413);
  const unknown = await call(sb, 'POST', '/contacts', { body: { nickname: 'x' } });
  assert.equal(unknown.status, 422);
  assert.match(unknown.body.error.message, /nickname/);
  const long = await call(sb, 'POST', '/contacts', { body: { notes: 'x'.repeat(1001) } });
  assert.equal(long.status, 422);
  assert.match(long.body.error.message, /notes/);
  assert.equal((await call(sb, 'POST', '/contacts', { body: { tags: 'vip' } })).status, 422);
  assert.equal((await call(sb, 'GET', '/nowhere')).status, 404);
  assert.equal(sb.contacts().length, 0);
});

test('rate limit: a token bucket per key, 429 with Retry-After and RateLimit-* headers (or none when disabled)', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 2, burst: 3 });
  const answers = [];
  for (let i = 0; i < 5; i++) answers.push(await call(sb, 'GET', '/contacts'));
  assert.deepEqual(answers.map((a) => a.status).slice(0, 3), [200, 200, 200]);
  const limited = answers.find((a) => a.status === 429)!;
  assert.ok(limited, 'a 429 after the burst');
  assert.ok(Number(limited.headers['retry-after']) >= 1);
  assert.equal(limited.headers['ratelimit-limit'], '3');
  assert.equal(limited.headers['ratelimit-remaining'], '0');
  assert.ok(Number(limited.headers['ratelimit-reset']) >= 1);
  assert.equal(answers[0]!.headers['ratelimit-remaining'], '2');
  // The read-only key has its own bucket.
  assert.equal((await call(sb, 'GET', '/contacts', { key: sb.readOnlyKey })).status, 200);
  const quiet = await startTestSandbox(t, { rateLimit: 1, burst: 1, rateLimitHeaders: false });
  await call(quiet, 'GET', '/contacts');
  const q = await call(quiet, 'GET', '/contacts');
  assert.equal(q.status, 429);
  assert.ok(q.headers['retry-after']);
  assert.equal(q.headers['ratelimit-limit'], undefined);
});

test('--wire-delay: every answer, a 429 too, comes a round trip late, and the limiter counts a request when it arrives', async (t) => {
  // The sandbox's waits are recorded, not timed: what happens in which order is the behaviour.
  const events: string[] = [];
  let now = 0;
  const sb = await startTestSandbox(t, {
    rateLimit: 1,
    burst: 1,
    wireDelayMs: 60,
    now: () => now,
    wait: async (ms) => {
      events.push(`wait ${ms}`);
      await new Promise((r) => setImmediate(r));
    },
  });
  // Two at once: each waits the way in before the limiter counts it — the first is admitted, the
  // second refused — and both answers wait the way back.
  const [a, b] = await Promise.all([call(sb, 'GET', '/contacts'), call(sb, 'GET', '/contacts')]);
  assert.deepEqual([a.status, b.status].sort(), [200, 429]);
  assert.deepEqual(events, ['wait 60', 'wait 60', 'wait 60', 'wait 60'], 'two ways in, two ways back');
  assert.equal(sb.stats().throttled, 1);
  // The limiter counts on arrival: a token back (a second on its clock) admits the next one.
  now += 1000;
  assert.equal((await call(sb, 'GET', '/contacts')).status, 200);
});

test('faults: 500, 503, drops and held replies all occur; a write fault may land after the write', async (t) => {
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const sb = await startTestSandbox(t, { rateLimit: 0, faults: 0.5, faultDelayMs: 50, random });
  const seen = new Set<string>();
  for (let i = 0; i < 60; i++) {
    try {
      const r = await call(sb, 'POST', '/contacts', { body: { phone: `+44740010${String(i).padStart(4, '0')}` } });
      seen.add(String(r.status));
    } catch {
      seen.add('dropped');
    }
  }
  for (const s of ['201', '500', '503', 'dropped']) assert.ok(seen.has(s), `saw ${s}: ${[...seen]}`);
  const faults = sb.stats().faults;
  assert.ok(faults > 15 && faults < 45, `about half faulted: ${faults}`);
  // Some writes were stored although their answer was a fault: more contacts than 201s.
  assert.ok(sb.contacts().length > 60 - faults, 'writes that landed before the fault');
});

test('outage: connections refused, or dropped, for a while — then served again', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const served = async () => (await call(sb, 'GET', '/contacts').catch(() => undefined))?.status === 200;
  sb.outage(1000, 'refuse');
  await assert.rejects(call(sb, 'GET', '/contacts'), (err: any) => err.code === 'ECONNREFUSED');
  await waitFor(served, 20_000, 'served again after the refusing outage');
  sb.outage(1000, 'drop');
  await assert.rejects(call(sb, 'GET', '/contacts'));
  await waitFor(served, 20_000, 'served again after the dropping outage');
  // The same control over HTTP, for a sandbox in another process: it starts once its answer is out
  // (long enough to be seen however busy the machine is).
  assert.equal((await call(sb, 'POST', '/_sandbox/outage?ms=2000&mode=drop', { key: null })).status, 202);
  await waitFor(async () => !(await served()), 20_000, 'the outage asked over HTTP');
  await waitFor(served, 20_000, 'served again after the outage asked over HTTP');
  const stats = await call(sb, 'GET', '/_sandbox/stats', { key: null });
  assert.equal(stats.body.contacts, 0);
});

test('--data: state is loaded at start and saved at close', async (t) => {
  const { tempDir } = await import('../helpers/cli.js');
  const file = `${tempDir(t)}/state.json`;
  const a = await startTestSandbox(t, { rateLimit: 0, dataFile: file });
  await call(a, 'POST', '/contacts', { body: { firstName: 'Kept', phone: '+442079460958' } });
  await a.close();
  const b = await startTestSandbox(t, { rateLimit: 0, dataFile: file });
  assert.equal(b.contacts()[0]?.firstName, 'Kept');
  assert.equal((await call(b, 'POST', '/contacts', { body: { phone: '+442079460958' } })).status, 200, 'the phone index is rebuilt');
  await b.close();
});

test('stays fast with many contacts: matching by index, paging by slice', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 20_000 });
  const last = sb.contacts()[19_999]!;
  const r = await call(sb, 'POST', '/contacts', { body: { phone: last.phone, notes: 'matched' } });
  assert.equal(r.status, 200);
  assert.equal(r.body.id, last.id);
  const page = await call(sb, 'GET', '/contacts?page=200&limit=100');
  assert.equal(page.body.data.at(-1).id, last.id);
});
