// Formats callctl does not read are told by their content, whatever their name, and named in one
// line with how to export them — exit 2, nothing read or sent (docs/files.md, "Formats"): an Excel
// 97–2003 workbook and a password-protected .xlsx (both OLE2 files: real ones, made by LibreOffice
// and officecrypto-tool), an .xlsb, an Apple Numbers document, a web page saved as .xls, a ZIP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { zipOf } from '../helpers/zip.js';

const SAVE_AS = 'open it in Excel or LibreOffice and save it as .xlsx or CSV (without Excel: soffice --headless --convert-to xlsx <file>), then import that';

test('.xls, a password-protected .xlsx, .xlsb, .numbers, HTML and Excel 2003 XML saved as .xls, a plain ZIP: one line each, exit 2, nothing sent', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const copy = (from: string, to: string) => {
    copyFileSync(join(ROOT, 'fixtures/workbooks', from), join(dir, to));
    return to;
  };
  writeFileSync(join(dir, 'report.xls'), '<html><head><meta charset="utf-8"></head><body><table><tr><td>Name</td><td>Phone</td></tr></table></body></html>\n');
  writeFileSync(join(dir, 'export.xls'), '<?xml version="1.0"?>\n<?mso-application progid="Excel.Sheet"?>\n<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"><Worksheet ss:Name="Leads"/></Workbook>\n');
  writeFileSync(join(dir, 'photos.zip'), zipOf([{ name: 'a.jpg', data: 'x' }]));
  const cases: Array<[string, string]> = [
    [copy('old.xls', 'leads.xls'), `is an Excel 97–2003 workbook (.xls), which callctl does not read (${SAVE_AS})`],
    // An old workbook under an .xlsx name: told by content.
    [copy('old.xls', 'renamed.xlsx'), `is an Excel 97–2003 workbook (.xls), which callctl does not read (${SAVE_AS})`],
    [copy('password.xlsx', 'locked.xlsx'), 'is a password-protected Office file (an .xlsx saved with "Encrypt with Password"), which callctl does not read (in Excel: File → Info → Protect Workbook → Encrypt with Password, clear it and save; or export the sheet as CSV)'],
    [copy('leads.xlsb', 'leads.xlsb'), 'is an Excel binary workbook (.xlsb), which callctl does not read (in Excel: File → Save As → Excel Workbook (.xlsx) or CSV, then import that)'],
    [copy('leads.numbers', 'leads.numbers'), 'is an Apple Numbers document, which callctl does not read (in Numbers: File → Export To → Excel… or CSV…, then import that)'],
    ['report.xls', `is a web page (HTML) — the "Excel" export of many web apps is one, which callctl does not read (${SAVE_AS})`],
    ['export.xls', `is an Excel 2003 XML spreadsheet, which callctl does not read (${SAVE_AS})`],
    ['photos.zip', 'is a ZIP archive but not a workbook, which callctl does not read (unzip it and import the .xlsx, .ods or .csv inside, or export the sheet as CSV)'],
  ];
  for (const [name, said] of cases) {
    const r = await runCli(['import', join(dir, name), '--country', 'GB'], { env });
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.equal(r.stderr, `callctl: ${join(dir, name)} ${said}\n`, name);
  }
  // A workbook cut short (a download stopped): its directory is at its end. A broken file: exit 1.
  const whole = readFileSync(join(ROOT, 'fixtures/workbooks/xlsxwriter.xlsx'));
  writeFileSync(join(dir, 'cut.xlsx'), whole.subarray(0, whole.length >> 1));
  const cut = await runCli(['import', join(dir, 'cut.xlsx'), '--country', 'GB'], { env });
  assert.equal(cut.code, 1, cut.stderr);
  assert.equal(cut.stderr, `callctl: ${join(dir, 'cut.xlsx')} is a ZIP archive (a workbook?) whose directory is missing — cut short? (download or save it again, or export the sheet as CSV)\n`);
  // From stdin, an OLE2 file cannot be told apart: both kinds are named.
  const piped = await runCli(['import', '-', '--country', 'GB'], { env, input: readFileSync(join(ROOT, 'fixtures/workbooks/password.xlsx')) });
  assert.equal(piped.code, 2, piped.stderr);
  assert.match(piped.stderr, /^callctl: stdin is an Excel 97–2003 workbook \(\.xls\) or a password-protected Office file, which callctl does not read \(/);
  assert.equal(piped.stderr.trim().split('\n').length, 1);
  assert.equal(sb.stats().requests, 0);
});
