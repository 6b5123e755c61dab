// The sandbox's rules beyond the happy path: the callback surface's own limits, what a 429 costs,
// the exact fault mix, stopping a huge body early, erasure at scale, stats and seeding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { sandboxRequest as call, startTestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';
import { Store } from '../../src/sandbox/store.js';

test('callback: phone in international format, known fields only, POST only, the widget key only', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const w = { key: null, widget: sb.widgetKey };
  const ok = await call(sb, 'POST', '/api/public/callback', { ...w, body: { phone: '+1 (415) 555-0100' } });
  assert.equal(ok.status, 201);
  assert.equal(ok.body.phone, '+14155550100');
  assert.equal(ok.body.status, 'requested');
  for (const [body, field] of [[{ phone: '0415 555 0100' }, 'phone'], [{}, 'phone'], [{ phone: '+14155550100', email: 'a@b.c' }, 'email'], [{ phone: '+14155550100', name: 5 }, 'name']] as const) {
    const r = await call(sb, 'POST', '/api/public/callback', { ...w, body });
    assert.equal(r.status, 422, JSON.stringify(body));
    assert.match(r.body.error.message, new RegExp(field));
  }
  assert.equal((await call(sb, 'POST', '/api/public/callback', { ...w, raw: '{"phone":' })).status, 400);
  assert.equal((await call(sb, 'GET', '/api/public/callback', w)).status, 404);
  const readOnly = await call(sb, 'POST', '/api/public/callback', { key: null, widget: sb.readOnlyKey, body: { phone: '+14155550100' } });
  assert.equal(readOnly.status, 401, 'a secret key in the widget header');
  assert.match(readOnly.body.error.message, /widget key/);
});

test('rate limit: the widget key has its own bucket, and a 429 costs no token', async (t) => {
  // The limiter's clock is the test's: it stands still until moved.
  let now = 0;
  const sb = await startTestSandbox(t, { rateLimit: 2, burst: 1, now: () => now });
  const cb = () => call(sb, 'POST', '/api/public/callback', { key: null, widget: sb.widgetKey, body: { phone: '+14155550100' } });
  assert.equal((await cb()).status, 201);
  const limited = await cb();
  assert.equal(limited.status, 429);
  assert.equal(limited.headers['retry-after'], '1');
  assert.equal((await call(sb, 'GET', '/contacts')).status, 200, 'the secret key is not charged for the widget');
  for (let i = 0; i < 5; i++) assert.equal((await call(sb, 'GET', '/contacts')).status, 429);
  // One token comes back in 500 ms: had the five 429s cost tokens, this would still be refused.
  now += 500;
  const after = await call(sb, 'GET', '/contacts');
  assert.equal(after.status, 200);
  assert.equal(after.headers['ratelimit-limit'], '1');
  assert.equal(after.headers['ratelimit-remaining'], '0');
  assert.equal(after.headers['ratelimit-reset'], '1');
  assert.equal(sb.stats().throttled, 6);
});

test('faults: every kind occurs, and a faulted write lands before or after the change at random', async (t) => {
  let seed = 42;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  // The sandbox's waits are recorded, not timed: a held reply is one it waited the fault delay for.
  const waits: number[] = [];
  const wait = async (ms: number) => void waits.push(ms);
  const sb = await startTestSandbox(t, { rateLimit: 0, faults: 0.6, faultDelayMs: 150, random, wait });
  const answers = await Promise.all(
    Array.from({ length: 80 }, async (_, i) => {
      const phone = `+4474001${String(i).padStart(5, '0')}`;
      try {
        const r = await call(sb, 'POST', '/contacts', { body: { phone } });
        return { phone, answer: String(r.status) };
      } catch {
        return { phone, answer: 'dropped' };
      }
    }),
  );
  const kinds = new Set(answers.map((a) => a.answer));
  for (const k of ['201', '500', '503', 'dropped']) assert.ok(kinds.has(k), `saw ${k}: ${[...kinds]}`);
  assert.ok(waits.length > 0 && waits.every((ms) => ms === 150), `replies held back the fault delay: ${waits.join(', ')}`);
  const stored = new Set(sb.contacts().map((c) => c.phone));
  const failed = answers.filter((a) => a.answer !== '201');
  assert.ok(failed.some((a) => stored.has(a.phone)), 'a failed answer whose contact was stored (fault after the change)');
  assert.ok(failed.some((a) => !stored.has(a.phone)), 'a failed answer whose contact was not stored (fault before the change)');
  assert.ok(sb.stats().faults >= failed.length && sb.stats().faults < 80, `faults: ${sb.stats().faults}`);
  // setFaults changes the share live.
  sb.setFaults(0);
  for (let i = 0; i < 10; i++) assert.equal((await call(sb, 'GET', '/contacts')).status, 200);
});

