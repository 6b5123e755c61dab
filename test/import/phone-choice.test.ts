// The phone a contact is matched on is chosen by the type its export gives it — mobile, work,
// home, main, other, then fax and pager — and a cell that holds no valid number gives way to the
// next valid one, counted; e-mails likewise (docs/commands/import.md, "Which phone, which e-mail"). fixtures/exports/ holds the
// real headers of Google's two exports, Outlook, Thunderbird, Atmail, HubSpot and a vCard as CSV,
// filled with fictional people (fixtures/make-exports.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

type T = Parameters<typeof tempDir>[0];
const copy = (t: T, name: string) => {
  const dir = tempDir(t);
  copyFileSync(join(ROOT, 'fixtures/exports', name), join(dir, name));
  return join(dir, name);
};

test("Google's older export: the Mobile in Phone 5 beats the Pager in Phone 1; junk in Phone 1 gives way to Phone 2, counted; a fax alone is sent", async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const file = copy(t, 'gmail-legacy.csv');
  const r = await runCli(['import', file, '--country', 'GB', '--json'], { env: envFor(sb, t) });
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.created, 3);
  const byName = new Map(sb.contacts().map((c) => [c.firstName, c]));
  assert.deepEqual([byName.get('Iris')?.phone, byName.get('Iris')?.email], ['+447400500102', 'iris@home.example']);
  assert.equal(byName.get('Oskar')?.phone, '+442079460201');
  assert.equal(byName.get('Faye')?.phone, '+442079460301');
  assert.deepEqual(s.phoneFrom, { 'Phone 5 - Value': 1, 'Phone 2 - Value': 1, 'Phone 1 - Value': 1 });
  assert.deepEqual(s.phoneFallback, [{ column: 'Phone 2 - Value', notValid: 'Phone 1 - Value', rows: 1 }]);
  assert.deepEqual([s.otherPhones, s.otherPhonesKept], [1, false]);
  assert.match(r.stderr, /\n {2}phones {6}1 from Phone 5 - Value, 1 from Phone 2 - Value, 1 from Phone 1 - Value {2}\(by type: mobile, work, home, main, other, then fax and pager\)\n {14}1 from Phone 2 - Value: Phone 1 - Value is not valid\n {14}1 row had other numbers: not sent \(--keep-other-phones adds them to the notes\)\n/);
  assert.equal(byName.get('Iris')?.notes, undefined, 'without --keep-other-phones the notes are left alone');
});

test("Google Contacts' export, --keep-other-phones: the numbers not sent go into the notes with their type; the preview says so", async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const file = copy(t, 'google-contacts.csv');
  const env = envFor(sb, t);
  const preview = await runCli(['import', file, '--country', 'GB', '--dry-run', '--keep-other-phones'], { env });
  assert.equal(preview.code, 0, preview.stderr);
  assert.match(preview.stderr, /phones {6}2 from Phone 2 - Value, 1 from Phone 1 - Value .*\n {14}1 from Phone 2 - Value: Phone 1 - Value is not valid\n {14}3 rows had other numbers: added to the notes \(--keep-other-phones\)\n/);
  const r = await runCli(['import', file, '--country', 'GB', '--keep-other-phones', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).otherPhonesKept, true);
  const byName = new Map(sb.contacts().map((c) => [c.firstName, c]));
  assert.deepEqual([byName.get('Wanda')?.phone, byName.get('Wanda')?.notes], ['+447400500401', 'Other phones: +442079460401 (Work Fax)']);
  // Two values in one cell, typed "Work ::: Mobile": the mobile; its e-mail typed Other is no address, the Work one is.
  assert.deepEqual([byName.get('Jonas')?.phone, byName.get('Jonas')?.email, byName.get('Jonas')?.notes], ['+447400500501', 'jonas@work.example', 'Other phones: +442079460501 (Work)']);
  assert.deepEqual([byName.get('Hana')?.phone, byName.get('Hana')?.notes], ['+442079460601', 'Other phones: +14155550199 (Google Voice)']);
});

