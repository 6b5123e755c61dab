// The package users install: `npm pack` the built tree, install the tarball into a clean folder
// (--omit=dev: only what the package declares — the keychain binding, @napi-rs/keyring, with its
// prebuilt package for this platform; every other library is bundled into dist/), and use the
// installed `callctl` the way an operator does — the help of every command, version, and real
// work against a sandbox that the installed package itself starts, on the path of each bundled
// library; `auth login` and `auth status` with the binding, and without it (its platform package
// removed, as on a platform it has none for). Also: the tarball holds what runs and nothing else.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/cli.js';
import { secretService } from '../helpers/keychain.js';
import { startTestSandbox } from '../helpers/sandbox.js';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'callctl-pack-'));
const app = join(work, 'app');
const bin = join(app, 'node_modules/.bin/callctl');
// The user's environment (npm needs its proxy and CA settings to reach the registry), without the
// npm_* of the `npm test` that runs us, without the developer's CALLCTL_* and D-Bus session (a
// test hands its own Secret Service where it wants one).
const env: Record<string, string> = { NO_COLOR: '1', LANG: 'C.UTF-8', CALLCTL_CONFIG_DIR: join(work, 'config') };
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(npm_|CALLCTL_|DBUS_SESSION_BUS_ADDRESS$)/i.test(k) && !(k in env)) env[k] = v;
// npm can hang on a registry it cannot reach: fail the test instead.
const NPM = { env, maxBuffer: 1 << 24, timeout: 110_000, killSignal: 'SIGKILL' as const };
let files: string[] = [];
let installLog = '';

before(async () => {
  // dist/ is already built (`npm test` builds first). The package is packed from a copy of what
  // ships (bin, dist, package.json, README) with npm's scripts on — prepack/postpack
  // (scripts/manifest.mjs) take `prepare` out of the packed package.json — so nothing here
  // rebuilds dist/ under the tests running beside this one, nor touches the checkout's files.
  const copy = join(work, 'checkout');
  mkdirSync(join(copy, 'scripts'), { recursive: true });
  for (const d of ['bin', 'dist']) cpSync(join(ROOT, d), join(copy, d), { recursive: true });
  for (const f of ['package.json', 'README.md', 'scripts/manifest.mjs']) copyFileSync(join(ROOT, f), join(copy, f));
  const before = readFileSync(join(copy, 'package.json'), 'utf8');
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { ...NPM, cwd: copy });
  assert.equal(readFileSync(join(copy, 'package.json'), 'utf8'), before, 'postpack puts package.json back as it was');
  const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  files = info!.files.map((f) => f.path);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name":"callctl-pack-test","private":true}\n');
  const installed = await run('npm', ['install', '--no-audit', '--no-fund', '--omit=dev', join(work, info!.filename)], { ...NPM, cwd: app });
  installLog = installed.stdout + installed.stderr;
});
after(() => rmSync(work, { recursive: true, force: true }));

