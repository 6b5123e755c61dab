// The networks operators have (docs/network.md, "Failures, timeouts and waits" and "Proxies and certificates"): a proxy
// from HTTPS_PROXY / https_proxy / NO_PROXY, through a logging CONNECT proxy on loopback to a base
// URL whose name never resolves (the proxy is the only hop); what cannot heal fails at once with
// one line — no such host, a certificate for another name or from an unknown CA (naming
// NODE_EXTRA_CA_CERTS); a server that never answers costs a one-shot command one --timeout.
// No DNS query leaves the machine: the CLI runs with a resolver hook that answers only loopback
// names, records every name asked, and says "no such host" to the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { ApiClient } from '../../src/http/client.js';
import { ApiError } from '../../src/errors.js';
import { Logger } from '../../src/output/log.js';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { writeLeads } from '../helpers/leads.js';

type T = { after(fn: () => unknown): void };
const KEY = `sk_live_${'x'.repeat(24)}`;
const NAME = 'api.callctl-test.invalid';

/** A certificate (and key) for `name`, made here by openssl. */
function certificate(dir: string, name: string): { cert: string; key: string; certPath: string } {
  const certPath = join(dir, `${name}.pem`);
  const keyPath = join(dir, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '2', '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name}`], { stdio: 'ignore' });
  return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), certPath };
}

/** NODE_OPTIONS for a CLI whose every name lookup is recorded in `log`, and answered only for localhost. */
function resolverHook(dir: string): { NODE_OPTIONS: string; asked: () => string[] } {
  const log = join(dir, 'lookups.txt');
  const hook = join(dir, 'lookup-hook.cjs');
  writeFileSync(hook, `
const dns = require('node:dns');
const fs = require('node:fs');
const original = dns.lookup;
dns.lookup = function (host, options, callback) {
  fs.appendFileSync(${JSON.stringify(log)}, host + '\\n');
  if (host === 'localhost' || require('node:net').isIP(host)) return original.call(this, host, options, callback);
  const cb = typeof options === 'function' ? options : callback;
  const err = Object.assign(new Error('getaddrinfo ENOTFOUND ' + host), { code: 'ENOTFOUND', errno: -3008, syscall: 'getaddrinfo', hostname: host });
  process.nextTick(cb, err);
};
`);
  return { NODE_OPTIONS: `--require ${hook}`, asked: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []) };
}

async function listen(t: T, server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections?.();
    return new Promise((r) => server.close(() => r(undefined)));
  });
  return (server.address() as AddressInfo).port;
}