test('413: a huge body is refused as soon as it passes 64 KiB, without reading the rest', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  let sent = 0;
  // 200 chunks of 16 KiB, 20 ms apart: reading it all would take 4 s.
  const slow = Readable.from(
    (async function* () {
      for (let i = 0; i < 200; i++) {
        sent += 16_384;
        yield Buffer.alloc(16_384, 0x61);
        await new Promise((r) => setTimeout(r, 20));
      }
    })(),
  );
  const r = await call(sb, 'POST', '/contacts', { raw: slow });
  assert.equal(r.status, 413);
  assert.equal(r.body.error.code, 'body_too_large');
  assert.ok(sent < 1_000_000, `answered before the body ended: ${sent} of 3276800 bytes sent`);
  const declared = await call(sb, 'POST', '/contacts', { raw: Buffer.alloc(5_000_000, 0x61) });
  assert.equal(declared.status, 413);
  assert.equal((await call(sb, 'GET', '/contacts')).status, 200, 'served again afterwards');
});

// Erasing by splicing an array made this 15 s; with holes compacted by the next page it is ~0.3 s.
// (No test asserts a time: a quadratic store shows here as a test that takes seconds.)
test('erasure at scale: 50k erasures of 100k contacts, then every page listed, in order', () => {
  const store = new Store();
  const ids: string[] = [];
  for (let i = 0; i < 100_000; i++) ids.push(store.createContact({ phone: `+4474${String(i).padStart(8, '0')}` }).id);
  for (let i = 0; i < ids.length; i += 2) store.deleteContact(store.contact(ids[i]!)!);
  const listed: string[] = [];
  for (let page = 1; page <= 500; page++) listed.push(...store.contactPage(page, 100).map((c) => c.id));
  assert.equal(store.contactCount(), 50_000);
  assert.deepEqual(listed, ids.filter((_, i) => i % 2 === 1));
  assert.equal(store.matchPhone('+447400000000'), undefined, 'an erased phone no longer matches');
  assert.equal(store.matchPhone('+447400000001')?.id, ids[1]);
});

test('stats: requests, 429s and faults counted per route, also at GET /_sandbox/stats', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const [c1] = sb.contacts();
  await call(sb, 'POST', '/contacts', { body: { phone: '+14155550100' } });
  await call(sb, 'GET', `/contacts/${c1!.id}`);
  await call(sb, 'GET', '/contacts/nope');
  await call(sb, 'PATCH', `/calls/${sb.calls()[0]!.id}`, { body: { outcome: 'booked_job' } });
  const local = sb.stats();
  assert.deepEqual(local.byRoute, { 'POST /contacts': 1, 'GET /contacts/{id}': 2, 'PATCH /calls/{id}': 1 });
  assert.equal(local.requests, 4);
  const remote = await call(sb, 'GET', '/_sandbox/stats', { key: null });
  assert.deepEqual(remote.body, { ...local, contacts: 3, calls: 2 });
  assert.equal((await call(sb, 'POST', '/_sandbox/outage?ms=0', { key: null })).status, 422);
});

test('--seed: the same calls and contacts every time, E.164 phones, one recording each', async (t) => {
  const a = await startTestSandbox(t, { rateLimit: 0, seed: 5 });
  const b = await startTestSandbox(t, { rateLimit: 0, seed: 5 });
  const shape = (sb: typeof a) => sb.calls().map(({ id, from, channel, startedAt, durationSec }) => ({ id, from, channel, startedAt, durationSec }));
  assert.deepEqual(shape(a), shape(b));
  assert.equal(a.contacts().length, 5);
  for (const c of a.contacts()) assert.match(c.phone!, /^\+[1-9]\d{7,14}$/);
  assert.ok(new Set(a.calls().map((c) => c.channel)).size > 1, 'several channels');
  const rec = await call(a, 'GET', `/calls/${a.calls()[0]!.id}/recording`);
  assert.deepEqual(Object.keys(rec.body).sort(), ['callId', 'durationSec', 'url']);
});

test('outage: a new outage replaces the one under way, and its end serves again', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  // Served again well before the first outage's minute is over: the second one replaced it.
  const served = async () => (await call(sb, 'GET', '/contacts').catch(() => undefined))?.status === 200;
  sb.outage(60_000, 'refuse');
  sb.outage(1000, 'drop');
  await assert.rejects(call(sb, 'GET', '/contacts'), (err: any) => err.code !== 'ECONNREFUSED', 'accepted, then dropped');
  await waitFor(served, 20_000, 'served again after the dropping outage');
  sb.outage(60_000, 'drop');
  sb.outage(1000, 'refuse');
  await assert.rejects(call(sb, 'GET', '/contacts'), (err: any) => err.code === 'ECONNREFUSED');
  await waitFor(served, 20_000, 'served again after the refusing outage');
});
