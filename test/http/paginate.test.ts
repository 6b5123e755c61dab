// Paging stops at whichever comes first (docs/cli.md "Tolerance of the real service"): an empty page, a short page, or an
// envelope — under whatever names — saying there is no more; it never assumes the sandbox's names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { ApiClient } from '../../src/http/client.js';
import { pages } from '../../src/http/paginate.js';
import { Logger } from '../../src/output/log.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';

async function collect(t: { after(fn: () => unknown): void }, answer: (page: number, limit: number) => unknown, q: { limit?: number; max?: number } = {}) {
  const server = await scriptedServer(t, (hit, res) => {
    const url = new URL(hit.url, 'http://x');
    json(res, 200, answer(Number(url.searchParams.get('page')), Number(url.searchParams.get('limit'))));
  });
  const c = new ApiClient({
    baseUrl: new URL(server.baseUrl), apiKey: `sk_live_${'p'.repeat(20)}`, concurrency: 2, rate: undefined, timeoutMs: 2_000,
    log: new Logger(new PassThrough(), 'quiet', false), now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });
  t.after(() => c.close());
  const items: unknown[] = [];
  for await (const page of pages(c, { path: '/contacts', ...q })) items.push(...page);
  return { items, requests: server.hits.length };
}

const range = (from: number, n: number) => Array.from({ length: Math.max(0, n) }, (_, i) => ({ id: `c${from + i}` }));

test('an envelope with only {page, limit, hasMore} is followed to hasMore: false', async (t) => {
  const r = await collect(t, (page, limit) => ({ data: range((page - 1) * limit, limit), page, limit, hasMore: page < 3 }), { limit: 10 });
  assert.equal(r.items.length, 30);
  assert.equal(r.requests, 3);
});

test('a short page ends paging without asking for the next', async (t) => {
  const r = await collect(t, (page, limit) => ({ items: range((page - 1) * limit, page === 2 ? 4 : limit) }), { limit: 10 });
  assert.equal(r.items.length, 14);
  assert.equal(r.requests, 2);
});

test('page >= totalPages ends paging; an empty page ends paging', async (t) => {
  const a = await collect(t, (page, limit) => ({ data: range((page - 1) * limit, limit), pagination: { page, totalPages: 2 } }), { limit: 5 });
  assert.equal(a.items.length, 10);
  assert.equal(a.requests, 2);
  const b = await collect(t, (page, limit) => (page <= 2 ? range((page - 1) * limit, limit) : []), { limit: 5 });
  assert.equal(b.items.length, 10);
  assert.equal(b.requests, 3);
});

test('a server that ignores page is not followed forever; --max stops early', async (t) => {
  const a = await collect(t, (_page, limit) => ({ data: range(0, limit) }), { limit: 5 });
  assert.equal(a.items.length, 5);
  assert.equal(a.requests, 2);
  const b = await collect(t, (page, limit) => ({ data: range((page - 1) * limit, limit), meta: { has_more: true } }), { limit: 10, max: 25 });
  assert.equal(b.items.length, 25);
  assert.equal(b.requests, 3);
});

test('a server capping limit below what was asked is followed by its own limit', async (t) => {
  // Asked for 100, the server gives 20 a page and says so: 20 is not a short page.
  const r = await collect(t, (page) => ({ data: range((page - 1) * 20, page < 3 ? 20 : 7), pagination: { limit: 20 } }), { limit: 100 });
  assert.equal(r.items.length, 47);
  assert.equal(r.requests, 3);
});
