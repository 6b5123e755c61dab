// A list that cannot be shown complete is said so, and an erasure writes no "found 0" on it
// (docs/people.md, "Reading a list whole"): a service whose pages end before the total it counts,
// and one whose total never holds still while it is read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { runMain } from '../helpers/in-process.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';

const KEY = `sk_live_${'l'.repeat(24)}`;
const contacts = Array.from({ length: 100 }, (_, i) => ({ id: `c${i + 1}`, phone: `+44 7400 200${String(i + 1).padStart(3, '0')}` }));

/** `total(n)`: the total the n-th list request says; pages hold the 100 contacts, 50 a page, then nothing. */
async function lister(t: { after(fn: () => unknown): void }, total: (n: number) => number) {
  let lists = 0;
  const server = await scriptedServer(t, (hit, res) => {
    const url = new URL(hit.url, 'http://x');
    if (hit.method === 'GET' && url.pathname.endsWith('/contacts')) {
      const page = Number(url.searchParams.get('page'));
      return json(res, 200, { data: contacts.slice((page - 1) * 50, page * 50), pagination: { page, limit: 50, total: total(++lists) } });
    }
    if (hit.method === 'DELETE') {
      res.writeHead(204).end();
      return;
    }
    json(res, 404, { error: { message: 'no route' } });
  });
  const dir = tempDir(t);
  return { dir, env: { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) }, hits: server.hits };
}

test('a list whose pages end before the total it counts is not taken for the whole: find says so, an erasure sends nothing and writes no receipt', async (t) => {
  const s = await lister(t, () => 120);
  const find = await runCli(['contacts', 'find', '--phone', '+44 7400 999999'], { env: s.env, cwd: s.dir });
  assert.equal(find.code, 1, find.stderr);
  assert.match(find.stderr, /callctl: \/contacts could not be read whole: it counts 120 items, but its pages ended after 100 \(nothing was concluded from a list read in part/);
  assert.doesNotMatch(find.stderr, /0 contacts of/);

  const file = join(s.dir, 'requests.txt');
  writeFileSync(file, '+44 7400 999999\n+44 7400 200007\n');
  const rm = await runMain(['contacts', 'rm', '--from', file, '--confirm'], { env: s.env, cwd: s.dir });
  assert.equal(rm.code, 1, rm.stderr);
  assert.match(rm.stderr, /could not be read whole/);
  assert.equal(s.hits.filter((h) => h.method === 'DELETE').length, 0);
  assert.ok(!existsSync(`${file}.erasures.jsonl`), 'no receipt at all');
});

test('a listing that never holds still: a request it found no one for is refused, not receipted "found 0"; the person it found is erased', async (t) => {
  const s = await lister(t, (n) => 100 + (n % 2));
  const file = join(s.dir, 'requests.txt');
  writeFileSync(file, '+44 7400 999999\n+44 7400 200007\n');
  const rm = await runMain(['contacts', 'rm', '--from', file, '--confirm', '--json'], { env: s.env, cwd: s.dir });
  assert.equal(rm.code, 6, rm.stderr);
  assert.match(rm.stderr, /the contacts changed while they were read \(3 readings\)/);
  const summary = JSON.parse(rm.stdout);
  assert.deepEqual([summary.erased, summary.notFound, summary.failed], [1, 0, 1]);
  const receipts = readFileSync(`${file}.erasures.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(receipts.map((r) => [r.request, r.id ?? `found ${r.found}`]), [[2, 'c7']]);
  assert.match(readFileSync(`${file}.rejects.csv`, 'utf8'), /found no one in a listing that changed while it was read: not recorded as found 0/);
});

test('a page handed back again while the envelope counts more is no end of the list: find and an erasure say it could not be read whole, and no "found 0" is written', async (t) => {
  // 120 contacts, 50 a page whatever is asked, {page, total}; page 2 is page 1 again (a cache, or a
  // service that ignores `page`): the 111th contact is never shown.
  const all = Array.from({ length: 120 }, (_, i) => ({ id: `c${i + 1}`, phone: `+44 7400 300${String(i + 1).padStart(3, '0')}` }));
  const server = await scriptedServer(t, (hit, res) => {
    const url = new URL(hit.url, 'http://x');
    if (hit.method === 'GET' && url.pathname.endsWith('/contacts')) return json(res, 200, { data: all.slice(0, 50), pagination: { page: Number(url.searchParams.get('page')), total: 120 } });
    json(res, 404, { error: { message: 'no route' } });
  });
  const dir = tempDir(t);
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) };
  const find = await runMain(['contacts', 'find', '--phone', '+44 7400 300111'], { env, cwd: dir });
  assert.equal(find.code, 1, find.stderr);
  assert.match(find.stderr, /callctl: \/contacts could not be read whole: it counts 120 items, but page 2 is page 1 again after 50/);
  assert.doesNotMatch(find.stdout + find.stderr, /0 contacts of/);

  const rm = await runMain(['contacts', 'rm', '--phone', '+44 7400 300111', '--confirm', '--receipts', join(dir, 'r.jsonl')], { env, cwd: dir });
  assert.equal(rm.code, 1, rm.stderr);
  assert.match(rm.stderr, /could not be read whole/);
  assert.ok(!existsSync(join(dir, 'r.jsonl')), 'no receipt at all');
});
