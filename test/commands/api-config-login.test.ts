// `api`, `config`, `login` and `sandbox` end to end; paging against a server whose envelope is
// not the sandbox's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';

test('api: GET with -f as query, POST with -f and --input as body, --paginate, and refusals', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 12 });
  const env = envFor(sb, t);
  const g = await runCli(['api', 'GET', 'contacts', '-f', 'limit=2'], { env });
  assert.equal(g.code, 0, g.stderr);
  assert.equal(JSON.parse(g.stdout).data.length, 2);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'body.json'), JSON.stringify({ firstName: 'In', tags: ['a'] }));
  const p = await runCli(['api', 'POST', '/contacts', '--input', join(dir, 'body.json'), '-f', 'phone=+442079460958'], { env });
  assert.equal(p.code, 0, p.stderr);
  assert.deepEqual(sb.contacts().at(-1)?.tags, ['a']);
  const piped = await runCli(['api', 'PATCH', `/contacts/${sb.contacts()[0]!.id}`, '--input', '-'], { env, input: '{"status":"vip"}' });
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(sb.contacts()[0]!.status, 'vip');
  const all = await runCli(['api', 'GET', '/contacts', '--paginate', '-f', 'limit=5'], { env });
  assert.equal(JSON.parse(all.stdout).length, 13);
  const bad = await runCli(['api', 'POST', '/contacts', '-f', 'nickname=x'], { env });
  assert.equal(bad.code, 5, 'the server refuses an unknown field: 422');
  assert.match(bad.stderr, /nickname/);
  for (const args of [['FETCH', '/contacts'], ['GET', 'http://evil.example/x'], ['GET', '/../admin'], ['GET', '/contacts', '-f', 'novalue']]) {
    const r = await runCli(['api', ...args], { env });
    assert.equal(r.code, 2, args.join(' '));
  }
});

