// Where the key lives (docs/commands/auth.md, "Where the key lives"): the system keychain — a real Secret Service, the test's
// own (helpers/keychain.ts) — or, without one, the 0600 file with one line saying so; `auth status` and
// `auth logout`; what a key may do, learnt without changing anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, runCli, tempDir } from '../helpers/cli.js';
import { clearAfter, keychainOrSkip, lookup, secretService } from '../helpers/keychain.js';
import { startTestSandbox } from '../helpers/sandbox.js';

const profileOf = (dir: string, name = 'default') => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles[name];
const fallbackLines = (stderr: string) => stderr.split('\n').filter((l) => /no keychain reachable|keychain library cannot be loaded/.test(l));

test('auth login stores the key in the Secret Service, the file only where it is; contacts ls, auth status, auth logout', async (t) => {
  const address = await keychainOrSkip(t);
  if (address === undefined) return;
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3 });
  const dir = tempDir(t);
  const service = `callctl:${dir}`;
  clearAfter(t, address, service);
  const env = { CALLCTL_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: address };

  const login = await runCli(['auth', 'login', '--base-url', sb.baseUrl], { env, input: `${sb.secretKey}\n` });
  assert.equal(login.code, 0, login.stderr);
  assert.deepEqual(fallbackLines(login.stderr), []);
  assert.match(login.stderr, /key stored in the system keychain/);
  assert.equal(lookup(address, service, 'default'), sb.secretKey, 'secret-tool finds the key');
  const file = readFileSync(join(dir, 'config.json'), 'utf8');
  assert.ok(!file.includes(sb.secretKey), 'the profile file does not hold the key');
  assert.deepEqual(profileOf(dir), { baseUrl: sb.baseUrl, keychain: { service, account: 'default' } });

  const ls = await runCli(['contacts', 'ls', '--json'], { env });
  assert.equal(ls.code, 0, ls.stderr);
  assert.equal(JSON.parse(ls.stdout).length, 3);

  const status = await runCli(['auth', 'status', '--json'], { env });
  assert.equal(status.code, 0, status.stderr);
  assert.deepEqual(JSON.parse(status.stdout), {
    profile: 'default', baseUrl: sb.baseUrl, storage: 'keychain', key: `sk_live_…${sb.secretKey.slice(-4)}`, ok: true, status: 200, read: true, write: true, error: null,
  });
  const text = await runCli(['auth', 'status'], { env });
  assert.match(text.stdout, /in the system keychain/);

  const logout = await runCli(['auth', 'logout'], { env });
  assert.equal(logout.code, 0, logout.stderr);
  assert.match(logout.stderr, /removed from the system keychain/);
  assert.equal(lookup(address, service, 'default'), undefined, 'the entry is gone');
  assert.deepEqual(profileOf(dir), { baseUrl: sb.baseUrl }, 'the other settings stay');
  const after = await runCli(['contacts', 'ls'], { env });
  assert.equal(after.code, 3, 'no key any more');
});

