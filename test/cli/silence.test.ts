// No silent waits: a retried request says so on stderr from its second attempt (not under -q),
// a refused connection to a loopback host fails at once, and `callctl` alone prints its help
// with the usage exit code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { runCli, tempDir } from '../helpers/cli.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';

const KEY = `sk_live_${'s'.repeat(24)}`;

test('a retried request prints "retrying (2/6)…" lines on stderr, none under -q', async (t) => {
  let failing = 0;
  const server = await scriptedServer(t, (_hit, res) => {
    if (failing > 0) {
      failing -= 1;
      return json(res, 503, { error: { message: 'busy' } });
    }
    json(res, 200, { data: [{ id: 'ct_1', phone: '+447700900001' }] });
  });
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) };
  failing = 2;
  const r = await runCli(['contacts', 'ls'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^callctl: server error 503 on GET \/contacts; retrying \(2\/6\)…$/m);
  assert.match(r.stderr, /^callctl: server error 503 on GET \/contacts; retrying \(3\/6\)…$/m);
  assert.doesNotMatch(r.stderr, /retrying \(4\/6\)/);
  assert.match(r.stdout, /ct_1/);
  failing = 2;
  const quiet = await runCli(['-q', 'contacts', 'ls'], { env });
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stderr, '');
});

test('a refused connection to a loopback host fails at once: one line, exit 1, no retries', async (t) => {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  const r = await runCli(['contacts', 'ls'], { env: { CALLCTL_BASE_URL: `http://127.0.0.1:${port}/api/v1`, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`^callctl: cannot reach 127\\.0\\.0\\.1:${port}: connection refused \\(GET /contacts\\) \\(nothing listens on that port`));
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /retrying/);
});

test('callctl with no arguments prints the help on stderr and exits 2, as a group alone does', async () => {
  for (const args of [[], ['contacts']]) {
    const r = await runCli(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, /^Usage: callctl/m, args.join(' '));
    assert.equal(r.stdout, '');
  }
});