test('paging follows an unknown envelope {page, limit, hasMore} and ids that need encoding', async (t) => {
  const ids = ['a/b c', 'ü', '..', 'x?y=1', '%41', 'plain'];
  const server = await scriptedServer(t, (hit, res) => {
    const url = new URL(hit.url, 'http://x');
    if (url.pathname !== '/api/v1/contacts') return json(res, 200, { id: decodeURIComponent(url.pathname.split('/').at(-1)!), echoed: url.pathname });
    const page = Number(url.searchParams.get('page'));
    const limit = Number(url.searchParams.get('limit'));
    json(res, 200, { items: ids.slice((page - 1) * limit, page * limit).map((id) => ({ id, firstName: 'N' })), page, limit, hasMore: page * limit < ids.length });
  });
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: `sk_live_${'e'.repeat(24)}`, CALLCTL_CONFIG_DIR: tempDir(t) };
  const r = await runCli(['contacts', 'ls', '--all', '--limit', '2', '--format', 'ndjson'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n').map((l) => JSON.parse(l).id), ids);
  assert.equal(server.hits.length, 3, 'hasMore: false ends paging, no extra request');
  const get = await runCli(['contacts', 'get', 'a/b c', '--json'], { env });
  assert.equal(JSON.parse(get.stdout).echoed, '/api/v1/contacts/a%2Fb%20c');
});

test('config: set/get/unset/list/path, values checked, the key masked, the file 0600', async (t) => {
  const dir = tempDir(t);
  const env = { CALLCTL_CONFIG_DIR: dir };
  assert.equal((await runCli(['config', 'set', 'country', 'gb'], { env })).code, 0);
  assert.equal((await runCli(['config', 'get', 'country'], { env })).stdout, 'GB\n');
  assert.equal((await runCli(['config', 'set', 'country', 'Narnia'], { env })).code, 2);
  assert.equal((await runCli(['config', 'set', 'currency', 'XXQ'], { env })).code, 2);
  assert.equal((await runCli(['config', 'set', 'rate', '-3'], { env })).code, 2);
  assert.equal((await runCli(['config', 'set', 'baseUrl', 'https://api.example.com/v2'], { env })).code, 2);
  assert.equal((await runCli(['config', 'set', 'apiKey', 'sk_live_x'], { env })).code, 2);
  assert.equal((await runCli(['config', 'set', 'colour', 'red'], { env })).code, 2);
  assert.equal((await runCli(['config', 'set', 'concurrency', '8'], { env })).code, 0);
  const key = `sk_live_${'m'.repeat(16)}WXYZ`;
  assert.equal((await runCli(['login', '--no-verify', '--base-url', 'https://api.example.com/api/v1'], { env, input: `${key}\n` })).code, 0);
  const list = await runCli(['config', 'list'], { env });
  assert.match(list.stdout, /apiKey=sk_live_…WXYZ/);
  assert.match(list.stdout, /country=GB/);
  assert.doesNotMatch(list.stdout + list.stderr, new RegExp(key));
  const path = (await runCli(['config', 'path'], { env })).stdout.trim();
  assert.equal(path, join(dir, 'config.json'));
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal((await runCli(['config', 'unset', 'country'], { env })).code, 0);
  assert.doesNotMatch((await runCli(['config', 'list'], { env })).stdout, /country/);
});

test('login: verifies with one request and stores key and base URL; a refused key stores nothing', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const env = { CALLCTL_CONFIG_DIR: dir };
  const bad = await runCli(['login', '--base-url', sb.baseUrl], { env, input: `sk_live_${'0'.repeat(30)}\n` });
  assert.equal(bad.code, 3);
  assert.match(bad.stderr, /401/);
  const widget = await runCli(['login', '--base-url', sb.baseUrl], { env, input: sb.widgetKey });
  assert.equal(widget.code, 3);
  assert.match(widget.stderr, /widget/i);
  assert.equal(sb.stats().requests, 1, 'the widget key was refused before any request');
  const ok = await runCli(['login', '--base-url', sb.baseUrl, '--profile', 'rehearsal'], { env, input: `${sb.secretKey}\n` });
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stderr, new RegExp(`sk_live_…${sb.secretKey.slice(-4)}`));
  const stored = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
  assert.equal(stored.profiles.rehearsal.apiKey, sb.secretKey);
  assert.equal(stored.profiles.rehearsal.baseUrl, sb.baseUrl);
  assert.equal(statSync(join(dir, 'config.json')).mode & 0o777, 0o600);
  // The stored profile is used without any environment.
  const ls = await runCli(['contacts', 'ls', '--profile', 'rehearsal'], { env });
  assert.equal(ls.code, 0, ls.stderr);
});

test('config problems are one line, exit 1: a corrupt file, a config dir that is a file', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'config.json'), '{ not json');
  const corrupt = await runCli(['config', 'list'], { env: { CALLCTL_CONFIG_DIR: dir } });
  assert.equal(corrupt.code, 1);
  assert.match(corrupt.stderr, /not valid JSON/);
  const notDir = await runCli(['config', 'set', 'country', 'GB'], { env: { CALLCTL_CONFIG_DIR: join(dir, 'config.json') } });
  assert.equal(notDir.code, 1);
  assert.equal(notDir.stderr.trim().split('\n').length, 1);
});

test('callctl sandbox --port 0 --json prints its line, serves the API, and stops on SIGTERM', async (t) => {
  const run = startCli(['sandbox', '--port', '0', '--json', '--seed', '2']);
  t.after(() => run.child.kill('SIGKILL'));
  for (let i = 0; i < 100 && !run.stdout().includes('\n'); i++) await new Promise((r) => setTimeout(r, 50));
  const info = JSON.parse(run.stdout().split('\n')[0]!);
  assert.match(info.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
  assert.match(info.secretKey, /^sk_live_/);
  assert.match(info.widgetKey, /^pk_live_/);
  const ls = await runCli(['calls', 'ls', '--json'], { env: { CALLCTL_BASE_URL: info.baseUrl, CALLCTL_API_KEY: info.secretKey, CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.equal(JSON.parse(ls.stdout).length, 2);
  run.child.kill('SIGTERM');
  const end = await run.result;
  assert.equal(end.code, 0);
});
