// Excel workbooks read directly: told by content, first worksheet or --sheet, header on the first
// non-empty row, numbers with all their digits, dates in ISO 8601, rejects as CSV.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { sheetNames } from '../../src/source/workbook.js';
import { numberText, stringItemText } from '../../src/source/xlsx-book.js';

type T = Parameters<typeof tempDir>[0];

async function importWorkbook(t: T, as: string, args: string[] = []) {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  copyFileSync(join(ROOT, 'fixtures', 'leads.xlsx'), join(dir, as));
  const r = await runCli(['import', join(dir, as), '--json', ...args], { env: envFor(sb, t), cwd: dir });
  const summary = r.stdout ? JSON.parse(r.stdout) : undefined;
  const rejectsPath = join(dir, `${as}.rejects.csv`);
  const rejects = existsSync(rejectsPath) ? readFileSync(rejectsPath, 'utf8') : undefined;
  return { r, summary, rejects, contacts: sb.contacts(), byPhone: new Map(sb.contacts().map((c) => [c.phone, c])) };
}

test('.xlsx: first worksheet, header on its first non-empty row, phones stored as numbers keep every digit', async (t) => {
  const { r, summary, byPhone, rejects } = await importWorkbook(t, 'leads.xlsx', ['--country', 'GB', '--map', 'Signed Up=notes']);
  assert.equal(r.code, 6, r.stderr);
  assert.deepEqual([summary.rows, summary.created, summary.rejected], [5, 4, 1]);
  const ada = byPhone.get('+447400600001')!;
  assert.deepEqual([ada.firstName, ada.lastName, ada.email, ada.tags], ['Ada', 'Byron', 'ada@example.com', ['xlsx', 'vip']]);
  assert.equal(ada.notes, '2024-03-15', 'a date is ISO 8601');
  assert.equal(byPhone.get('+447400600002')?.notes, '2024-12-01T09:30:00', 'a date and time is ISO 8601');
  assert.equal(byPhone.get('+447400600003')?.lastName, 'Somerville', 'a phone stored as text');
  assert.equal(byPhone.get('+447400600004')?.firstName, 'Formula', 'a formula gives its result');
  // The rejects file is a CSV with the workbook's row number as the line.
  const lines = rejects!.trim().split(/\r?\n/);
  assert.equal(lines[0], 'First Name,Last Name,Mobile,Email,Signed Up,Tags,error,line');
  assert.match(lines[1]!, /^Bad,Phone,12345,bad@example\.com,,,/);
  assert.equal(lines.length, 2);
});

test('.xlsx recognised by its content under a .csv name, and --sheet picks another worksheet', async (t) => {
  const { r, summary, byPhone } = await importWorkbook(t, 'export.csv', ['--country', 'GB', '--sheet', 'March leads']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(summary.created, 2);
  assert.deepEqual([byPhone.get('+447400600011')?.firstName, byPhone.get('+447400600011')?.lastName], ['Ida', 'Tarbell']);
  assert.equal(byPhone.get('+447400600012')?.lastName, 'Bly');
});

test('.xlsx --sheet that does not exist: exit 2 listing the worksheets, nothing sent', async (t) => {
  const { r, contacts } = await importWorkbook(t, 'leads.xlsx', ['--sheet', 'April']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /no worksheet "April"/);
  assert.match(r.stderr, /1\. Leads, 2\. March leads/);
  assert.equal(contacts.length, 0);
});

test('--sheet on a CSV is a usage error', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  copyFileSync(join(ROOT, 'fixtures', 'dirty.csv'), join(dir, 'dirty.csv'));
  const r = await runCli(['import', join(dir, 'dirty.csv'), '--sheet', 'Leads'], { env: envFor(sb, t), cwd: dir });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--sheet is for a workbook \(\.xlsx, \.ods\); .*dirty\.csv is not one/);
});

test('workbook sheet list and cell text', async () => {
  assert.deepEqual(await sheetNames(join(ROOT, 'fixtures', 'leads.xlsx')), ['Leads', 'March leads']);
  assert.equal(numberText(447911123458), '447911123458');
  assert.equal(numberText(0.1 + 0.2), '0.3');
  assert.equal(stringItemText('<r><rPr><b/></rPr><t>a</t></r><r><t xml:space="preserve">b &amp; c</t></r><rPh sb="0" eb="1"><t>ア</t></rPh>'), 'ab & c');
  assert.equal(stringItemText('<t>one_x000D_\ntwo _x005F_x0041_</t>'), 'one\r\ntwo _x0041_');
});
