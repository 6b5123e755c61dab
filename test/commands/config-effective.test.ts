// `config list` / `config get` show the value in effect — the one commands use — and where it
// comes from: flag, env, profile or default. The key is masked everywhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, tempDir } from '../helpers/cli.js';
import { startTestSandbox } from '../helpers/sandbox.js';

test('with CALLCTL_BASE_URL and CALLCTL_API_KEY set, config list shows them (env) — the target commands really use', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const dir = tempDir(t);
  const stored = `sk_live_${'p'.repeat(20)}PROF`;
  assert.equal((await runCli(['login', '--no-verify', '--base-url', 'https://api.example.com/api/v1'], { env: { CALLCTL_CONFIG_DIR: dir }, input: `${stored}\n` })).code, 0);
  assert.equal((await runCli(['config', 'set', 'country', 'GB'], { env: { CALLCTL_CONFIG_DIR: dir } })).code, 0);

  const plain = await runCli(['config', 'list'], { env: { CALLCTL_CONFIG_DIR: dir } });
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^baseUrl=https:\/\/api\.example\.com\/api\/v1\s+\(profile "default"\)$/m);
  assert.match(plain.stdout, /^apiKey=sk_live_…PROF\s+\(profile "default"\)$/m);
  assert.match(plain.stdout, /^country=GB\s+\(profile "default"\)$/m);
  assert.match(plain.stdout, /^concurrency=4\s+\(default\)$/m);

  const env = { CALLCTL_CONFIG_DIR: dir, CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey };
  const list = await runCli(['config', 'list'], { env });
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, new RegExp(`^baseUrl=${sb.baseUrl.replace(/[.]/g, '\\.')}\\s+\\(env CALLCTL_BASE_URL\\)$`, 'm'));
  assert.match(list.stdout, new RegExp(`^apiKey=sk_live_…${sb.secretKey.slice(-4)}\\s+\\(env CALLCTL_API_KEY\\)$`, 'm'));
  assert.ok(!list.stdout.includes(sb.secretKey) && !list.stderr.includes(sb.secretKey), 'the key is masked');
  assert.ok(!list.stdout.includes(stored), 'the stored key is not shown either');
  // What list shows is what a command uses: the sandbox answers.
  assert.equal((await runCli(['contacts', 'ls'], { env })).code, 0);

  const flag = await runCli(['--base-url', 'http://127.0.0.1:1/api/v1', '--rate', '5', 'config', 'list', '--json'], { env });
  assert.equal(flag.code, 0, flag.stderr);
  const j = JSON.parse(flag.stdout);
  assert.equal(j.baseUrl, 'http://127.0.0.1:1/api/v1');
  assert.equal(j.rate, 5);
  assert.equal(j.apiKey, `sk_live_…${sb.secretKey.slice(-4)}`);
  assert.deepEqual(j.sources, { baseUrl: 'flag --base-url', apiKey: 'env CALLCTL_API_KEY', country: 'profile "default"', rate: 'flag --rate', concurrency: 'default' });

  const get = await runCli(['config', 'get', 'baseUrl'], { env });
  assert.equal(get.stdout, `${sb.baseUrl}\n`);
  assert.match(get.stderr, /from env CALLCTL_BASE_URL/);
  const key = await runCli(['config', 'get', 'apiKey', '--json'], { env });
  assert.deepEqual(JSON.parse(key.stdout), { key: 'apiKey', value: `sk_live_…${sb.secretKey.slice(-4)}`, source: 'env CALLCTL_API_KEY' });

  const set = await runCli(['config', 'set', 'baseUrl', 'https://b.example.com/api/v1'], { env });
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stderr, /env CALLCTL_BASE_URL takes precedence over the profile/);
});

test('config: an output format it cannot print is exit 2 (set --format csv, list --format csv)', async (t) => {
  const dir = tempDir(t);
  const env = { CALLCTL_CONFIG_DIR: dir };
  const set = await runCli(['config', 'set', 'country', 'GB', '--format', 'csv'], { env });
  assert.equal(set.code, 2);
  assert.match(set.stderr, /^callctl: --format csv does not apply to callctl config set: it prints nothing on stdout \(leave it out\)$/m);
  assert.equal((await runCli(['config', 'get', 'country'], { env })).stdout, '', 'nothing was set');
  const list = await runCli(['config', 'list', '--format', 'csv'], { env });
  assert.equal(list.code, 2);
  assert.match(list.stderr, /use --format table or --format json/);
  assert.equal((await runCli(['config', 'list', '--json'], { env })).code, 0);
});