function callctl(args: string[], extra: Record<string, string> = {}, input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(bin, args, { cwd: app, env: { ...env, ...extra }, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

test('the tarball holds what runs: bin, dist, package.json, README — no sources, tests, fixtures or CI', () => {
  assert.ok(files.includes('bin/callctl.js'));
  assert.ok(files.includes('dist/main.cjs'));
  assert.ok(files.includes('package.json'));
  const stray = files.filter((f) => !/^(bin\/(callctl\.js|package\.json)|dist\/.+\.c?js(\.map)?|package\.json|README\.md|LICENSE)$/.test(f));
  assert.deepEqual(stray, []);
});

test('package.json: the bin, the engines, the files', () => {
  const pkg = JSON.parse(readFileSync(join(app, 'node_modules/callctl/package.json'), 'utf8'));
  assert.deepEqual(pkg.bin, { callctl: 'bin/callctl.js' });
  assert.equal(pkg.engines.node, '>=20.18.1');
  // No install script: npm 11 warns of one its allowScripts does not cover, npm 12 blocks it; the
  // checkout's `prepare` (which builds dist/ on a checkout's npm install) is not shipped.
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(pkg.scripts?.[hook], undefined, hook);
  assert.doesNotMatch(installLog, /install-scripts|allowScripts/);
  // Only the runtime dependencies were installed: no compiler, no bundler, no test runner.
  for (const dev of ['typescript', 'tsx', 'esbuild']) assert.ok(!existsSync(join(app, 'node_modules', dev)), `${dev} installed`);
  // Every library but the native keychain binding is bundled into dist/: the package declares that
  // one alone, and npm installs it with its prebuilt package for this platform (no compiler).
  assert.deepEqual(pkg.dependencies, { '@napi-rs/keyring': JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).dependencies['@napi-rs/keyring'] });
  assert.deepEqual(
    readdirSync(join(app, 'node_modules')).filter((f) => !f.startsWith('.')),
    ['@napi-rs', 'callctl'],
  );
  const napi = readdirSync(join(app, 'node_modules', '@napi-rs'));
  assert.ok(napi.includes('keyring'), napi.join(', '));
  assert.ok(napi.some((p) => p.startsWith(`keyring-${process.platform}-${process.arch}`)), `a prebuilt binding for ${process.platform}-${process.arch}: ${napi.join(', ')}`);
});

/** The commands listed under "Commands:" in a help text (without `help`). */
function commandsIn(help: string): string[] {
  const section = (help.split('\nCommands:\n')[1] ?? '').split('\n\n')[0]!;
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
}

test('the installed callctl: --help of every command and verb', async () => {
  const top = await callctl(['--help']);
  const groups = commandsIn(top.stdout);
  assert.ok(groups.length >= 8, top.stdout);
  let seen = 0;
  for (const group of groups) {
    const help = await callctl([group, '--help']);
    assert.equal(help.code, 0, `${group}: ${help.stderr}`);
    assert.match(help.stdout, new RegExp(`^Usage: callctl ${group}\\b`));
    for (const verb of commandsIn(help.stdout)) {
      const v = await callctl([group, verb, '--help']);
      assert.equal(v.code, 0, `${group} ${verb}: ${v.stderr}`);
      assert.match(v.stdout, new RegExp(`^Usage: callctl ${group} ${verb}\\b`));
      seen++;
    }
  }
  assert.ok(seen >= 10, `${seen} verbs`);
});

test('the installed callctl: --version, --help, contacts --help', async () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const version = await callctl(['--version']);
  assert.deepEqual(version, { code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  const help = await callctl(['--help']);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: callctl \[options\] \[command\]/);
  assert.match(help.stdout, /\n  contacts\b/);
  const contacts = await callctl(['contacts', '--help']);
  assert.equal(contacts.code, 0, contacts.stderr);
  assert.match(contacts.stdout, /^Usage: callctl contacts/);
  assert.match(contacts.stdout, /\n  ls\b/);
});

test('the installed callctl does real work: its own sandbox, then contacts ls against it', async (t) => {
  const sandbox = spawn(bin, ['sandbox', '--port', '0', '--seed', '3', '--json'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => sandbox.kill('SIGTERM'));
  let errors = '';
  sandbox.stderr.setEncoding('utf8').on('data', (d: string) => (errors += d));
  const line = await new Promise<string>((done, fail) => {
    let buf = '';
    sandbox.stdout.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      if (buf.includes('\n')) done(buf.slice(0, buf.indexOf('\n')));
    });
    sandbox.on('close', (code) => fail(new Error(`sandbox ended (${code}): ${errors}`)));
  });
  const { baseUrl, secretKey } = JSON.parse(line) as { baseUrl: string; secretKey: string };
  assert.match(baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
  const ls = await callctl(['contacts', 'ls', '--json'], { CALLCTL_BASE_URL: baseUrl, CALLCTL_API_KEY: secretKey });
  assert.equal(ls.code, 0, ls.stderr);
  const contacts = JSON.parse(ls.stdout) as { id: string }[];
  assert.equal(contacts.length, 3);
  const csv = await callctl(['contacts', 'ls', '--format', 'csv'], { CALLCTL_BASE_URL: baseUrl, CALLCTL_API_KEY: secretKey });
  assert.equal(csv.code, 0, csv.stderr);
  assert.equal(csv.stdout.trim().split('\n').length, 4, csv.stdout);

  // Each bundled library on the path that loads it, from the tarball alone: the table
  // (cli-table3), a shared budget whose Redis is not there (ioredis), CSV and .xlsx imports
  // (csv-parse, iconv-lite, exceljs, libphonenumber-js, csv-stringify), a profile written (conf).
  const api = { CALLCTL_BASE_URL: baseUrl, CALLCTL_API_KEY: secretKey };
  const table = await callctl(['contacts', 'ls', '--redis-url', 'redis://127.0.0.1:1'], api);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^ID +First/);
  assert.match(table.stderr, /Redis .*unreachable/);
  for (const name of ['outlook.csv', 'leads.xlsx']) copyFileSync(join(ROOT, 'fixtures', name), join(work, name));
  const csvImport = await callctl(['import', join(work, 'outlook.csv'), '--dry-run', '--country', 'US'], api);
  assert.equal(csvImport.code, 0, csvImport.stderr);
  assert.match(csvImport.stderr, /valid +5/);
  const xlsxImport = await callctl(['import', join(work, 'leads.xlsx'), '--dry-run', '--country', 'GB'], api);
  assert.ok(xlsxImport.code === 0 || xlsxImport.code === 6, xlsxImport.stderr);
  assert.match(xlsxImport.stderr, /valid +4/);
  const set = await callctl(['config', 'set', 'country', 'GB']);
  assert.equal(set.code, 0, set.stderr);
  const get = await callctl(['config', 'get', 'country']);
  assert.equal(get.code, 0, get.stderr);
  assert.match(get.stdout, /GB/);
});

// Last: it removes the binding's platform package from the installed app.
test('the installed callctl: auth login and auth status with the keychain binding, and without it (a one-line fallback, never a failure to start)', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  // The test's own Secret Service where one can be started (helpers/keychain.ts), else the file.
  const ss = await secretService();
  const expected = 'env' in ss ? 'keychain' : 'file';
  const withBinding = { CALLCTL_CONFIG_DIR: join(work, 'auth-config'), ...('env' in ss ? ss.env : {}) };
  if ('env' in ss) t.after(() => spawn('secret-tool', ['clear', 'service', `callctl:${withBinding.CALLCTL_CONFIG_DIR}`], { env: { ...env, ...ss.env }, stdio: 'ignore' }));
  const login = await callctl(['auth', 'login', '--base-url', sb.baseUrl], withBinding, `${sb.secretKey}\n`);
  assert.equal(login.code, 0, login.stderr);
  const status = await callctl(['auth', 'status', '--json'], withBinding);
  assert.equal(status.code, 0, status.stderr);
  assert.deepEqual([JSON.parse(status.stdout).storage, JSON.parse(status.stdout).ok], [expected, true], `${status.stdout} (${'reason' in ss ? ss.reason : 'Secret Service reachable'})`);

  for (const p of readdirSync(join(app, 'node_modules', '@napi-rs')).filter((p) => p.startsWith('keyring-'))) rmSync(join(app, 'node_modules', '@napi-rs', p), { recursive: true });
  const without = { CALLCTL_CONFIG_DIR: join(work, 'auth-config-2') };
  const help = await callctl(['auth', '--help'], without);
  assert.equal(help.code, 0, help.stderr);
  const fallback = await callctl(['auth', 'login', '--base-url', sb.baseUrl], without, sb.secretKey);
  assert.equal(fallback.code, 0, fallback.stderr);
  const lines = fallback.stderr.split('\n').filter((l) => /keychain library cannot be loaded/.test(l));
  assert.equal(lines.length, 1, fallback.stderr);
  assert.match(lines[0]!, /the key is kept in .*config\.json \(0600\) instead/);
  const after = await callctl(['auth', 'status', '--json'], without);
  assert.equal(after.code, 0, after.stderr);
  assert.equal(JSON.parse(after.stdout).storage, 'file');
  assert.equal((await callctl(['contacts', 'ls'], without)).code, 0);
});
