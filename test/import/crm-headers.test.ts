// The headers of real CRM and address-book exports map to the right contact fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { buildMapping } from '../../src/import/mapping.js';

/** Field per header for a header row, as the import would map it. */
function fieldsOf(header: string[]): Record<string, string> {
  const m = buildMapping(header, new Map());
  const out: Record<string, string> = {};
  for (const c of m.columns) out[header[c.index] as string] = c.target;
  for (const c of m.phones) out[c.name] = 'phone';
  for (const c of m.emails) out[c.name] = 'email';
  for (const b of m.addresses) for (const p of b.parts) out[header[p.index] as string] = p.part;
  return out;
}

test('HubSpot, Zoho, Pipedrive, Copper, Apple and Outlook headers', () => {
  assert.deepEqual(fieldsOf(['First name', 'Last name', 'Email address', 'Phone number', 'Mobile phone number', 'Street Address', 'City', 'State/Region', 'Postal Code', 'Lead status']), {
    'First name': 'firstName', 'Last name': 'lastName', 'Email address': 'email', 'Phone number': 'phone', 'Mobile phone number': 'phone',
    'Street Address': 'address', City: 'city', 'State/Region': 'state', 'Postal Code': 'zipCode', 'Lead status': 'status',
  });
  assert.deepEqual(fieldsOf(['First Name', 'Last Name', 'Email', 'Mobile', 'Street', 'City', 'State', 'Zip Code', 'Tag', 'Lead Status', 'Description']), {
    'First Name': 'firstName', 'Last Name': 'lastName', Email: 'email', Mobile: 'phone', Street: 'address', City: 'city', State: 'state',
    'Zip Code': 'zipCode', Tag: 'tags', 'Lead Status': 'status', Description: 'notes',
  });
  assert.deepEqual(fieldsOf(['Person - Name', 'Person - Email', 'Person - Phone', 'Person - Label', 'Person - Note']), {
    'Person - Name': 'fullName', 'Person - Email': 'email', 'Person - Phone': 'phone', 'Person - Label': 'tags', 'Person - Note': 'notes',
  });
  assert.deepEqual(fieldsOf(['Person Name', 'Work Email', 'Phone', 'Status', 'Tags']), {
    'Person Name': 'fullName', 'Work Email': 'email', Phone: 'phone', Status: 'status', Tags: 'tags',
  });
  assert.deepEqual(fieldsOf(['first', 'last', 'phone (mobile)', 'email (home)', 'address (home) street', 'address (home) city', 'address (home) zip', 'note']), {
    first: 'firstName', last: 'lastName', 'phone (mobile)': 'phone', 'email (home)': 'email', 'address (home) street': 'address',
    'address (home) city': 'city', 'address (home) zip': 'zipCode', note: 'notes',
  });
  // Zoho contacts' second block, Outlook's extra street lines.
  const zoho = buildMapping(['Mailing Street', 'Mailing Zip', 'Other Street', 'Other Zip'], new Map());
  assert.deepEqual(zoho.addresses.map((b) => b.name), ['mailing', 'other']);
  // Each phone column with its type (a row's phone is chosen by it: mobile first), every e-mail column kept.
  const outlook = buildMapping(['Business Phone', 'Home Phone', 'Mobile Phone', 'E-mail Address', 'E-mail 2 Address'], new Map());
  assert.deepEqual(outlook.phones.map((c) => [c.name, c.type]), [['Business Phone', 'work'], ['Home Phone', 'home'], ['Mobile Phone', 'mobile']]);
  assert.deepEqual(outlook.emails.map((c) => c.name), ['E-mail Address', 'E-mail 2 Address']);
});

test('a Salesforce contact report: Mailing block whole, mobile preferred, description as notes', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  copyFileSync(join(ROOT, 'fixtures', 'salesforce-contacts.csv'), join(dir, 'sf.csv'));
  const r = await runCli(['import', join(dir, 'sf.csv'), '--json'], { env: envFor(sb, t), cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const [marc] = sb.contacts();
  assert.deepEqual(
    [marc?.phone, marc?.firstName, marc?.address, marc?.city, marc?.state, marc?.zipCode, marc?.notes],
    ['+14155550122', 'Marc', '415 Mission St', 'San Francisco', 'CA', '94105', 'Met at Dreamforce'],
  );
});

test("a Close export: the person is contact_name, not the company's lead_name", async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  copyFileSync(join(ROOT, 'fixtures', 'close-leads.csv'), join(dir, 'close.csv'));
  const r = await runCli(['import', join(dir, 'close.csv'), '--json'], { env: envFor(sb, t), cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const [lucius] = sb.contacts();
  assert.deepEqual([lucius?.firstName, lucius?.lastName, lucius?.email, lucius?.phone, lucius?.status], ['Lucius', 'Fox', 'lucius@example.com', '+12125550131', 'Potential']);
  assert.match(r.stderr, /lead_name \(a second fullName column\)/);
});

test("Pipedrive's newer export, a column per label: its Mobile before its Work phone, its Home e-mail before its Work one, its first and last name — not refused as having no phone column", async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const file = join(dir, 'people.csv');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    file,
    'Person - ID,Person - First name,Person - Last name,Person - Email - Work,Person - Email - Home,Person - Phone - Work,Person - Phone - Home,Person - Phone - Mobile,Person - Phone - Other\n' +
      '7,Ines,Duarte,ines@work.example,ines@home.example,+1 212 555 0141,,+1 212 555 0142,\n' +
      '8,Omar,Haddad,,omar@home.example,,+1 212 555 0153,,+1 212 555 0154\n',
  );
  const r = await runCli(['import', file, '--json'], { env: envFor(sb, t), cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const byName = new Map(sb.contacts().map((c) => [c.firstName, c]));
  assert.deepEqual([byName.get('Ines')?.lastName, byName.get('Ines')?.phone, byName.get('Ines')?.email], ['Duarte', '+12125550142', 'ines@home.example']);
  assert.deepEqual([byName.get('Omar')?.phone, byName.get('Omar')?.email], ['+12125550153', 'omar@home.example']);
  assert.deepEqual(JSON.parse(r.stdout).phoneFrom, { 'Person - Phone - Mobile': 1, 'Person - Phone - Home': 1 });
});

test("Salesforce's AssistantPhone and Zoho's Asst Phone are phones of type other: sent before the contact's Fax", async (t) => {
  const dir = tempDir(t);
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(dir, 'sf.csv'), 'FirstName,LastName,Phone,MobilePhone,AssistantPhone,Fax\nAlma,Reyes,,,+1 212 555 0161,+1 212 555 0162\n');
  writeFileSync(join(dir, 'zoho.csv'), 'First Name,Last Name,Phone,Mobile,Asst Phone,Fax\nBeto,Cruz,,,+1 212 555 0171,+1 212 555 0172\n');
  for (const [name, phone] of [['sf.csv', '+12125550161'], ['zoho.csv', '+12125550171']] as const) {
    const r = await runCli(['import', join(dir, name), '--dry-run', '--format', 'ndjson', '--rejects', join(dir, `${name}.r.csv`)], { env: { CALLCTL_CONFIG_DIR: tempDir(t) } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).phone, phone, name);
    assert.doesNotMatch(r.stderr, /ignoring columns/, name);
  }
});
