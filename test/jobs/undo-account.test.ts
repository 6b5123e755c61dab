// Undo touches only the account that ran the import (docs/people.md, "What undo takes back"): two
// accounts behind one base URL, each numbering its contacts 1, 2, 3 — an undo run with the other
// account's key is refused (exit 2) before anything is sent; a record that does not say which key
// ran it is refused; a journal row without the digest undo checks (a line added by hand) is kept
// and named, never erased.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { accountsService } from '../helpers/accounts-service.js';

const A = `sk_live_${'a'.repeat(24)}`;
const B = `sk_live_${'b'.repeat(24)}`;

async function twoImports(t: { after(fn: () => unknown): void }) {
  const svc = await accountsService(t, [A, B]);
  const dir = tempDir(t);
  const config = tempDir(t);
  const file = join(dir, 'leads.csv');
  writeFileSync(file, 'First Name,Phone\nAda,+447400100001\nBea,+447400100002\nCai,+447400100003\n');
  const env = (key: string) => ({ CALLCTL_BASE_URL: svc.baseUrl, CALLCTL_API_KEY: key, CALLCTL_CONFIG_DIR: config });
  const jobs: string[] = [];
  for (const key of [A, B]) {
    const r = await runCli(['import', file, '--json'], { env: env(key), cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).created, 3);
    const ls = await runCli(['jobs', 'ls', '--json'], { env: env(key) });
    jobs.push((JSON.parse(ls.stdout) as Array<{ id: string }>).find((j) => !jobs.includes(j.id))!.id);
  }
  const ids = (key: string) => svc.contacts(key).map((c) => c.id);
  assert.deepEqual([ids(A), ids(B)], [['1', '2', '3'], ['1', '2', '3']]);
  return { svc, dir, config, env, ids, jobA: jobs[0] as string, jobB: jobs[1] as string };
}

test("an undo with another account's key is refused before anything is sent; with the import's own key it erases that account's contacts only", async (t) => {
  const { env, ids, jobA } = await twoImports(t);
  const other = await runCli(['import', 'undo', jobA, '--confirm'], { env: env(B) });
  assert.equal(other.code, 2, other.stderr);
  assert.match(other.stderr, /callctl: job [0-9a-f]+ ran with another key than the one in effect \(undo it with the key it ran with/);
  assert.deepEqual([ids(A), ids(B)], [['1', '2', '3'], ['1', '2', '3']], 'nothing erased in either account');

  const own = await runCli(['import', 'undo', jobA, '--confirm', '--json'], { env: env(A) });
  assert.equal(own.code, 0, own.stderr);
  assert.equal(JSON.parse(own.stdout).erased, 3);
  assert.deepEqual([ids(A), ids(B)], [[], ['1', '2', '3']]);
});

test('a record that does not say which key or base URL ran the import is refused; a row without the digest undo checks is kept and named', async (t) => {
  const { svc, env, ids, config, jobB } = await twoImports(t);
  const journals = join(config, 'journals');
  const journalOf = (id: string) => join(journals, readdirSync(journals).find((n) => readFileSync(join(journals, n), 'utf8').startsWith(`{"job":"${id}"`))!);
  const path = journalOf(jobB);
  const original = readFileSync(path, 'utf8');
  const [head, ...rest] = original.split('\n');
  for (const drop of ['key', 'baseUrl']) {
    const { [drop]: _dropped, ...header } = JSON.parse(head!);
    writeFileSync(path, [JSON.stringify(header), ...rest].join('\n'));
    const r = await runCli(['import', 'undo', jobB, '--confirm'], { env: env(B) });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`record does not say which ${drop === 'key' ? 'key' : 'base URL'} ran it`));
    assert.deepEqual(ids(B), ['1', '2', '3']);
  }
  writeFileSync(path, original);

  // Someone else's contact in account B, and two lines added by hand: a row "created" with its id, no digest.
  const r4 = await fetch(`${svc.baseUrl}/contacts`, { method: 'POST', headers: { authorization: `Bearer ${B}`, 'content-type': 'application/json' }, body: JSON.stringify({ firstName: 'Dee', phone: '+447400100004' }) });
  assert.equal(r4.status, 201);
  appendFileSync(path, '{"r":9,"d":{"id":"4","line":9}}\n{"r":9,"s":"created"}\n');
  const undo = await runCli(['import', 'undo', jobB, '--confirm', '--json'], { env: env(B) });
  assert.equal(undo.code, 0, undo.stderr);
  assert.match(undo.stderr, /kept contact 4 \(line 9\): its journal row holds no digest of what the import wrote/);
  const s = JSON.parse(undo.stdout);
  assert.deepEqual([s.erased, s.kept], [3, 1]);
  assert.deepEqual(ids(B), ['4'], "the import's three erased, the other kept");
});
