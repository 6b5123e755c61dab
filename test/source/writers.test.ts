// Workbooks from every common writer read alike (fixtures/workbooks/, made by fixtures/make-workbooks.mjs:
// openpyxl, pandas, XlsxWriter, LibreOffice (.xlsx and .ods), SheetJS, exceljs by the real writers;
// Google Sheets, Numbers and Excel's layouts by hand from real exports), and so does a workbook in
// every shape OOXML allows that no writer here makes: rows and cells without references, namespace
// prefixes, ISO date cells, escapes, parts under other names and cases, no <dimension>.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { zipOf } from '../helpers/zip.js';

const LEADS = [
  { firstName: 'Ada', lastName: 'Byron', email: 'ada@example.com', status: '2024-03-15', notes: 'vip', phone: '+447400800001' },
  { firstName: 'Charles', lastName: 'Babbage', email: 'cb@example.com', status: '2024-12-01T09:30:00', notes: 'line one\nline two', phone: '+447400800002' },
  { firstName: 'Mary', lastName: 'Somerville', email: 'ms@example.com', notes: 'Zoë Ñúñez 東京 & <b> "q"', phone: '+447400800003' },
];

const WRITERS = ['openpyxl.xlsx', 'pandas.xlsx', 'xlsxwriter.xlsx', 'libreoffice.xlsx', 'libreoffice.ods', 'sheetjs.xlsx', 'exceljs-stream.xlsx', 'google-sheets.xlsx', 'numbers.xlsx', 'excel.xlsx'];

test('every writer: the three leads as they would be sent — phones whole, dates ISO 8601, line ends and Unicode kept', async (t) => {
  const dir = tempDir(t);
  const env = { CALLCTL_CONFIG_DIR: tempDir(t) };
  for (const name of WRITERS) {
    // Under a .csv name: a workbook is told by its content.
    const file = join(dir, `${name}.csv`);
    copyFileSync(join(ROOT, 'fixtures/workbooks', name), file);
    const r = await runCli(['import', file, '--dry-run', '--format', 'ndjson', '--country', 'GB', '--map', 'Signed Up=status'], { env, cwd: dir });
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    assert.deepEqual(r.stdout.trim().split('\n').map((l) => JSON.parse(l)), LEADS, name);
    assert.match(r.stderr, /valid +3/, name);
  }
});

const X = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A workbook in shapes OOXML allows that no writer here produces. */
function oddWorkbook(): Buffer {
  const sheet = `<?xml version="1.0"?>
<x:worksheet xmlns:x="${X}" xmlns:r="${R}">
  <x:sheetData>
    <x:row>
      <x:c t="inlineStr"><x:is><x:t>Name</x:t></x:is></x:c>
      <x:c t="s"><x:v>0</x:v></x:c>
      <x:c t="inlineStr"><x:is><x:t>Joined</x:t></x:is></x:c>
      <x:c t="inlineStr"><x:is><x:t>Note</x:t></x:is></x:c>
    </x:row>
    <x:row>
      <x:c t="str"><x:f>A1</x:f><x:v>Grace &#x48;opper</x:v></x:c>
      <x:c><x:v>4.47400900001E11</x:v></x:c>
      <x:c t="d"><x:v>2024-03-15T00:00:00</x:v></x:c>
      <x:c t="s"><x:v>1</x:v></x:c>
    </x:row>
    <x:row r="7"><x:c r="D7" t="e"><x:v>#N/A</x:v></x:c><x:c r="B7" t="inlineStr"><x:is><x:r><x:t>+44 7400 </x:t></x:r><x:r><x:rPr><x:b/></x:rPr><x:t>900002</x:t></x:r></x:is></x:c><x:c s="0" r="A7" t="b"><x:v>1</x:v></x:c></x:row>
  </x:sheetData>
  <x:dimension ref="A1:A1"/>
</x:worksheet>`;
  const strings = `<?xml version="1.0"?><sst xmlns="${X}"><si><t>Phone</t></si><si><r><t xml:space="preserve">line_x000D_</t></r><r><rPr><i/></rPr><t>&#10;two</t></r><rPh sb="0" eb="1"><t>ふりがな</t></rPh></si></sst>`;
  return zipOf([
    { name: '[Content_Types].xml', data: '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>' },
    { name: '_rels/.rels', data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="a" Type="${R}/officeDocument" Target="/Book/Main.xml"/></Relationships>` },
    { name: 'Book/Main.xml', data: `<workbook xmlns="${X}" xmlns:rel="${R}"><sheets><sheet name="Contacts &amp; Co" sheetId="9" rel:id="s1"/></sheets></workbook>` },
    { name: 'Book/_rels/Main.xml.rels', data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="s1" Type="${R}/worksheet" Target="Sheets/../Sheets/First.XML"/><Relationship Id="t" Type="${R}/sharedStrings" Target="/Book/Text.xml"/><Relationship Id="w" Type="${R}/hyperlink" Target="https://example.com/" TargetMode="External"/></Relationships>` },
    { name: 'Book/Sheets/first.xml', data: sheet, method: 0 },
    { name: 'Book/Text.xml', data: strings },
  ]);
}

test('OOXML as it may be written: parts under other names and cases, prefixes, no references, ISO and rich cells, escapes', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'odd.xlsx');
  writeFileSync(file, oddWorkbook());
  const env = { CALLCTL_CONFIG_DIR: tempDir(t) };
  const r = await runCli(['import', file, '--dry-run', '--format', 'ndjson', '--country', 'GB', '--map', 'Joined=status'], { env, cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n').map((l) => JSON.parse(l)), [
    { firstName: 'Grace', lastName: 'Hopper', status: '2024-03-15', notes: 'line\r\ntwo', phone: '+447400900001' },
    { firstName: 'TRUE', notes: '#N/A', phone: '+447400900002' },
  ]);
});

test('--sheet names the sheets of an .ods too', async (t) => {
  const dir = tempDir(t);
  copyFileSync(join(ROOT, 'fixtures/workbooks/libreoffice.ods'), join(dir, 'leads.ods'));
  const r = await runCli(['import', join(dir, 'leads.ods'), '--sheet', 'Nope', '--dry-run'], { env: { CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /has no worksheet "Nope" \(its worksheets: 1\. Leads;/);
});