test('a key in the file (an earlier version) keeps working; the next login moves it into the keychain; --insecure-storage chooses the file', async (t) => {
  const address = await keychainOrSkip(t);
  if (address === undefined) return;
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const dir = tempDir(t);
  const service = `callctl:${dir}`;
  clearAfter(t, address, service);
  const env = { CALLCTL_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: address };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { apiKey: sb.secretKey, baseUrl: sb.baseUrl } } }), { mode: 0o600 });

  assert.equal((await runCli(['contacts', 'ls'], { env })).code, 0);
  assert.equal(JSON.parse((await runCli(['auth', 'status', '--json'], { env })).stdout).storage, 'file');

  const moved = await runCli(['login', '--no-verify', '--base-url', sb.baseUrl], { env, input: sb.secretKey });
  assert.equal(moved.code, 0, moved.stderr);
  assert.equal(lookup(address, service, 'default'), sb.secretKey);
  assert.ok(!readFileSync(join(dir, 'config.json'), 'utf8').includes(sb.secretKey), 'the file lost its copy');
  assert.equal((await runCli(['contacts', 'ls'], { env })).code, 0);

  const insecure = await runCli(['auth', 'login', '--insecure-storage', '--no-verify', '--base-url', sb.baseUrl], { env, input: sb.secretKey });
  assert.equal(insecure.code, 0, insecure.stderr);
  assert.deepEqual(fallbackLines(insecure.stderr), [], 'chosen, not a fallback: no notice');
  assert.equal(profileOf(dir).apiKey, sb.secretKey);
  assert.equal(profileOf(dir).keychain, undefined);
  assert.equal(statSync(join(dir, 'config.json')).mode & 0o777, 0o600);
  assert.equal(lookup(address, service, 'default'), undefined, 'one copy: the keychain entry went');
  assert.equal(JSON.parse((await runCli(['auth', 'status', '--json'], { env })).stdout).storage, 'file');
});

test('without a D-Bus session, or when the binding cannot load, the same commands fall back to the 0600 file and say so in one line', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3 });
  // The children get no DBUS_SESSION_BUS_ADDRESS (cliEnv passes none): no Secret Service.
  const ss = await secretService();
  const variants: Array<[string, Record<string, string>, RegExp]> = [
    ['no D-Bus session', {}, /no keychain reachable: no D-Bus session/],
    // The binding's own switch to load its .node from a path: a path with none is a binding that cannot load.
    ['binding missing', { NAPI_RS_NATIVE_LIBRARY_PATH: join(tempDir(t), 'missing.node'), ...('env' in ss ? ss.env : {}) }, /the keychain library cannot be loaded here/],
  ];
  for (const [what, extra, notice] of variants) {
    const dir = tempDir(t);
    const env = { CALLCTL_CONFIG_DIR: dir, ...extra };
    const login = await runCli(['auth', 'login', '--base-url', sb.baseUrl], { env, input: `${sb.secretKey}\n` });
    assert.equal(login.code, 0, `${what}: ${login.stderr}`);
    const lines = fallbackLines(login.stderr);
    assert.equal(lines.length, 1, `${what}: one line says so: ${login.stderr}`);
    assert.match(lines[0]!, notice);
    assert.match(lines[0]!, /the key is kept in .*config\.json \(0600\) instead/);
    assert.ok(!login.stderr.includes(sb.secretKey));
    assert.equal(profileOf(dir).apiKey, sb.secretKey, what);
    assert.equal(statSync(join(dir, 'config.json')).mode & 0o777, 0o600);
    assert.equal((await runCli(['contacts', 'ls'], { env })).code, 0, what);
    const status = await runCli(['auth', 'status'], { env });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`key +sk_live_…${sb.secretKey.slice(-4)}, in .*config\\.json`));
    const logout = await runCli(['auth', 'logout'], { env });
    assert.equal(logout.code, 0, logout.stderr);
    assert.match(logout.stderr, /key removed from .*config\.json/);
    assert.equal(profileOf(dir).apiKey, undefined);
    // config unset apiKey is the same thing.
    assert.equal((await runCli(['login', '--no-verify', '--base-url', sb.baseUrl], { env, input: sb.secretKey })).code, 0);
    const unset = await runCli(['config', 'unset', 'apiKey'], { env });
    assert.equal(unset.code, 0, unset.stderr);
    assert.match(unset.stderr, /logged out/);
    assert.equal(profileOf(dir).apiKey, undefined);
  }
});

