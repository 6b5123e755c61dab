// Finding a person never depends on a number being valid: against the sandbox, with numbers
// libphonenumber's metadata rejects — Ofcom's drama range (07700 900xxx), a subscriber number one
// digit short, an unallocated US area code — each stored both in international format and as the
// national-format twin a POST creates. find, dupes, rm --phone and rm --from each find every record;
// only a text with too few digits to identify anyone is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

/** Each person: the number as stored in international format, its national twin, and the region it is national in. */
const PEOPLE = [
  { name: 'Drama', intl: '+44 7700 900123', national: '07700 900123', region: 'GB', e164: '+447700900123' },
  { name: 'Short', intl: '+44 20 7946 095', national: '020 7946 095', region: 'GB', e164: '+44207946095' },
  { name: 'Unallocated', intl: '+1 286 555 0123', national: '(286) 555-0123', region: 'US', e164: '+12865550123' },
];

async function withInvalidTwins(t: Parameters<typeof startTestSandbox>[0]) {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 4 });
  const ids: Record<string, string[]> = {};
  for (const p of PEOPLE) {
    ids[p.name] = [];
    for (const phone of [p.intl, p.national]) {
      const r = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: p.name, lastName: phone.startsWith('+') ? 'Intl' : 'National', phone } });
      assert.equal(r.status, 201);
      ids[p.name]!.push(r.body.id);
    }
  }
  return { sb, ids };
}

const idsOf = (stdout: string) => (JSON.parse(stdout) as Array<{ id: string }>).map((c) => c.id).sort();

test('find --phone finds both records of numbers libphonenumber calls invalid, typed either way, with --country, the profile\'s country or none; one line says the number is not valid', async (t) => {
  const { sb, ids } = await withInvalidTwins(t);
  const env = envFor(sb, t);
  for (const p of PEOPLE) {
    const both = [...(ids[p.name] as string[])].sort();
    for (const typed of [p.intl, p.national]) {
      const r = await runCli(['contacts', 'find', '--phone', typed, '--country', p.region, '--json'], { env });
      assert.equal(r.code, 0, `${typed} --country ${p.region}: ${r.stderr}`);
      assert.deepEqual(idsOf(r.stdout), both, `${typed} --country ${p.region}`);
      assert.equal(r.stderr.split('\n').filter((l) => /not a valid number/.test(l)).length, 1, r.stderr);
    }
    // No region anywhere: a stored national number is compared by its national digits.
    const bare = await runCli(['contacts', 'find', '--phone', p.intl, '--json'], { env });
    assert.equal(bare.code, 0, bare.stderr);
    assert.deepEqual(idsOf(bare.stdout), both, `${p.intl} without a region`);
  }
  // The profile's country stands for --country.
  const profile = envFor(sb, t);
  assert.equal((await runCli(['config', 'set', 'country', 'GB'], { env: profile })).code, 0);
  const viaProfile = await runCli(['contacts', 'find', '--phone', '07700 900123', '--json'], { env: profile });
  assert.equal(viaProfile.code, 0, viaProfile.stderr);
  assert.deepEqual(idsOf(viaProfile.stdout), [...(ids.Drama as string[])].sort());

  // Only a text with too few digits to identify anyone is refused.
  const short = await runCli(['contacts', 'find', '--phone', '+44 12', '--country', 'GB'], { env });
  assert.equal(short.code, 2);
  assert.match(short.stderr, /too few to identify anyone/);
  const none = await runCli(['contacts', 'find', '--phone', '+44 7700 900999', '--country', 'GB'], { env });
  assert.equal(none.code, 4, none.stderr);
});

