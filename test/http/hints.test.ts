// Hints that fit the case (docs/network.md, "Hints"): a 404 on a list is a wrong path or base URL, not a wrong
// id; a 404 on a record is a wrong id; a base URL of another API version is pointed at /api/v1,
// never at …/api/v2/api/v1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, tempDir } from '../helpers/cli.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';

const KEY = `sk_live_${'h'.repeat(24)}`;

test('a 404 on a list says the path or base URL is wrong; on a record, the id', async (t) => {
  const server = await scriptedServer(t, (_hit, res) => json(res, 404, { error: { message: 'no such path' } }));
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) };
  const ls = await runCli(['contacts', 'ls'], { env });
  assert.equal(ls.code, 4);
  assert.equal(ls.stderr, 'callctl: not found (404) on GET /contacts: no such path (nothing answers at this path: check --base-url or CALLCTL_BASE_URL, which ends in /api/v1)\n');
  const get = await runCli(['contacts', 'get', 'c_9'], { env });
  assert.equal(get.code, 4);
  assert.match(get.stderr, /\(check the id\)\n$/);
  const api = await runCli(['api', 'GET', '/voicemails'], { env });
  assert.equal(api.code, 4);
  assert.match(api.stderr, /\(check the path, which is under the base URL, and --base-url or CALLCTL_BASE_URL, which ends in \/api\/v1\)/);
});

test('a base URL of another version, or an endpoint, is pointed at /api/v1', async (t) => {
  const cases: Array<[string, string]> = [
    ['https://api.example.com/api/v2', 'https://api.example.com/api/v1'],
    ['https://api.example.com/v3', 'https://api.example.com/api/v1'],
    ['https://api.example.com/api', 'https://api.example.com/api/v1'],
    ['https://api.example.com/api/v1/contacts', 'https://api.example.com/api/v1'],
    ['https://api.example.com/', 'https://api.example.com/api/v1'],
  ];
  for (const [given, meant] of cases) {
    const r = await runCli(['contacts', 'ls'], { env: { CALLCTL_BASE_URL: given, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) } });
    assert.equal(r.code, 2, given);
    assert.ok(r.stderr.endsWith(`(try ${meant})\n`), `${given}: ${r.stderr}`);
  }
});