test('CALLCTL_API_KEY overrides the keychain (not even read); a keychain that cannot be used is exit 3 with the reason', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const dir = tempDir(t);
  const service = `callctl:${dir}`;
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { baseUrl: sb.baseUrl, keychain: { service, account: 'default' } } } }));
  const broken = { CALLCTL_CONFIG_DIR: dir, NAPI_RS_NATIVE_LIBRARY_PATH: join(dir, 'missing.node') };
  const env = await runCli(['contacts', 'ls'], { env: { ...broken, CALLCTL_API_KEY: sb.secretKey } });
  assert.equal(env.code, 0, env.stderr);
  const status = await runCli(['auth', 'status', '--json'], { env: { ...broken, CALLCTL_API_KEY: sb.secretKey } });
  assert.equal(status.code, 0, status.stderr);
  assert.equal(JSON.parse(status.stdout).storage, 'env');
  const none = await runCli(['contacts', 'ls'], { env: broken });
  assert.equal(none.code, 3);
  assert.match(none.stderr, /^callctl: the key of profile "default" is in the system keychain, which cannot be used here: .*\(run callctl login again/);
  assert.equal(none.stderr.trim().split('\n').length, 1);
  const noDbus = await runCli(['auth', 'status', '--json'], { env: { CALLCTL_CONFIG_DIR: dir } });
  assert.equal(noDbus.code, 3);
  const s = JSON.parse(noDbus.stdout);
  assert.equal(s.storage, 'keychain');
  assert.equal(s.ok, false);
  assert.match(s.error, /no D-Bus session/);
  // For a person: where the key is, and that it was not read there — not "(none)" beside the keychain.
  const text = await runCli(['auth', 'status'], { env: { CALLCTL_CONFIG_DIR: dir } });
  assert.equal(text.code, 3);
  assert.match(text.stdout, new RegExp(`^  key +not read, in the system keychain \\(service "${service}", account "default"\\)$`, 'm'));
  assert.match(text.stdout, /^  works +no: the key of profile "default" is in the system keychain, which cannot be used here: .*no D-Bus session/m);
});

test('what a key may do, learnt without changing anything: a read-only key is stored with one line saying it cannot write', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 4 });
  const dir = tempDir(t);
  const env = { CALLCTL_CONFIG_DIR: dir };
  const before = JSON.stringify([sb.contacts(), sb.calls()]);
  const ro = await runCli(['login', '--insecure-storage', '--profile', 'reader', '--base-url', sb.baseUrl], { env, input: sb.readOnlyKey });
  assert.equal(ro.code, 0, ro.stderr);
  const warned = ro.stderr.split('\n').filter((l) => /cannot write/.test(l) && l.startsWith('callctl: warning:'));
  assert.equal(warned.length, 1, ro.stderr);
  assert.match(warned[0]!, /403: this key lacks the scope contacts:write/);
  assert.equal(profileOf(dir, 'reader').apiKey, sb.readOnlyKey, 'stored all the same');
  const full = await runCli(['auth', 'login', '--insecure-storage', '--base-url', sb.baseUrl], { env, input: sb.secretKey });
  assert.equal(full.code, 0, full.stderr);
  assert.doesNotMatch(full.stderr, /cannot write/);
  assert.match(full.stderr, /read: yes; write: yes/);

  const all = await runCli(['auth', 'status', '--all', '--json'], { env });
  assert.equal(all.code, 0, all.stderr);
  const byName = Object.fromEntries(all.stdout.trim().split('\n').map((l) => JSON.parse(l)).map((s) => [s.profile, s]));
  assert.deepEqual(Object.keys(byName).sort(), ['default', 'reader']);
  assert.deepEqual([byName.reader.read, byName.reader.write], [true, false]);
  assert.deepEqual([byName.default.read, byName.default.write], [true, true]);
  assert.equal(JSON.stringify([sb.contacts(), sb.calls()]), before, 'the checks changed nothing on the service');
});

