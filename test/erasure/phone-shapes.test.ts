// No other person matched, no person missed (docs/people.md): against a service whose contacts'
// phones come as the real one may return them — text with an extension written with any label
// libphonenumber knows, a JSON number, a list, an object with a number field, a `tel:` URI — find,
// rm (typed, --dry-run, --from), dupes and the import's preview read every number, never take one
// extension for another, name (never erase) a number with an extension where the other has none,
// and name in one line the contacts whose phone cannot be read at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { runMain } from '../helpers/in-process.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';

const KEY = `sk_live_${'s'.repeat(24)}`;

/** A service holding `contacts` (listed in one page, erased by DELETE), recording what it was sent. */
async function service(t: { after(fn: () => unknown): void }, contacts: Array<Record<string, unknown>>) {
  const held = contacts.map((c) => ({ ...c }));
  const server = await scriptedServer(t, (hit, res) => {
    const url = new URL(hit.url, 'http://x');
    const path = url.pathname.replace(/^\/api\/v1/, '');
    if (hit.method === 'GET' && path === '/contacts') {
      const page = Number(url.searchParams.get('page') ?? '1');
      return json(res, 200, { data: page === 1 ? held : [], pagination: { page, total: held.length } });
    }
    const one = /^\/contacts\/(.+)$/.exec(path);
    const at = one ? held.findIndex((c) => c.id === decodeURIComponent(one[1] as string)) : -1;
    if (one && at < 0) return json(res, 404, { error: { message: 'no such contact' } });
    if (one && hit.method === 'DELETE') {
      held.splice(at, 1);
      res.writeHead(204).end();
      return;
    }
    if (one) return json(res, 200, held[at]);
    json(res, 404, { error: { message: 'no route' } });
  });
  const dir = tempDir(t);
  return { held, dir, env: { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) }, deletes: () => server.hits.filter((h) => h.method === 'DELETE').map((h) => h.url.replace(/^.*\/contacts\//, '')) };
}

const SWITCHBOARD = [
  { id: 'sb12', firstName: 'Twelve', phone: '+44 20 7946 0958 extn 12' },
  { id: 'sb14', firstName: 'Fourteen', phone: '+44 20 7946 0958 int. 14' },
  { id: 'sb15', firstName: 'Fifteen', phone: '+44 20 7946 0958,,15' },
  { id: 'sb16', firstName: 'Sixteen', phone: '+44 20 7946 0958 доб. 16' },
  { id: 'nz', firstName: 'Kiri', phone: 'tel:+64-3-331-6005;ext=1235' },
];

test('another extension of the same switchboard is another person: rm --phone with ext. 13 erases no one, and each label is read', async (t) => {
  const s = await service(t, SWITCHBOARD);
  const r = await runCli(['contacts', 'rm', '--phone', '+44 20 7946 0958 ext. 13', '--confirm', '--json'], { env: s.env, cwd: s.dir });
  assert.deepEqual(s.deletes(), [], r.stderr);
  assert.equal(JSON.parse(r.stdout).erased, 0);
  for (const [asked, id] of [['+44 20 7946 0958 x12', 'sb12'], ['+44 20 7946 0958 ext 14', 'sb14'], ['020 7946 0958 #15', 'sb15'], ['+44 (0)20 7946 0958 anexo 16', 'sb16'], ['+64 3 331-6005 extn 1235', 'nz']] as const) {
    const find = await runMain(['contacts', 'find', '--phone', asked, '--country', 'GB', '--json'], { env: s.env, cwd: s.dir });
    assert.equal(find.code, 0, `${asked}: ${find.stderr}`);
    assert.deepEqual((JSON.parse(find.stdout) as Array<{ id: string }>).map((c) => c.id), [id], asked);
  }
  const other = await runMain(['contacts', 'find', '--phone', '+64 3 331-6005 extn 1234', '--json'], { env: s.env, cwd: s.dir });
  assert.equal(other.code, 4, 'tel:+64-3-331-6005;ext=1235 is not extension 1234');
});

test('the number without an extension finds the switchboard\'s people named, not erased, and no receipt says "found 0"', async (t) => {
  const s = await service(t, SWITCHBOARD);
  const r = await runMain(['contacts', 'rm', '--phone', '+44 20 7946 0958', '--confirm', '--json'], { env: s.env, cwd: s.dir });
  assert.deepEqual(s.deletes(), []);
  assert.equal(r.code, 6, r.stderr);
  assert.match(r.stderr, /contacts sb12, sb14, sb15, sb16 have this number with an extension where the other has none .*: not erased/);
  assert.match(r.stderr, /not recorded as found 0/);
  const receipts = join(s.env.CALLCTL_CONFIG_DIR, 'erasures');
  // Every receipts file of the folder (an empty one a run created is removed: there may be none).
  const lines = existsSync(receipts) ? (await import('node:fs')).readdirSync(receipts).map((f) => readFileSync(join(receipts, f), 'utf8')).join('') : '';
  assert.doesNotMatch(lines, /"found":0/);
  const find = await runMain(['contacts', 'find', '--phone', '+44 20 7946 0958'], { env: s.env, cwd: s.dir });
  assert.equal(find.code, 4);
  assert.match(find.stderr, /sb12, sb14, sb15, sb16 have this number with an extension .*not listed/);
});

test('a tel: URI with a sub-address and a domain context is read as its number: found with --country, and no line says no region is set; what cannot be parsed, and vanity letters, are searched by their digits with a line saying so', async (t) => {
  const s = await service(t, [{ id: 'kiri', phone: '+64 3 331-6005' }, { id: 'other', phone: '+64 3 331-6004' }, { id: 'unknown', phone: '+999 1234 5679' }]);
  for (const country of [[], ['--country', 'NZ']]) {
    const r = await runMain(['contacts', 'find', '--phone', 'tel:03-331-6005;isub=1234;phone-context=abc.nz', ...country, '--json'], { env: s.env, cwd: s.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((JSON.parse(r.stdout) as Array<{ id: string }>).map((c) => c.id), ['kiri']);
    if (country.length > 0) assert.doesNotMatch(r.stderr, /no region/);
    else assert.match(r.stderr, /no country code and no region set/);
  }
  // A country code libphonenumber does not know: its digits as written, equal only to the same digits.
  const unparsed = await runMain(['contacts', 'find', '--phone', '+999 1234 5678'], { env: s.env, cwd: s.dir });
  assert.equal(unparsed.code, 4);
  assert.match(unparsed.stderr, /phone "\+999 1234 5678" — libphonenumber cannot parse it: searched by its digits as written, which only the same digits match/);
  const vanity = await runMain(['contacts', 'find', '--phone', '+1 800 FLOWERS'], { env: s.env, cwd: s.dir });
  assert.equal(vanity.code, 4);
  assert.match(vanity.stderr, /has letters: searched by the digits they dial \(\+18003569377\)/);
});

const SHAPES = [
  { id: 'list', firstName: 'List', phone: ['+1 415 555 0102', '+44 7400 123456'] },
  { id: 'object', firstName: 'Object', phone: { number: '+1 415 555 0103', type: 'mobile' } },
  { id: 'number', firstName: 'Number', phone: 447400123457 },
  { id: 'listOfObjects', firstName: 'Nested', phone: [{ value: '07400 123458' }] },
  { id: 'odd', firstName: 'Odd', phone: { kind: 'mobile' } },
  { id: 'short', firstName: 'Short', phone: 'ask reception' },
  { id: 'text', firstName: 'Text', phone: '+1 415 555 0104' },
];

test('a phone the service returns as a list, an object or a number has every number read; one that cannot be read is named', async (t) => {
  const s = await service(t, SHAPES);
  for (const [asked, id] of [['+1 415 555 0102', 'list'], ['+44 7400 123456', 'list'], ['+1 415 555 0103', 'object'], ['+44 7400 123457', 'number'], ['+44 7400 123458', 'listOfObjects']] as const) {
    const find = await runMain(['contacts', 'find', '--phone', asked, '--country', 'GB', '--json'], { env: s.env, cwd: s.dir });
    assert.equal(find.code, 0, `${asked}: ${find.stderr}`);
    assert.deepEqual((JSON.parse(find.stdout) as Array<{ id: string }>).map((c) => c.id), [id], asked);
    assert.match(find.stderr, /2 contacts have phones callctl cannot read as a number, not compared: odd, short/);
  }
  const dry = await runMain(['contacts', 'rm', '--phone', '+44 7400 123456', '--dry-run', '--json'], { env: s.env, cwd: s.dir });
  assert.deepEqual(JSON.parse(dry.stdout).wouldErase, [{ request: 1, id: 'list' }], dry.stderr);

  const requests = join(s.dir, 'requests.txt');
  writeFileSync(requests, '+1 415 555 0103\n+44 7400 123457\n');
  const rm = await runMain(['contacts', 'rm', '--from', requests, '--confirm', '--json'], { env: s.env, cwd: s.dir });
  assert.equal(rm.code, 0, rm.stderr);
  assert.deepEqual(s.deletes().sort(), ['number', 'object']);
  assert.match(rm.stderr, /cannot read as a number, not compared: odd, short/);

  const leads = join(s.dir, 'leads.csv');
  writeFileSync(leads, 'phone\n+14155550102\n+447400123458\n+14155550199\n');
  const preview = await runMain(['import', leads, '--dry-run', '--country', 'GB', '--json'], { env: s.env, cwd: s.dir });
  const p = JSON.parse(preview.stdout);
  assert.deepEqual([p.matches, p.new], [2, 1], preview.stderr);
  assert.match(preview.stderr, /odd, short .*a row with one of their numbers shows as new/);
});

test('dupes groups a number held in a list with its twin, and leaves a list or an object unrewritten', async (t) => {
  const s = await service(t, [...SHAPES, { id: 'twin', phone: '+14155550102' }, { id: 'national', phone: '07400 999999' }]);
  const r = await runMain(['contacts', 'dupes', '--country', 'GB', '--fix', '--json'], { env: s.env, cwd: s.dir });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.groups.map((g: { ids: string[] }) => g.ids.sort()), [['list', 'twin']]);
  const kept = 'the service stores it as a JSON number, a list or an object: a rewrite as text would change its form';
  assert.deepEqual(out.notFixed.map((n: { id: string; reason: string }) => [n.id, n.reason]), [['number', kept], ['listOfObjects', kept]]);
  assert.equal(out.fixed, 1);
});