test('Outlook, Thunderbird, Atmail, HubSpot and a vCard as CSV: the phone and e-mail each names as wanted most', async (t) => {
  const env = { CALLCTL_CONFIG_DIR: tempDir(t) };
  const expected: Record<string, Array<[string, string | undefined]>> = {
    // Business Fax, Business Phone, Mobile Phone → the mobile; Home Phone before Primary Phone; a
    // broken E-mail Address gives way to E-mail 2 Address.
    'outlook.csv': [['+447400500701', 'bruno@work.example'], ['+442079460802', 'petra@home.example']],
    'thunderbird.csv': [['+447400500901', 'tilda@home.example']],
    // Home Mobile (Atmail's) before Work Mobile and Home Phone.
    'atmail.csv': [['+447400501001', 'ada@atmail.example']],
    // WhatsApp alone; Mobile Phone Number over Phone Number and a broken Email over the private
    // e-mail; HubSpot's list of additional addresses.
    'hubspot.csv': [['+447400501101', 'wim@private.example'], ['+447400501201', 'mira@private.example'], ['+442079461301', 'aldo@one.example']],
    'vcard.csv': [['+447400501401', 'vera@home.example']],
  };
  for (const [name, rows] of Object.entries(expected)) {
    const r = await runCli(['import', copy(t, name), '--country', 'GB', '--dry-run', '--format', 'ndjson'], { env });
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    const sent = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { phone?: string; email?: string });
    assert.deepEqual(sent.map((c) => [c.phone, c.email]), rows, name);
  }
});

test('work before home whatever the columns\' order; every phone invalid: rejected for the one wanted most; --map puts a column first', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const file = join(dir, 'phones.csv');
  const { readFileSync, writeFileSync } = await import('node:fs');
  writeFileSync(file, 'Name,Home Phone,Business Phone,Mobile Phone\nWork Wins,+44 20 7946 1601,+44 20 7946 1602,\nAll Bad,1234,12345,999\nMobile Wins,+44 20 7946 1501,+44 20 7946 1502,+44 7400 501501\n');
  const r = await runCli(['import', file, '--country', 'GB', '--json'], { env: envFor(sb, t) });
  assert.equal(r.code, 6, r.stderr);
  assert.match(readFileSync(`${file}.rejects.csv`, 'utf8'), /All Bad,1234,12345,999,"?phone ""999"" is /);
  assert.deepEqual(sb.contacts().map((c) => c.phone).sort(), ['+442079461602', '+447400501501']);
  const mapped = await runCli(['import', file, '--country', 'GB', '--dry-run', '--format', 'ndjson', '--map', 'Home Phone=phone', '--rejects', join(dir, 'r2.csv')], { env: { CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.deepEqual(mapped.stdout.trim().split('\n').map((l) => JSON.parse(l).phone), ['+442079461601', '+442079461501']);
});

test("a plain `Tel` and `Email` column are main and plain by their names, not a vCard's untyped TEL and EMAIL: they beat `Other Phone` and `Other Email` before them", async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'plain.csv');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(file, 'Name,Other Email,Email,Other Phone,Tel\nPlain Wins,other@example.com,plain@example.com,+44 20 7946 1701,+44 20 7946 1702\n');
  const r = await runCli(['import', file, '--country', 'GB', '--dry-run', '--format', 'ndjson'], { env: { CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { firstName: 'Plain', lastName: 'Wins', email: 'plain@example.com', phone: '+442079461702' });
  assert.match(r.stderr, /Email → email, Other Phone → phone \(other\), Tel → phone \(main\)/);
});

test('the sent number written again another way (Primary Phone 07400… beside Mobile Phone +44 7400…) is no other number: not counted, not noted', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const file = join(dir, 'outlook.csv');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(file, 'First Name,Mobile Phone,Primary Phone,Home Phone\nSame,+44 7400 501801,07400 501801,\nTwo,+44 7400 501802,07400 501802,020 7946 1802\n');
  const env = envFor(sb, t);
  const preview = await runCli(['import', file, '--country', 'GB', '--dry-run', '--keep-other-phones'], { env });
  assert.equal(preview.code, 0, preview.stderr);
  assert.match(preview.stderr, /\n {14}1 row had other numbers: added to the notes \(--keep-other-phones\)\n/);
  const r = await runCli(['import', file, '--country', 'GB', '--keep-other-phones', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).otherPhones, 1);
  const byName = new Map(sb.contacts().map((c) => [c.firstName, c]));
  assert.deepEqual([byName.get('Same')?.phone, byName.get('Same')?.notes], ['+447400501801', undefined]);
  assert.deepEqual([byName.get('Two')?.phone, byName.get('Two')?.notes], ['+447400501802', 'Other phones: +442079461802 (Home Phone)']);
});
