// `callctl api` paths are decoded and normalised before the /api/v1 guard (docs/commands/api.md): however a
// step out of the base is spelt — percent-encoded, encoded twice, with backslashes — it is refused,
// exit 2, and nothing reaches the server (a logging server on loopback counts what arrives).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, tempDir } from '../helpers/cli.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';

const KEY = `sk_live_${'a'.repeat(24)}`;

test('a path that leaves /api/v1 in any spelling is refused and nothing is sent', async (t) => {
  const server = await scriptedServer(t, (_hit, res) => json(res, 200, { ok: true }));
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) };
  for (const path of ['/%2e%2e/%2e%2e/admin/x', '/%2E%2E/admin', '/..%2f..%2fadmin/x', '/contacts/%252e%252e/%252e%252e/admin', '/..\\..\\admin', '/contacts/%2e', '/./contacts']) {
    const r = await runCli(['api', 'GET', path], { env });
    assert.equal(r.code, 2, `${path}: ${r.stderr}`);
    assert.match(r.stderr, /leaves the API base/, path);
  }
  assert.deepEqual(server.hits.map((h) => h.url), [], 'the key went nowhere');

  // Encoded characters that are no step out still go, as given.
  const ok = await runCli(['api', 'GET', '/contacts/a%20b', '--json'], { env });
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(server.hits.map((h) => h.url), ['/api/v1/contacts/a%20b']);
});
