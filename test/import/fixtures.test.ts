// Each fixture export imports to exactly the expected contacts and report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

async function importFixture(t: Parameters<typeof tempDir>[0], name: string, args: string[] = []) {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  copyFileSync(join(ROOT, 'fixtures', name), join(dir, name));
  const r = await runCli(['import', join(dir, name), '--json', ...args], { env: envFor(sb, t), cwd: dir });
  const summary = r.stdout ? JSON.parse(r.stdout) : undefined;
  const rejectsPath = join(dir, `${name}.rejects.csv`);
  const rejects = existsSync(rejectsPath) ? readFileSync(rejectsPath, 'utf8') : undefined;
  const byPhone = new Map(sb.contacts().map((c) => [c.phone, c]));
  return { r, summary, rejects, contacts: sb.contacts(), byPhone, sb };
}

test('Google Contacts export: names, first e-mail, mobile preferred, labels as tags, address', async (t) => {
  const { r, summary, contacts, byPhone } = await importFixture(t, 'google-contacts.csv');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([summary.rows, summary.created, summary.rejected], [6, 6, 0]);
  assert.equal(contacts.length, 6);
  const ada = byPhone.get('+447400123123')!;
  assert.deepEqual([ada.firstName, ada.lastName, ada.email, ada.city, ada.zipCode], ['Ada', 'Lovelace', 'ada@example.com', 'London', 'SW1Y 4JH']);
  assert.deepEqual(ada.tags, ['Leads']);
  // Barbara's Work phone is empty: the mobile in the second column is taken.
  assert.equal(byPhone.get('+16175550134')?.lastName, 'Liskov');
  assert.match(r.stderr, /ignoring columns: .*Middle Name/);
});

test('Outlook export with national US numbers and --country US', async (t) => {
  const { r, summary, byPhone } = await importFixture(t, 'outlook.csv', ['--country', 'US']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(summary.created, 5);
  const dennis = byPhone.get('+19085550101')!;
  assert.deepEqual([dennis.firstName, dennis.city, dennis.state, dennis.zipCode], ['Dennis', 'Murray Hill', 'NJ', '07974']);
  assert.deepEqual(dennis.tags, ['Leads', 'Unix']);
  assert.equal(byPhone.get('+19085550102')?.lastName, 'Thompson', 'business phone when there is no mobile');
  assert.equal(byPhone.get('+12125550105')?.lastName, 'Backus', 'home phone last');
});

test('Excel semicolon file in Windows-1252 with accented names', async (t) => {
  const { r, summary, byPhone } = await importFixture(t, 'excel-semicolon-1252.csv', ['--encoding', 'windows-1252', '--country', 'FR']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(summary.created, 5);
  assert.deepEqual(byPhone.get('+33612345678') && [byPhone.get('+33612345678')!.firstName, byPhone.get('+33612345678')!.city], ['Amélie', 'Paris']);
  assert.equal(byPhone.get('+33656789012')?.lastName, 'Müller');
  assert.equal(byPhone.get('+33734567890')?.city, 'Besançon');
});

test('the same Windows-1252 file read with --encoding utf8 stops with exit 1 naming the line', async (t) => {
  const { r, contacts } = await importFixture(t, 'excel-semicolon-1252.csv', ['--encoding', 'utf8', '--country', 'FR']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /line 1: bytes that are not valid utf8.*--encoding/);
  assert.equal(contacts.length, 0);
});

test('UTF-16LE tab-separated "Unicode text": BOM detected, full names split, tags split', async (t) => {
  const { r, summary, byPhone } = await importFixture(t, 'unicode-text-utf16le.txt');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(summary.created, 4);
  const lukasz = byPhone.get('+48512345678')!;
  assert.deepEqual([lukasz.firstName, lukasz.lastName, lukasz.city], ['Łukasz', 'Nowak', 'Łódź']);
  assert.deepEqual(byPhone.get('+4532123456')?.tags, ['philosophy', 'leads']);
  assert.deepEqual(byPhone.get('+34612345678')?.tags, ['leads', 'vip']);
});

test('UTF-8 with BOM and quoted multi-line cells', async (t) => {
  const { r, summary, byPhone } = await importFixture(t, 'utf8-bom-multiline.csv');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(summary.created, 3);
  const ines = byPhone.get('+351912345678')!;
  assert.equal(ines.email, 'ines@example.pt', 'the BOM is not part of the first header');
  assert.equal(ines.notes, 'Called twice.\nAsked for a quote, "urgent".');
  assert.equal(ines.status, 'New');
  assert.equal(byPhone.get('+33698765432')?.firstName, 'Noël');
});

test('the dirty list: every bad row rejected with its reason, the duplicate reported, the rest imported (exit 6)', async (t) => {
  const { r, summary, rejects, contacts } = await importFixture(t, 'dirty.csv');
  assert.equal(r.code, 6);
  assert.deepEqual(
    { rows: summary.rows, created: summary.created, rejected: summary.rejected, duplicates: summary.duplicates, failed: summary.failed },
    { rows: 10, created: 4, rejected: 5, duplicates: 1, failed: 0 },
  );
  assert.deepEqual(contacts.map((c) => c.phone).sort(), ['+447400100001', '+447400100003', '+447400100004', '+447400100006']);
  const lines = rejects!.trim().split('\n');
  assert.ok(rejects!.startsWith('\ufeff'), 'a UTF-8 rejects file starts with a BOM, for Excel');
  assert.equal(lines[0], 'First Name,Last Name,Phone,Email,City,error,line');
  assert.equal(lines.length, 7);
  assert.match(rejects!, /No,Phone,,nophone@example.com,York,no phone/);
  assert.match(rejects!, /not-an-email/);
  assert.match(rejects!, /Dup,OfOne,.*duplicate: phone \+447400100001/);
  assert.match(rejects!, /Long,Row,.*row has 7 cells but the header has 5/);
  assert.match(r.stderr, /rejected\s+5/);
});
