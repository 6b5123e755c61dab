// A request typed on the command line (`rm --phone`, `rm --email`) reads no file: it keeps no
// journal, and a DELETE the server refuses is shown with the server's reason — never written to a
// rejects file beside an input there is not (a `stdin.rejects.csv` in the working folder).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { runCli, tempDir } from '../helpers/cli.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';

test('rm --phone --confirm refused by the server: the reason on stderr, exit 6, no rejects file and no journal written', async (t) => {
  const contact = { id: 'c1', firstName: 'Ada', phone: '+447911123456' };
  const server = await scriptedServer(t, (hit, res) => {
    if (hit.method === 'GET') return json(res, 200, { data: [contact], pagination: { page: 1, limit: 100, total: 1, totalPages: 1 } });
    if (hit.method === 'DELETE') return json(res, 409, { message: 'the contact is on legal hold' });
    return json(res, 400, { message: 'unexpected' });
  });
  const cwd = tempDir(t);
  const config = tempDir(t);
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: `sk_live_${'n'.repeat(24)}`, CALLCTL_CONFIG_DIR: config };
  const r = await runCli(['contacts', 'rm', '--phone', '+44 7911 123456', '--confirm'], { env, cwd });
  assert.equal(r.code, 6, r.stderr);
  assert.match(r.stderr, /refused {5}refused by the server \(409\): the contact is on legal hold/);
  assert.doesNotMatch(r.stderr, /refusals →|rejects\.csv/);
  assert.deepEqual(readdirSync(cwd), [], 'nothing written in the working folder');
  assert.equal(server.hits.filter((h) => h.method === 'DELETE').length, 1);
  assert.ok(!readdirSync(config).includes('journals'), `no journal: ${readdirSync(config).join(', ')}`);
});
