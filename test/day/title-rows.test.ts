// Reports and exports often put a title (a merged cell), a date or a blank-looking row above the
// header. The first non-empty row is the header (docs/commands/import.md, "Workbooks"); when it maps no phone and a
// row below would, the refusal names that row and says what to do — --map cannot help there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

test('a title above the header (a merged cell in .xlsx, a line in CSV): exit 2 naming the header row below, nothing sent', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Export');
  sheet.getCell('A1').value = 'Leads export — March';
  sheet.mergeCells('A1:C1');
  sheet.getCell('A2').value = new Date('2026-03-31');
  sheet.addRow([]);
  sheet.addRow(['First Name', 'Last Name', 'Phone']);
  sheet.addRow(['Ada', 'Byron', 447400700001]);
  const xlsx = join(dir, 'export.xlsx');
  await book.xlsx.writeFile(xlsx);
  const csv = join(dir, 'export.csv');
  writeFileSync(csv, 'Leads export — March\n\nFirst Name,Last Name,Phone\nAda,Byron,+447400700001\n');

  // A workbook's line names its sheet (Export!4); a CSV's is a number.
  for (const [file, line] of [[xlsx, 'Export!4'], [csv, '3']] as const) {
    const r = await runCli(['import', file, '--country', 'GB'], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^callctl: no phone column among: Leads export — March.* \\(the first non-empty row is the header; line ${line} \\(First Name, Last Name, Phone\\) looks like it: delete the rows above it, then import again\\)\\n$`));
  }
  assert.equal(sb.stats().requests, 0);
});

test("LinkedIn's Connections.csv, a Notes: line and a paragraph above its header: the refusal names the header below, not --allow-no-phone (which would send the paragraph as a contact)", async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const csv = join(dir, 'Connections.csv');
  writeFileSync(
    csv,
    'Notes:\n"When exporting your connection data, you may notice that some of the email addresses are missing. You will only see email addresses for connections who have allowed their connections to see or download their email address using this setting https://www.linkedin.com/psettings/privacy/email. You can learn more here https://www.linkedin.com/help/linkedin/answer/261"\n\n' +
      'First Name,Last Name,URL,Email Address,Company,Position,Connected On\nAda,Byron,https://www.linkedin.com/in/ada-example,ada@example.com,Engines Ltd,Analyst,15 Mar 2024\n',
  );
  const r = await runCli(['import', csv], { env: envFor(sb, t) });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, 'callctl: no phone column among: Notes: (the first non-empty row is the header; line 4 (First Name, Last Name, URL, Email Address, Company, Position, Connected On) looks like it: delete the rows above it, then import again)\n');
  assert.equal(sb.stats().requests, 0);
});