test('auth status: exit 3 when the key is refused or missing; the key never printed', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const wrong = `sk_live_${'0'.repeat(30)}`;
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { baseUrl: sb.baseUrl, apiKey: wrong }, empty: { baseUrl: sb.baseUrl } } }), { mode: 0o600 });
  const refused = await runCli(['auth', 'status', '--json'], { env: { CALLCTL_CONFIG_DIR: dir } });
  assert.equal(refused.code, 3, refused.stderr);
  const s = JSON.parse(refused.stdout);
  assert.deepEqual([s.storage, s.ok, s.status, s.key], ['file', false, 401, 'sk_live_…0000']);
  assert.match(s.error, /refused the key \(401/);
  assert.ok(!refused.stdout.includes(wrong) && !refused.stderr.includes(wrong));
  const missing = await runCli(['auth', 'status', '--profile', 'empty'], { env: { CALLCTL_CONFIG_DIR: dir } });
  assert.equal(missing.code, 3);
  assert.match(missing.stdout, /key +\(none\)/);
  assert.match(missing.stdout, /works +no: no API key/);
});

test('profile names are plain words: __proto__, constructor, prototype and path characters are exit 2, nothing saved', async (t) => {
  const dir = tempDir(t);
  const env = { CALLCTL_CONFIG_DIR: dir };
  for (const name of ['__proto__', 'constructor', 'prototype', '../x', 'a/b', 'a\\b', '.hidden', '']) {
    const r = await runCli(['login', '--no-verify', '--profile', name, '--base-url', 'https://api.example.com/api/v1'], { env, input: `sk_live_${'n'.repeat(20)}` });
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, /^callctl: profile name .* \(--profile\) is /);
    assert.doesNotMatch(r.stderr, /saved|logged in/);
  }
  const fromEnv = await runCli(['config', 'set', 'country', 'GB'], { env: { ...env, CALLCTL_PROFILE: '__proto__' } });
  assert.equal(fromEnv.code, 2);
  assert.match(fromEnv.stderr, /\(CALLCTL_PROFILE\)/);
  assert.throws(() => statSync(join(dir, 'config.json')), /ENOENT/, 'nothing was written');
  assert.equal((await runCli(['config', 'set', 'country', 'GB', '--profile', 'eu-staging_2'], { env })).code, 0, 'a plain name works');
});

test('profile values of the wrong type are named with their profile; config set|unset mends them', async (t) => {
  const dir = tempDir(t);
  const env = { CALLCTL_CONFIG_DIR: dir, CALLCTL_BASE_URL: 'http://127.0.0.1:9/api/v1' };
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ apiKey: 12345678901 }, /apiKey in profile "default" \(.*config\.json\) is a number: it must be a secret key/],
    [{ rate: 'fast' }, /rate in profile "default" \(.*\) is "fast": it must be a number of requests per second above 0 \(fix it with callctl config set rate/],
    [{ concurrency: '8' }, /concurrency in profile "default" \(.*\) is "8": it must be an integer from 1 to 64/],
    [{ country: 44 }, /country in profile "default" .* is 44/],
    [{ keychain: 'login' }, /keychain in profile "default" .* is a string/],
  ];
  for (const [profile, message] of cases) {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { ...profile } } }));
    const r = await runCli(['contacts', 'ls'], { env: { ...env, CALLCTL_API_KEY: `sk_live_${'v'.repeat(20)}` } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, message);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.doesNotMatch(r.stderr, /is not a function|Impossible|TypeError/);
  }
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { rate: 'fast', concurrency: 2 } } }));
  assert.equal((await runCli(['config', 'set', 'rate', '5'], { env })).code, 0);
  assert.deepEqual(profileOf(dir), { rate: 5, concurrency: 2 });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { concurrency: 'x' } } }));
  assert.equal((await runCli(['config', 'unset', 'concurrency'], { env })).code, 0);
  assert.equal((await runCli(['config', 'list'], { env })).code, 0);
});

