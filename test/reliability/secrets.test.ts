// The key: refused when it is the wrong kind or would travel in clear to a remote host, and
// never printed or written anywhere but the 0600 config file — --verbose and errors included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

test('a widget key, a key without sk_live_, and plain http to a remote host are refused before any request (exit 3)', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ CALLCTL_API_KEY: sb.widgetKey }, /widget key.*secret key \(sk_live_/i],
    [{ CALLCTL_API_KEY: 'not-a-key' }, /sk_live_/],
    [{ CALLCTL_API_KEY: sb.secretKey, CALLCTL_BASE_URL: 'http://api.callctl.invalid/api/v1' }, /https/],
    [{ CALLCTL_API_KEY: '' }, /no (API |secret )?key/i],
  ];
  for (const [extra, message] of cases) {
    const r = await runCli(['contacts', 'ls'], { env: envFor(sb, t, extra) });
    assert.equal(r.code, 3, `${JSON.stringify(extra)}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /pk_live_[0-9a-f]{8}/, 'not even the widget key is echoed');
  }
  assert.equal(sb.stats().requests, 0, 'nothing reached the server');
});

test('the key appears in no output (--verbose, errors, import) and in no file but the 0600 config', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 5, burst: 2, seed: 3 });
  const work = tempDir(t);
  const env = envFor(sb, t, { CALLCTL_CONFIG_DIR: join(work, 'config') });
  copyFileSync(join(ROOT, 'fixtures/dirty.csv'), join(work, 'dirty.csv'));
  const runs = [
    await runCli(['--verbose', 'contacts', 'ls', '--all'], { env }),
    await runCli(['--verbose', 'contacts', 'get', 'missing'], { env }),
    await runCli(['--verbose', 'calls', 'outcome', 'call_00001', 'booked_job'], { env }),
    await runCli(['--verbose', 'import', join(work, 'dirty.csv'), '--json'], { env, cwd: work }),
    await runCli(['--verbose', 'login', '--base-url', sb.baseUrl], { env, input: sb.secretKey }),
    await runCli(['--verbose', 'config', 'list'], { env }),
    await runCli(['--verbose', 'config', 'get', 'apiKey'], { env }),
    await runCli(['--verbose', 'api', 'GET', '/contacts', '-f', `q=${sb.secretKey}`], { env }),
  ];
  const masked = `sk_live_…${sb.secretKey.slice(-4)}`;
  let sawMask = false;
  for (const r of runs) {
    assert.ok(!r.stdout.includes(sb.secretKey) && !r.stderr.includes(sb.secretKey), `key printed: ${r.stdout}${r.stderr}`);
    sawMask ||= r.stderr.includes(masked) || r.stdout.includes(masked);
  }
  assert.ok(sawMask, '--verbose shows the key masked');
  assert.match(runs[0]!.stderr, /→ GET \/api\/v1\/contacts/);
  const written = filesUnder(work);
  assert.ok(written.some((f) => f.endsWith('.rejects.csv')), 'the import wrote its rejects file');
  assert.ok(written.some((f) => f.includes('journals')), 'and its journal');
  for (const f of written) {
    const holds = readFileSync(f).toString('latin1').includes(sb.secretKey);
    if (f === join(work, 'config', 'config.json')) {
      assert.ok(holds, 'login stored the key');
      assert.equal(statSync(f).mode & 0o777, 0o600);
    } else assert.ok(!holds, `the key is in ${f}`);
  }
});
