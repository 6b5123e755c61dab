// Only the API's answers count (docs/network.md, "What counts as the API's answer"): behind a server that answers a page
// of HTML, `{}` or text with a 200 — a captive portal, an SSO page, a proxy — nothing is "done",
// "matched", "updated" or "not found", no receipt is written, and after a few such answers in a
// row the job stops with one line, exit 1, its journal kept for --resume.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { allContacts, createContact, eraseContact, getContact } from '../../src/api/contacts.js';
import { writeOutcome } from '../../src/api/calls.js';
import { ApiClient } from '../../src/http/client.js';
import { allItems } from '../../src/http/paginate.js';
import { ApiError, exitCodeOf } from '../../src/errors.js';
import { Logger } from '../../src/output/log.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';
import { assertEachOnce, writeLeads } from '../helpers/leads.js';

const KEY = `sk_live_${'n'.repeat(24)}`;
const LINE = 'callctl: the service answered with something that is not the API (an HTML page: a proxy or a login page in the way?';

function page(res: ServerResponse, status = 200): void {
  const html = '<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>Corporate login</form></body></html>';
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

function text(res: ServerResponse, body: string, type = 'application/json'): void {
  res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function client(baseUrl: string) {
  return new ApiClient({
    baseUrl: new URL(baseUrl), apiKey: KEY, concurrency: 2, rate: undefined, timeoutMs: 5_000,
    log: new Logger(new PassThrough(), 'quiet', false), now: () => Date.now(),
    sleep: (ms, signal) => new Promise((done, fail) => {
      const timer = setTimeout(done, Math.min(ms, 10));
      signal?.addEventListener('abort', () => (clearTimeout(timer), fail(signal.reason)), { once: true });
    }),
    random: () => 0.5,
  });
}

const notApi = (final: boolean) => (err: unknown) => {
  assert.ok(err instanceof ApiError, String(err));
  assert.equal(err.code, 'not_api');
  assert.equal(err.final, final);
  assert.equal(err.status, undefined, 'a page is no status of the API');
  assert.equal(exitCodeOf(err), 1);
  return true;
};

test('a 200 HTML page, `{}`, text and invalid JSON are not the API: retried as faults, final after three in a row', async (t) => {
  const server = await scriptedServer(t, (hit, res) => {
    if (hit.url.startsWith('/api/v1/contacts/html')) return page(res);
    if (hit.url.startsWith('/api/v1/contacts/broken')) return text(res, '{"id": "c1", ');
    if (hit.url.startsWith('/api/v1/calls')) return json(res, 200, {});
    if (hit.method === 'DELETE') return page(res, 404);
    if (hit.method === 'POST') return json(res, 201, { error: 'not logged in' });
    return json(res, 200, { id: 'c1', loyalty: { tier: 'gold' } });
  });
  const c = client(server.baseUrl);
  t.after(() => c.close());

  await assert.rejects(getContact(c, 'html'), notApi(true));
  assert.equal(server.hits.length, 3, 'three answers, then no more: whatever is in the way answers all alike');
  // An answer of the API between them starts the count again; unknown fields are kept.
  assert.deepEqual(await getContact(c, 'c1'), { id: 'c1', loyalty: { tier: 'gold' } });
  await assert.rejects(getContact(c, 'broken'), notApi(true));
  await assert.rejects(writeOutcome(c, 'call1', { outcome: 'booked' }), notApi(true));
  // A POST without an E.164 phone is not repeated after an answer that may have been applied.
  const before = server.hits.length;
  await assert.rejects(createContact(c, { firstName: 'Ada' }), notApi(true));
  assert.equal(server.hits.length - before, 1);
  // A DELETE answered by a page that says 404 is not the API's "not found".
  await assert.rejects(eraseContact(c, 'c9'), notApi(true));
});

test('a list page that is no list ({} or a page) is a fault, never an empty list', async (t) => {
  let n = 0;
  const server = await scriptedServer(t, (_hit, res) => (n++ % 2 === 0 ? json(res, 200, {}) : page(res)));
  const c = client(server.baseUrl);
  t.after(() => c.close());
  await assert.rejects(async () => {
    for await (const items of allItems(c, '/contacts')) assert.fail(`no items were read: ${JSON.stringify(items)}`);
  }, notApi(true));
});

test('import behind a login page: nothing counts as matched; stops after three answers, exit 1, and --resume finishes once the API answers', async (t) => {
  let portal = false;
  const stored = new Map<string, string>();
  const server = await scriptedServer(t, (hit, res) => {
    if (portal) return page(res);
    const phone = JSON.parse(hit.body).phone as string;
    const known = stored.has(phone);
    stored.set(phone, `c_${stored.size}`);
    if (stored.size === 12) portal = true; // a proxy steps in from the 13th request on
    json(res, known ? 200 : 201, { id: stored.get(phone), phone });
  });
  const dir = tempDir(t);
  const file = writeLeads(dir, 40);
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) };
  const r = await runCli(['--concurrency', '2', 'import', file, '--json'], { env });
  assert.equal(r.code, 1, r.stderr);
  assert.ok(r.stderr.includes(LINE), r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.created + s.matched, 12, 'only what the API answered counts');
  assert.ok(s.created + s.matched + s.failed + (s.unfinished ?? 0) + s.rejected <= 40);
  portal = false;
  const again = await runCli(['import', file, '--resume', '--json'], { env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(stored.size, 40, 'every row stored, none twice');
});

test('an import that stops on answers that are not the API says so in its first line: the rows read before the stop, not "imported"', async (t) => {
  let answered = 0;
  const server = await scriptedServer(t, (hit, res) => {
    if (answered >= 5) return page(res); // a proxy steps in from the sixth request on
    answered += 1;
    json(res, 201, { id: `c_${answered}`, phone: JSON.parse(hit.body).phone });
  });
  const dir = tempDir(t);
  const file = writeLeads(dir, 30);
  const r = await runCli(['--concurrency', '1', 'import', file], { env: { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.equal(r.code, 1, r.stderr);
  assert.ok(r.stderr.includes(LINE), r.stderr);
  assert.match(r.stderr, /^stopped import of \S+: \d+ rows? read before the stop, in \d+\.\d s$/m);
  assert.doesNotMatch(r.stderr, /^imported /m, 'a stopped import is not an imported file');
  assert.match(r.stderr, /^ {2}created {5}5$/m);
});

test('erasure behind a login page: exit 1, no receipt at all — not "found: 0" for people never looked up', async (t) => {
  const server = await scriptedServer(t, (_hit, res) => page(res));
  const dir = tempDir(t);
  const requests = join(dir, 'requests.txt');
  writeFileSync(requests, '+44 7400 120001\nc_42\n');
  const r = await runCli(['contacts', 'rm', '--from', requests, '--confirm'], { env: { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.equal(r.code, 1, r.stderr);
  assert.ok(r.stderr.includes(LINE), r.stderr);
  assert.equal(existsSync(`${requests}.erasures.jsonl`), false, 'no receipt');
  assert.ok(server.hits.every((h) => h.method === 'GET'), 'nothing was deleted');
});

test('a list of contacts or calls holding an item that is no object is not the API: never a contact shown or counted', async (t) => {
  const server = await scriptedServer(t, (_hit, res) => json(res, 200, { data: [{ id: 'c1', phone: '+447400120001' }, 'c2', null] }));
  const c = client(server.baseUrl);
  t.after(() => c.close());
  await assert.rejects(async () => {
    for await (const items of allContacts(c)) assert.fail(`no items were read: ${JSON.stringify(items)}`);
  }, notApi(true));
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) };
  for (const args of [['contacts', 'ls', '--json'], ['calls', 'ls', '--json'], ['calls', 'summary', '--json']]) {
    const r = await runCli(args, { env });
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '', args.join(' '));
  }
});

test('contacts find and ls behind a login page: exit 1 with the one line, never "0 contacts"', async (t) => {
  const server = await scriptedServer(t, (_hit, res) => page(res));
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) };
  const find = await runCli(['contacts', 'find', '--phone', '+447400120001'], { env });
  assert.equal(find.code, 1, find.stderr);
  assert.ok(find.stderr.includes(LINE), find.stderr);
  assert.doesNotMatch(find.stderr, /0 contacts/);
  const ls = await runCli(['contacts', 'ls'], { env });
  assert.equal(ls.code, 1, ls.stderr);
  assert.equal(ls.stdout, '');
  assert.equal(ls.stderr.trim().split('\n').filter((l) => l.startsWith('callctl:') && !/retrying/.test(l)).length, 1, ls.stderr);
});

test('outcome writeback answered `{}`: not one call counts as updated', async (t) => {
  const server = await scriptedServer(t, (_hit, res) => json(res, 200, {}));
  const dir = tempDir(t);
  const file = join(dir, 'outcomes.csv');
  writeFileSync(file, `callId,outcome\n${Array.from({ length: 50 }, (_, i) => `call_${i},booked_job`).join('\n')}\n`);
  const r = await runCli(['calls', 'outcome', '--from', file, '--json'], { env: { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /not the API \(JSON where the API gives a call/);
  assert.equal(JSON.parse(r.stdout).updated, 0);
  assert.ok(server.hits.length <= 3 + 8, `${server.hits.length} requests`);
});

test('the sandbox is the API: an import against it is untouched by the checks', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const file = writeLeads(tempDir(t), 30);
  const r = await runCli(['import', file, '--json'], { env: envFor(sb, t) });
  assert.equal(r.code, 0, r.stderr);
  assertEachOnce(sb.contacts().map((c) => c.phone), 30);
  assert.equal(readFileSync(file, 'utf8').split('\n').length, 32);
});

test('auth status behind a server answering `{}`: the key is not said to work', async (t) => {
  const server = await scriptedServer(t, (_hit, res) => json(res, 200, {}));
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) };
  const status = await runCli(['auth', 'status', '--json'], { env });
  assert.equal(status.code, 1, status.stderr);
  const report = JSON.parse(status.stdout);
  assert.equal(report.ok, false);
  assert.match(report.error, /the service answered with something that is not the API/);
  assert.equal(server.hits.filter((h) => h.method === 'PATCH').length, 0, 'no write is probed once the read is not the API');
});