test('dupes groups every pair, valid or not, lists every national-format number with its country code; --fix rewrites only what is valid and lists the rest', async (t) => {
  const { sb, ids } = await withInvalidTwins(t);
  const lone = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Lone', phone: '07400 200000' } });
  const loneInvalid = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'LoneDrama', phone: '07700 900999' } });
  const env = envFor(sb, t);

  const bare = await runCli(['contacts', 'dupes', '--json'], { env });
  assert.equal(bare.code, 0, bare.stderr);
  const b = JSON.parse(bare.stdout);
  assert.deepEqual(b.groups.map((g: { ids: string[] }) => [...g.ids].sort()).sort(), PEOPLE.map((p) => [...(ids[p.name] as string[])].sort()).sort(), 'without a region, by national digits');
  assert.deepEqual(b.groups.map((g: { phone: string }) => g.phone).sort(), PEOPLE.map((p) => p.e164).sort());

  const gb = await runCli(['contacts', 'dupes', '--country', 'GB', '--json'], { env });
  assert.equal(gb.code, 0, gb.stderr);
  const d = JSON.parse(gb.stdout);
  const groups = new Map(d.groups.map((g: { phone: string; ids: string[] }) => [g.phone, [...g.ids].sort()]));
  assert.deepEqual(groups.get('+447700900123'), [...(ids.Drama as string[])].sort());
  assert.deepEqual(groups.get('+44207946095'), [...(ids.Short as string[])].sort());
  const national = new Map(d.national.map((n: { id: string; e164: string }) => [n.id, n.e164]));
  assert.equal(national.get(ids.Drama![1]), '+447700900123', 'e164 carries the country code though libphonenumber calls it invalid');
  assert.equal(national.get(ids.Short![1]), '+44207946095');
  assert.equal(national.get(loneInvalid.body.id), '+447700900999');
  assert.equal(national.get(lone.body.id), '+447400200000');
  assert.equal(d.national.length, 5);

  // (--country GB would read the US national twin as a GB number: it goes first.)
  for (const id of ids.Unallocated as string[]) assert.equal((await sandboxRequest(sb, 'DELETE', `/contacts/${id}`)).status, 204);
  const fix = await runCli(['contacts', 'dupes', '--country', 'GB', '--fix', '--json'], { env });
  assert.equal(fix.code, 0, fix.stderr);
  const f = JSON.parse(fix.stdout);
  assert.equal(f.fixed, 1);
  assert.equal(sb.contacts().find((c) => c.id === lone.body.id)?.phone, '+447400200000');
  assert.equal(sb.contacts().find((c) => c.id === loneInvalid.body.id)?.phone, '07700 900999', 'an invalid number is not rewritten');
  assert.deepEqual(f.notFixed.map((n: { id: string }) => n.id), [loneInvalid.body.id]);
  assert.equal(sb.contacts().find((c) => c.id === ids.Drama![1])?.phone, '07700 900123', 'a group is left to a person');
  assert.match(fix.stderr, new RegExp(`not fixed ${loneInvalid.body.id}: 07700 900999 — \\+447700900999 is not a valid number`));
});

test('rm --phone and rm --from erase every record of numbers libphonenumber calls invalid, stored either way', async (t) => {
  const { sb, ids } = await withInvalidTwins(t);
  const env = envFor(sb, t);
  const alive = (id: string) => sb.contacts().some((c) => c.id === id);

  const byPhone = await runCli(['contacts', 'rm', '--phone', '07700 900123', '--country', 'GB', '--confirm', '--json'], { env });
  assert.equal(byPhone.code, 0, byPhone.stderr);
  assert.equal(JSON.parse(byPhone.stdout).erased, 2);
  assert.match(byPhone.stderr, /not a valid number for GB: searched by its digits as \+447700900123/);
  for (const id of ids.Drama as string[]) assert.ok(!alive(id), `${id} erased`);

  const dir = tempDir(t);
  const file = join(dir, 'requests.txt');
  writeFileSync(file, '+44 20 7946 095\n+1 286 555 0123\n');
  const dry = await runCli(['contacts', 'rm', '--from', file, '--dry-run', '--json'], { env });
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(JSON.parse(dry.stdout).wouldErase.map((w: { id: string }) => w.id).sort(), [...(ids.Short as string[]), ...(ids.Unallocated as string[])].sort());
  const real = await runCli(['contacts', 'rm', '--from', file, '--confirm', '--json'], { env });
  assert.equal(real.code, 0, real.stderr);
  const s = JSON.parse(real.stdout);
  assert.deepEqual([s.requests, s.erased, s.notFound], [2, 4, 0]);
  assert.match(real.stderr, /lines 1, 2: not valid numbers: searched by their digits/);
  assert.equal(sb.contacts().length, 4, 'only the seeded contacts are left');
});
