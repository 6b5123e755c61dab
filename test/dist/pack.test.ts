// The package users install: `npm pack` the built tree, install the tarball into a clean folder
// (--omit=dev: only what the package declares, which is nothing — every library is bundled into
// dist/), and use the installed `callctl` the way an operator does — the help of every command,
// version, and real work against a sandbox that the installed package itself starts, on the path
// of each bundled library. Also: the tarball holds what runs and nothing else.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/cli.js';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'callctl-pack-'));
const app = join(work, 'app');
const bin = join(app, 'node_modules/.bin/callctl');
// The user's environment (npm needs its proxy and CA settings to reach the registry), without the
// npm_* of the `npm test` that runs us and without the developer's CALLCTL_*.
const env: Record<string, string> = { NO_COLOR: '1', LANG: 'C.UTF-8', CALLCTL_CONFIG_DIR: join(work, 'config') };
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(npm_|CALLCTL_)/i.test(k) && !(k in env)) env[k] = v;
// npm can hang on a registry it cannot reach: fail the test instead.
const NPM = { env, maxBuffer: 1 << 24, timeout: 110_000, killSignal: 'SIGKILL' as const };
let files: string[] = [];

before(async () => {
  // dist/ is already built (`npm test` builds first): no prepare here, it would rebuild dist/
  // under the tests running beside this one.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { ...NPM, cwd: ROOT });
  const [info] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  files = info!.files.map((f) => f.path);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name":"callctl-pack-test","private":true}\n');
  await run('npm', ['install', '--no-audit', '--no-fund', '--omit=dev', join(work, info!.filename)], { ...NPM, cwd: app });
});
after(() => rmSync(work, { recursive: true, force: true }));

function callctl(args: string[], extra: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(bin, args, { cwd: app, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
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
  // Only the runtime dependencies were installed: no compiler, no bundler, no test runner.
  for (const dev of ['typescript', 'tsx', 'esbuild']) assert.ok(!existsSync(join(app, 'node_modules', dev)), `${dev} installed`);
  // Every library is bundled into dist/: the package declares none, so a user downloads none.
  assert.equal(pkg.dependencies, undefined);
  assert.deepEqual(
    readdirSync(join(app, 'node_modules')).filter((f) => !f.startsWith('.')),
    ['callctl'],
  );
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
