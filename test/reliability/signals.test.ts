// Signals always work, and no wait is silent or endless (docs/network.md, "Failures,
// timeouts and waits"): Ctrl-C ends a 429 pause at once with the journal flushed (exit 130), a second
// signal ends what is on the wire, a pause past --max-pause is exit 1 with --resume advice, 429s
// that never end (Retry-After: 0) are bounded and said, and a list that never ends stops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { ApiClient } from '../../src/http/client.js';
import { pages } from '../../src/http/paginate.js';
import { Logger } from '../../src/output/log.js';
import { endedByCtrlC, runCli, startCli, tempDir } from '../helpers/cli.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';
import { waitFor } from '../helpers/wait.js';
import { writeLeads } from '../helpers/leads.js';

const KEY = `sk_live_${'s'.repeat(24)}`;
const envOf = (t: { after(fn: () => unknown): void }, baseUrl: string, config = tempDir(t)) => ({ CALLCTL_BASE_URL: baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: config });

/** A server storing contacts by phone; `mode` says how it answers now. */
async function service(t: { after(fn: () => unknown): void }) {
  const state = { mode: 'ok' as 'ok' | 'paused' | 'hold' | 'zero', stored: new Set<string>() };
  const server = await scriptedServer(t, (hit, res) => {
    if (state.mode === 'paused' && state.stored.size > 0) return json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '300' });
    if (state.mode === 'zero') return json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '0' });
    if (state.mode === 'hold' && state.stored.size > 0) return; // accepted, never answered
    if (hit.method === 'GET') return json(res, 200, { data: [], pagination: { hasMore: false } });
    const phone = JSON.parse(hit.body).phone as string;
    const known = state.stored.has(phone);
    state.stored.add(phone);
    json(res, known ? 200 : 201, { id: `c_${phone}`, phone });
  });
  return { ...server, state };
}

test('Ctrl-C in a long 429 pause: said with its end, then exit 130 at once, the journal flushed, and --resume stores every row once', async (t) => {
  const svc = await service(t);
  svc.state.mode = 'paused';
  const file = writeLeads(tempDir(t), 30);
  const env = envOf(t, svc.baseUrl);
  const run = startCli(['import', file], { env });
  await waitFor(() => /pause of 5 min/.test(run.stderr()));
  assert.match(run.stderr(), /the service asks for a pause of 5 min \(429, Retry-After\): waiting until \d\d:\d\d:\d\d \(Ctrl-C stops; --resume continues\)/);
  run.child.kill('SIGINT');
  const r = await run.result;
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /interrupted after 1 rows were stored/);
  svc.state.mode = 'ok';
  const again = await runCli(['import', file, '--resume', '--json'], { env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).skipped, 1, 'the row stored before the pause is in the journal');
  assert.equal(svc.state.stored.size, 30);
});

test('a second signal while requests on the wire finish exits at once (SIGINT, then SIGTERM)', async (t) => {
  const svc = await service(t);
  svc.state.mode = 'hold';
  const file = writeLeads(tempDir(t), 30);
  const run = startCli(['--timeout', '600000', 'import', file], { env: envOf(t, svc.baseUrl) });
  await waitFor(() => svc.hits.length >= 3);
  run.child.kill('SIGINT');
  await waitFor(() => /stopping: no new rows/.test(run.stderr()));
  run.child.kill('SIGTERM');
  const r = await run.result;
  assert.equal(r.code, 130, r.stderr);
});

test('a pause past --max-pause is exit 1 at once, with --resume advice; --max-pause raises the bound', async (t) => {
  const svc = await service(t);
  svc.state.mode = 'paused';
  const file = writeLeads(tempDir(t), 10);
  const r = await runCli(['import', file, '--max-pause', '60'], { env: envOf(t, svc.baseUrl) });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /callctl: the service asks for a pause of 5 min \(429, Retry-After\), past --max-pause 60 s \(run the same command with --resume after \d\d:\d\d:\d\d, or raise --max-pause\)/);
});

test('429s that never end (Retry-After: 0) are bounded by --max-pause and said, not waited in silence', async (t) => {
  const svc = await service(t);
  svc.state.mode = 'zero';
  const r = await runCli(['contacts', 'ls', '--max-pause', '2'], { env: envOf(t, svc.baseUrl) });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /callctl: the service has answered only 429 \(too many requests\) for \d+ s, past --max-pause 2 s \(try again later, or raise --max-pause\)/);
});

test('Ctrl-C in a one-shot command\'s pause ends it at once', async (t) => {
  const server = await scriptedServer(t, (_hit, res) => json(res, 429, {}, { 'retry-after': '300' }));
  const run = startCli(['contacts', 'ls'], { env: envOf(t, server.baseUrl) });
  await waitFor(() => /pause of 5 min/.test(run.stderr()));
  run.child.kill('SIGINT');
  const r = await run.result;
  assert.ok(endedByCtrlC(r), `exit ${r.code} ${r.signal}: ${r.stderr}`);
});

test('a list whose hasMore never turns false stops with an error: past its own total, or at the page bound', async (t) => {
  const server = await scriptedServer(t, (hit, res) => {
    const page = Number(new URL(hit.url, 'http://x').searchParams.get('page'));
    const limit = Number(new URL(hit.url, 'http://x').searchParams.get('limit'));
    json(res, 200, { data: Array.from({ length: limit }, (_, i) => ({ id: `c${page}_${i}`, phone: '+447400120001' })), pagination: { page, limit, total: 150, hasMore: true } });
  });
  const find = await runCli(['contacts', 'find', '--phone', '+447400120002'], { env: envOf(t, server.baseUrl) });
  assert.equal(find.code, 1, find.stderr);
  assert.match(find.stderr, /callctl: stopped reading \/contacts: 200 items read of the 150 it counts, and it still says there is more \(the list looks endless/);
  assert.doesNotMatch(find.stderr, /0 contacts/);

  // No total at all: the page bound (injected small here; MAX_PAGES in the CLI).
  const endless = await scriptedServer(t, (hit, res) => {
    const page = Number(new URL(hit.url, 'http://x').searchParams.get('page'));
    json(res, 200, { data: [{ id: `p${page}a` }, { id: `p${page}b` }], hasMore: true });
  });
  const e = new ApiClient({
    baseUrl: new URL(endless.baseUrl), apiKey: KEY, concurrency: 1, rate: undefined, timeoutMs: 5_000,
    log: new Logger(new PassThrough(), 'quiet', false), now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });
  t.after(() => e.close());
  let read = 0;
  await assert.rejects(async () => {
    for await (const items of pages(e, { path: '/contacts', limit: 2, maxPages: 5 })) read += items.length;
  }, /stopped reading \/contacts: after 5 pages \(10 items\) it still says there is more/);
  assert.equal(read, 10);
  assert.equal(endless.hits.length, 5);
});
