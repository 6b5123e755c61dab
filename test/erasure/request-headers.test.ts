// A request file's columns named in words the import's list of headers does not hold — German,
// French, numbered (`Telefonnummer`, `Phone 2`, `E-Mail-Adresse`, `Courriel`) — are still the
// person's phone and e-mail: read beside the columns it knows, not skipped while the row's known
// e-mail is erased and her phone-only records stay. Their cells not written as a phone or an
// e-mail are passed over (a `Hotel` column is not a phone), and no one else is erased. The columns
// that are no id, phone or e-mail (`Record ID`, `Name`) are named: they find no one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

async function contact(sb: Awaited<ReturnType<typeof startTestSandbox>>, body: Record<string, string>): Promise<string> {
  const r = await sandboxRequest(sb, 'POST', '/contacts', { body });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.id;
}

test('columns named Telefonnummer, Phone 2, E-Mail-Adresse or Courriel are read as phones and e-mails beside the known ones: every record erased, no one else', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const zoe = [
    await contact(sb, { firstName: 'Zoë', email: 'zoe@example.com' }),
    await contact(sb, { firstName: 'Zoë', phone: '+44 7700 900123' }),
    await contact(sb, { firstName: 'Zoë', phone: '07700 900456' }), // her second number, national
  ].sort();
  const ann = [await contact(sb, { firstName: 'Ann', phone: '+44 7400 123456' }), await contact(sb, { firstName: 'Ann', email: 'ann@example.fr' })].sort();
  const bystanders = [await contact(sb, { firstName: 'Hilton', phone: '+44 7400 999999' }), await contact(sb, { firstName: 'Bea', email: 'bea@example.com' })];

  const file = join(dir, 'requests.csv');
  writeFileSync(
    file,
    '\ufeffName;Email;Telefonnummer;Phone 2;Hotel;Courriel\r\n' +
      'Zoë;zoe@example.com;07700 900123;+44 7700 900456;Hilton;\r\n' +
      'Ann;;;;Ritz;ann@example.fr\r\n' +
      'Ann;;+44 7400 123456;;;\r\n',
  );
  const dry = await runCli(['contacts', 'rm', '--from', file, '--country', 'GB', '--dry-run', '--json'], { env });
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual([...new Set(JSON.parse(dry.stdout).wouldErase.map((w: { id: string }) => w.id))].sort(), [...zoe, ...ann].sort());
  assert.match(dry.stderr, /columns not read: Name, Hotel \(only id, phone and e-mail columns find people\)/);

  const real = await runCli(['contacts', 'rm', '--from', file, '--country', 'GB', '--confirm', '--json'], { env });
  assert.equal(real.code, 0, real.stderr);
  assert.equal(JSON.parse(real.stdout).erased, 5);
  assert.deepEqual(sb.contacts().filter((c) => c.firstName === 'Zoë' || c.firstName === 'Ann'), []);
  for (const id of bystanders) assert.ok(sb.contacts().some((c) => c.id === id), `${id} was not asked for`);
  const receipts = readFileSync(`${file}.erasures.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(receipts.filter((r) => r.request === 2).map((r) => r.id).sort(), zoe);
});