/** The API over TLS with a certificate for NAME (on loopback: only a proxy brings a client here). */
async function tlsApi(t: T, dir: string) {
  const { cert, key, certPath } = certificate(dir, NAME);
  const hits: string[] = [];
  const server = createHttpsServer({ cert, key }, (req, res) => {
    hits.push(`${req.method} ${req.headers.host} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ id: 'c1', firstName: 'Ada', phone: '+447400120001' }], pagination: { hasMore: false } }));
  });
  return { port: await listen(t, server), hits, certPath };
}

/** A CONNECT proxy that logs each tunnel asked for and joins it to `port` on loopback. */
async function loggingProxy(t: T, port: number) {
  const tunnels: Array<{ target: string; auth: string | undefined }> = [];
  const server = createHttpServer((_req, res) => res.writeHead(405).end());
  const sockets = new Set<Socket>();
  server.on('connect', (req, client: Socket) => {
    tunnels.push({ target: req.url ?? '', auth: req.headers['proxy-authorization'] });
    const upstream = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client).pipe(upstream);
    });
    sockets.add(upstream).add(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  t.after(() => sockets.forEach((s) => s.destroy()));
  return { port: await listen(t, server), tunnels };
}

test('HTTPS_PROXY (and https_proxy): the proxy is the only hop, no name is looked up; -v and config list show it; NO_PROXY goes direct', async (t) => {
  const dir = tempDir(t);
  const api = await tlsApi(t, dir);
  const proxy = await loggingProxy(t, api.port);
  const hook = resolverHook(dir);
  const env = { CALLCTL_BASE_URL: `https://${NAME}/api/v1`, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t), NODE_EXTRA_CA_CERTS: api.certPath, NODE_OPTIONS: hook.NODE_OPTIONS };

  const r = await runCli(['contacts', 'ls', '--json', '-v'], { env: { ...env, HTTPS_PROXY: `http://127.0.0.1:${proxy.port}` } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout)[0].id, 'c1');
  assert.deepEqual(proxy.tunnels.map((x) => x.target), [`${NAME}:443`]);
  assert.deepEqual(api.hits, [`GET ${NAME} /api/v1/contacts?page=1&limit=50`]);
  assert.ok(r.stderr.includes(`· proxy http://127.0.0.1:${proxy.port} (HTTPS_PROXY) for ${NAME}`), r.stderr);
  assert.deepEqual(hook.asked().filter((h) => h === NAME), [], 'the name never left the machine');

  // Lower case, with credentials: they reach the proxy and are masked where shown.
  const lower = await runCli(['contacts', 'ls', '--json', '-v'], { env: { ...env, https_proxy: `http://ops:hunter2@127.0.0.1:${proxy.port}` } });
  assert.equal(lower.code, 0, lower.stderr);
  assert.equal(proxy.tunnels[1]?.auth, `Basic ${Buffer.from('ops:hunter2').toString('base64')}`);
  assert.ok(lower.stderr.includes(`· proxy http://ops:****@127.0.0.1:${proxy.port} (https_proxy)`), lower.stderr);
  assert.doesNotMatch(lower.stderr, /hunter2/);

  const list = await runCli(['config', 'list'], { env: { ...env, HTTPS_PROXY: `http://127.0.0.1:${proxy.port}` } });
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, new RegExp(`^proxy=http://127\\.0\\.0\\.1:${proxy.port}\\s+\\(env HTTPS_PROXY\\)$`, 'm'));
  const bypass = await runCli(['config', 'list', '--json'], { env: { ...env, HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`, NO_PROXY: '.callctl-test.invalid' } });
  assert.deepEqual([JSON.parse(bypass.stdout).proxy, JSON.parse(bypass.stdout).sources.proxy], [null, `NO_PROXY names ${NAME}`]);

  // NO_PROXY: straight to the name, which does not resolve — at once, one line, no retry.
  const direct = await runCli(['contacts', 'ls'], { env: { ...env, HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`, NO_PROXY: `localhost,${NAME}` } });
  assert.equal(direct.code, 1, direct.stderr);
  assert.equal(direct.stderr, `callctl: cannot reach ${NAME}: no such host (GET /contacts) (the name does not resolve: check --base-url or CALLCTL_BASE_URL, and the network)\n`);
  assert.equal(proxy.tunnels.length, 2);
  assert.deepEqual(hook.asked().filter((h) => h === NAME), [NAME], 'asked once (to the hook), not retried');
});

test('a name that does not resolve fails at once in a bulk job too: one line, exit 1, nothing to --restart', async (t) => {
  const dir = tempDir(t);
  const hook = resolverHook(dir);
  const config = tempDir(t);
  const env = { CALLCTL_BASE_URL: `https://${NAME}/api/v1`, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: config, NODE_OPTIONS: hook.NODE_OPTIONS };
  const file = writeLeads(dir, 20);
  const r = await runCli(['import', file], { env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /callctl: cannot reach api\.callctl-test\.invalid: no such host \(POST \/contacts\)/);
  assert.doesNotMatch(r.stderr, /retrying/);
  assert.equal(hook.asked().filter((h) => h === NAME).length, 1);
  const again = await runCli(['import', file], { env });
  assert.doesNotMatch(again.stderr, /did not finish/);
});

test('an injected lookup that finds no such host: one attempt, a final error', async (t) => {
  const asked: string[] = [];
  const c = new ApiClient({
    baseUrl: new URL(`https://${NAME}/api/v1`), apiKey: KEY, concurrency: 1, rate: undefined, timeoutMs: 5_000,
    log: new Logger(new PassThrough(), 'quiet', false), now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    lookup: ((host: string, _o: unknown, cb: (err: Error) => void) => {
      asked.push(host);
      process.nextTick(cb, Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
    }) as never,
  });
  t.after(() => c.close());
  c.forBulkJob(); // patient, and still not retried
  await assert.rejects(c.request({ method: 'GET', path: '/contacts' }), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.final, true);
    assert.equal(err.attempts, 1);
    assert.match(err.message, /no such host/);
    return true;
  });
  assert.deepEqual(asked, [NAME]);
});

test('a certificate for another name, or from a CA not trusted: one line naming NODE_EXTRA_CA_CERTS, exit 1, one connection', async (t) => {
  const dir = tempDir(t);
  const { cert, key, certPath } = certificate(dir, 'other.example');
  let connections = 0;
  const server = createHttpsServer({ cert, key }, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}'));
  server.on('connection', () => connections++);
  const port = await listen(t, server);
  const env = { CALLCTL_BASE_URL: `https://127.0.0.1:${port}/api/v1`, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) };

  const other = await runCli(['contacts', 'ls'], { env: { ...env, NODE_EXTRA_CA_CERTS: certPath } });
  assert.equal(other.code, 1, other.stderr);
  assert.equal(other.stderr.trim().split('\n').length, 1, other.stderr);
  assert.match(other.stderr, /^callctl: the TLS certificate of 127\.0\.0\.1:\d+ was refused: .*\(ERR_TLS_CERT_ALTNAME_INVALID\) \(GET \/contacts\) \(check --base-url .*NODE_EXTRA_CA_CERTS\)$/m);
  assert.equal(connections, 1, 'not retried');

  const unknown = await runCli(['contacts', 'ls'], { env });
  assert.equal(unknown.code, 1, unknown.stderr);
  assert.match(unknown.stderr, /^callctl: the TLS certificate of 127\.0\.0\.1:\d+ was refused: self.signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\) \(GET \/contacts\) \(a network that inspects TLS has a CA of its own: put its certificate \(PEM\) in NODE_EXTRA_CA_CERTS\)$/m);
  assert.equal(connections, 2);
});

test('a server that accepts and never answers: a one-shot command gives up after --timeout in all; a bulk job retries', async (t) => {
  const hits: string[] = [];
  const server = createHttpServer((req) => void hits.push(`${req.method} ${req.url}`));
  const port = await listen(t, server);
  const env = { CALLCTL_BASE_URL: `http://127.0.0.1:${port}/api/v1`, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) };
  const ls = await runCli(['contacts', 'ls', '--timeout', '300'], { env });
  assert.equal(ls.code, 1, ls.stderr);
  assert.equal(ls.stderr, `callctl: no answer from 127.0.0.1:${port} within 300 ms (GET /contacts) (tried 1 time; check the network and --base-url)\n`);
  assert.equal(hits.length, 1);

  // The import keeps its patient retries: a second attempt of its first row, then it is stopped.
  const file = writeLeads(tempDir(t), 5);
  const run = startCli(['--timeout', '300', 'import', file], { env });
  await waitFor(() => hits.filter((h) => h.startsWith('POST')).length >= 2);
  run.child.kill('SIGINT');
  run.child.kill('SIGTERM');
  const r = await run.result;
  assert.equal(r.code, 130, r.stderr);
});