test('a read-only config folder is said to be read-only (permission, and a read-only file system)', async (t) => {
  const dir = tempDir(t);
  const folder = join(dir, 'config');
  spawnSync('mkdir', ['-m', '755', folder]);
  chmodSync(dir, 0o755);
  chmodSync(folder, 0o555);
  // Root writes anywhere: when the tests run as root, the permission case runs as root without the
  // capabilities that pass over file modes (not as another user, who may not reach this Node binary).
  const asRoot = process.getuid?.() === 0;
  const spawnAs = (args: string[], extra: Record<string, string> = {}) => {
    const env = { PATH: process.env.PATH, HOME: dir, NODE_DISABLE_COMPILE_CACHE: '1', CALLCTL_CONFIG_DIR: folder, ...extra };
    const input = `sk_live_${'r'.repeat(20)}\n`;
    return asRoot
      ? spawnSync('setpriv', ['--bounding-set', '-dac_override,-dac_read_search', '--', process.execPath, BIN, ...args], { input, env, encoding: 'utf8' })
      : spawnSync(process.execPath, [BIN, ...args], { input, env, encoding: 'utf8' });
  };
  const probe = spawnAs(['--version']);
  if (probe.status !== 0) return t.skip(`the CLI cannot run without the root capabilities here: ${probe.error?.message ?? probe.stderr?.trim()}`);
  for (const args of [['config', 'set', 'country', 'GB'], ['login', '--no-verify', '--base-url', 'https://api.example.com/api/v1'], ['config', 'set', 'country', 'GB', '--profile', 'x']]) {
    const r = spawnAs(args);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^callctl: cannot write ${folder}/config\\.json: ${folder} is read-only for this user \\(permission denied\\) \\(set CALLCTL_CONFIG_DIR`));
    assert.doesNotMatch(r.stderr, /ENOENT/);
  }
  const sub = spawnAs(['config', 'set', 'country', 'GB'], { CALLCTL_CONFIG_DIR: join(folder, 'new', 'deeper') });
  assert.equal(sub.status, 1, sub.stderr);
  assert.match(sub.stderr, /is read-only for this user/);

  // A read-only file system: a tmpfs mounted read-only in a mount namespace of the child's own.
  const mountable = spawnSync('unshare', ['-rm', 'sh', '-c', `mount -t tmpfs -o ro,size=1m tmpfs ${folder}`], { encoding: 'utf8' });
  if (mountable.status !== 0) return t.skip(`no mount namespace here for a read-only file system: ${mountable.stderr.trim()}`);
  const ro = spawnSync('unshare', ['-rm', 'sh', '-c', `mount -t tmpfs -o ro,size=1m tmpfs "$1" && exec "$2" "$3" config set country GB`, 'sh', folder, process.execPath, BIN], {
    env: { PATH: process.env.PATH, HOME: dir, NODE_DISABLE_COMPILE_CACHE: '1', CALLCTL_CONFIG_DIR: folder },
    encoding: 'utf8',
  });
  assert.equal(ro.status, 1, ro.stderr);
  assert.match(ro.stderr, new RegExp(`^callctl: cannot write ${folder}/config\\.json: ${folder} is on a read-only file system`));
  // With a keychain: the key reached it before the profile could not be written — and is taken back.
  const ss = await secretService();
  if (!('env' in ss)) return;
  const login = spawnSync('unshare', ['-rm', 'sh', '-c', `mount -t tmpfs -o ro,size=1m tmpfs "$1" && exec "$2" "$3" login --no-verify --base-url https://api.example.com/api/v1`, 'sh', folder, process.execPath, BIN], {
    env: { PATH: process.env.PATH, HOME: dir, NODE_DISABLE_COMPILE_CACHE: '1', CALLCTL_CONFIG_DIR: folder, ...ss.env },
    input: `sk_live_${'k'.repeat(20)}`,
    encoding: 'utf8',
  });
  assert.equal(login.status, 1, login.stderr);
  assert.match(login.stderr, /read-only file system/);
  assert.equal(lookup(ss.env.DBUS_SESSION_BUS_ADDRESS, `callctl:${folder}`, 'default'), undefined, 'no keychain entry left that nothing points at');
});
