// Numbers as real contact stores hold them, found by find, rm and dupes (docs/people.md, "How numbers
// are compared"): Mexico's and Argentina's old mobile prefixes, an international number written
// with 00 or a NANP number with its 1 where the region is another country's, two numbers in one
// field, full-width digits — and, the other way, two people of one switchboard told apart by their
// extensions, so that erasing one does not erase the other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';
import { scriptedServer } from '../helpers/scripted-server.js';

const STORED = {
  mxOld: '+52 1 55 1234 5678',
  mxNational: '044 55 1234 5678',
  arNoNine: '+54 11 1234 5678',
  ukZeroZero: '0044 7700 900123',
  nanpWithOne: '1-286-555-0123',
  twoNumbers: '+44 7700 900555 / +44 20 7946 0958',
  fullWidth: '＋４４ ７７００ ９００７７７',
  alice: '+44 20 7946 0000 ext. 12',
  bob: '+44 20 7946 0000 ext. 34',
};

async function withForms(t: Parameters<typeof startTestSandbox>[0]) {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const ids = {} as Record<keyof typeof STORED, string>;
  for (const [name, phone] of Object.entries(STORED) as Array<[keyof typeof STORED, string]>) {
    const r = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: name, phone } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    ids[name] = r.body.id;
  }
  return { sb, ids, env: envFor(sb, t) };
}

const idsOf = (stdout: string) => (JSON.parse(stdout) as Array<{ id: string }>).map((c) => c.id).sort();

test('find --phone finds a number stored in the forms dialling habits and spreadsheets leave', async (t) => {
  const { ids, env } = await withForms(t);
  const cases: Array<[string[], string[]]> = [
    [['--phone', '+52 55 1234 5678'], [ids.mxOld, ids.mxNational]],
    [['--phone', '+52 55 1234 5678', '--country', 'MX'], [ids.mxOld, ids.mxNational]],
    [['--phone', '+54 9 11 1234 5678'], [ids.arNoNine]],
    [['--phone', '+44 7700 900123', '--country', 'US'], [ids.ukZeroZero]],
    [['--phone', '+1 286 555 0123', '--country', 'GB'], [ids.nanpWithOne]],
    [['--phone', '+44 20 7946 0958'], [ids.twoNumbers]],
    [['--phone', '07700 900555', '--country', 'GB'], [ids.twoNumbers]],
    [['--phone', '+44 7700 900777'], [ids.fullWidth]],
  ];
  for (const [args, expected] of cases) {
    const r = await runCli(['contacts', 'find', ...args, '--json'], { env });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.deepEqual(idsOf(r.stdout), [...expected].sort(), args.join(' '));
  }
  // Typed in a form its region cannot hold, the line says it is searched without the region too.
  const typed = await runCli(['contacts', 'find', '--phone', '1 286 555 0123', '--country', 'GB', '--json'], { env });
  assert.deepEqual(idsOf(typed.stdout), [ids.nanpWithOne]);
  assert.match(typed.stderr, /not a valid number for GB: searched by its digits as \+4412865550123, and as written without a region \(no GB number has its length\)/);
  assert.match(typed.stderr, /1 contact of \d+ with phone 1 286 555 0123/);
});

test('dupes groups those forms with the number they are', async (t) => {
  const { sb, ids, env } = await withForms(t);
  const intl = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'mxNew', phone: '+52 55 1234 5678' } });
  const gb = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'nanp', phone: '+1 286 555 0123' } });
  const r = await runCli(['contacts', 'dupes', '--country', 'GB', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  const groups = (JSON.parse(r.stdout).groups as Array<{ ids: string[] }>).map((g) => [...g.ids].sort());
  assert.ok(groups.some((g) => g.join() === [ids.mxOld, ids.mxNational, intl.body.id].sort().join()), JSON.stringify(groups));
  assert.ok(groups.some((g) => g.join() === [ids.nanpWithOne, gb.body.id].sort().join()), JSON.stringify(groups));
  assert.ok(!groups.some((g) => g.includes(ids.alice) || g.includes(ids.bob)), 'different extensions are different lines');
});

test('rm --phone with an extension erases that person, not the others at the same switchboard', async (t) => {
  const { sb, ids, env } = await withForms(t);
  const r = await runCli(['contacts', 'rm', '--phone', '+44 20 7946 0000 x12', '--confirm', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).erased, 1);
  const left = sb.contacts().map((c) => c.id);
  assert.ok(!left.includes(ids.alice), 'Alice is erased');
  assert.ok(left.includes(ids.bob), 'Bob, another extension of the same number, stays');
});

test('a phone the service returns as a JSON number is found (field types are not documented)', async (t) => {
  const contacts = [{ id: 'c1', firstName: 'Numeric', phone: 447700900123 }, { id: 'c2', firstName: 'Other', phone: 447700900999 }];
  const server = await scriptedServer(t, (_hit, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: contacts, pagination: { page: 1, limit: 100, total: 2, totalPages: 1 } }));
  });
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: `sk_live_${'n'.repeat(24)}`, CALLCTL_CONFIG_DIR: tempDir(t) };
  const r = await runCli(['contacts', 'find', '--phone', '+44 7700 900123', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(idsOf(r.stdout), ['c1']);
});

test('dupes --fix leaves to a person a phone field holding several numbers or an extension: rewritten to one E.164 number, the rest would be lost', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const phones = { two: '07400 100009 / 020 7946 0999', alice: '020 7946 0000 ext. 12', bob: '020 7946 0000 ext. 34' };
  const ids: Record<string, string> = {};
  for (const [name, phone] of Object.entries(phones)) ids[name] = (await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: name, phone } })).body.id;
  const r = await runCli(['contacts', 'dupes', '--country', 'GB', '--fix', '--json'], { env: envFor(sb, t) });
  assert.equal(r.code, 0, r.stderr);
  const reasons = new Map((JSON.parse(r.stdout).notFixed as Array<{ id: string; reason: string }>).map((n) => [n.id, n.reason]));
  assert.equal(reasons.get(ids.two!), 'it holds several numbers');
  assert.equal(reasons.get(ids.alice!), 'it has an extension, which E.164 cannot hold');
  for (const [name, phone] of Object.entries(phones)) assert.equal(sb.contacts().find((c) => c.id === ids[name])?.phone, phone, `${name} unchanged`);
});

test('a number copied with invisible direction marks around it (as phones and mail clients copy one) keeps its country code: found with its national twin, and grouped with it, without a region', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const env = envFor(sb, t);
  const ids: string[] = [];
  for (const phone of ['\u202a+44 7700 900123\u202c', '\u2068+44 7700 900123\u2069', '07700 900123']) {
    const r = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Zoë', phone } });
    assert.equal(r.status, 201);
    ids.push(r.body.id);
  }
  ids.sort();
  const find = await runCli(['contacts', 'find', '--phone', '07700 900123', '--json'], { env });
  assert.equal(find.code, 0, find.stderr);
  assert.deepEqual((JSON.parse(find.stdout) as Array<{ id: string }>).map((c) => c.id).sort(), ids);
  const dupes = await runCli(['contacts', 'dupes', '--json'], { env });
  assert.equal(dupes.code, 0, dupes.stderr);
  assert.deepEqual((JSON.parse(dupes.stdout).groups as Array<{ ids: string[] }>).map((g) => [...g.ids].sort()), [ids]);
});
