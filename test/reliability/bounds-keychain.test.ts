// A keychain that does not answer is passed over within 10 s (docs/commands/auth.md, "Where the key lives"): a D-Bus
// socket that accepts a connection and never answers held `auth login` for ever — the binding
// connects synchronously, so no timer of the process could fire. `login` then keeps the key in the
// 0600 file with one line; a command whose key is in the keychain ends with one line, exit 3.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { type CliResult, startCli, tempDir } from '../helpers/cli.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

/** A unix socket that takes every connection and never says a word: a D-Bus that does not answer. */
async function deafBus(t: { after(fn: () => unknown): void }): Promise<{ address: string; connections: () => number }> {
  const path = join(tempDir(t), 'bus');
  const sockets: Socket[] = [];
  const server = createServer((s) => {
    sockets.push(s);
    s.on('data', () => undefined);
  });
  await new Promise<void>((ready) => server.listen(path, ready));
  t.after(() => {
    sockets.forEach((s) => s.destroy());
    return new Promise((done) => server.close(done));
  });
  return { address: `unix:path=${path}`, connections: () => sockets.length };
}

function ending(run: ReturnType<typeof startCli>): () => CliResult | undefined {
  let ended: CliResult | undefined;
  void run.result.then((r) => (ended = r));
  return () => ended;
}

test('a D-Bus that accepts and never answers: login keeps the key in the file within 10 s, one line; a command with its key in the keychain ends with one line, exit 3', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const bus = await deafBus(t);
  const loginDir = tempDir(t);
  const readDir = tempDir(t);
  writeFileSync(join(readDir, 'config.json'), JSON.stringify({ profiles: { default: { baseUrl: sb.baseUrl, keychain: { service: `callctl:${readDir}`, account: 'default' } } } }), { mode: 0o600 });
  const started = Date.now();
  const login = startCli(['auth', 'login', '--base-url', sb.baseUrl], { env: { CALLCTL_CONFIG_DIR: loginDir, DBUS_SESSION_BUS_ADDRESS: bus.address }, input: `${sb.secretKey}\n`, timeoutMs: 60_000 });
  const ls = startCli(['contacts', 'ls'], { env: { CALLCTL_CONFIG_DIR: readDir, DBUS_SESSION_BUS_ADDRESS: bus.address }, timeoutMs: 60_000 });
  const [loginEnded, lsEnded] = [ending(login), ending(ls)];
  await waitFor(() => loginEnded() !== undefined && lsEnded() !== undefined, 20_000, 'both ended');
  const took = Date.now() - started;
  assert.ok(took >= 9_000, `passed over after ${took} ms: the bus was given its 10 s`);
  assert.ok(bus.connections() >= 2, 'both reached the bus');

  const l = loginEnded()!;
  assert.equal(l.code, 0, l.stderr);
  const warnings = l.stderr.split('\n').filter((x) => x.startsWith('callctl: warning:'));
  assert.deepEqual(warnings, [`callctl: warning: the keychain did not answer within 10 s (store the key): the key is kept in ${join(loginDir, 'config.json')} (0600) instead`]);
  const stored = JSON.parse(readFileSync(join(loginDir, 'config.json'), 'utf8')) as { profiles: { default: { apiKey?: string; keychain?: unknown } } };
  assert.equal(stored.profiles.default.apiKey, sb.secretKey);
  assert.equal(stored.profiles.default.keychain, undefined);
  assert.equal(statSync(join(loginDir, 'config.json')).mode & 0o777, 0o600);

  const r = lsEnded()!;
  assert.equal(r.code, 3, r.stderr);
  assert.equal(r.stderr, 'callctl: the key of profile "default" is in the system keychain, which cannot be used here: the keychain did not answer within 10 s (read the key) (run callctl login again (--insecure-storage keeps it in the config file), or set CALLCTL_API_KEY)\n');
  assert.equal(sb.stats().byRoute['GET /contacts'], 1, "login's check read once; contacts ls sent nothing");
});
