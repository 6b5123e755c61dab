// Workbook bombs (docs/files.md, "Bombs"): a member that would inflate past 150 times its size, or
// past the size its archive declares, is refused before it is held; shared strings that would take
// more than 10 times the file's size in temporary space are refused as they pass it. One line,
// exit 1, nothing sent, a child's peak memory far under 200 MB, no temporary file left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { runCliMeasured } from '../helpers/rss.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { repeatedDeflate, zipOf, type ZipMember } from '../helpers/zip.js';

const X = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A one-sheet workbook (Name, Phone; one row whose name is shared string 0) with `strings` as its shared-strings part. */
function workbook(strings: ZipMember): Buffer {
  return zipOf([
    { name: '_rels/.rels', data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="${R}/officeDocument" Target="xl/workbook.xml"/></Relationships>` },
    { name: 'xl/workbook.xml', data: `<workbook xmlns="${X}" xmlns:r="${R}"><sheets><sheet name="Leads" sheetId="1" r:id="s1"/></sheets></workbook>` },
    { name: 'xl/_rels/workbook.xml.rels', data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="s1" Type="${R}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="s2" Type="${R}/sharedStrings" Target="sharedStrings.xml"/></Relationships>` },
    { name: 'xl/worksheets/sheet1.xml', data: `<worksheet xmlns="${X}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Name</t></is></c><c r="B1" t="inlineStr"><is><t>Phone</t></is></c></row><row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="inlineStr"><is><t>+447400100001</t></is></c></row></sheetData></worksheet>` },
    strings,
  ]);
}

const tmpFiles = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('callctl-strings-'));

test('one shared string that inflates to 2 GB from 2 MB: refused before it is read, in one line; memory stays small', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const big = repeatedDeflate(Buffer.alloc(1024 * 1024, 'a'), 2048, Buffer.from(`<sst xmlns="${X}"><si><t>`), Buffer.from('</t></si></sst>'));
  const file = join(dir, 'bomb.xlsx');
  writeFileSync(file, workbook({ name: 'xl/sharedStrings.xml', compressed: big }));
  const r = await runCliMeasured(t, ['import', file, '--country', 'GB'], { env: envFor(sb, t) });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, `callctl: ${file}: xl/sharedStrings.xml would inflate to 2.0 GB from 2.0 MB (over 150 times) — a zip bomb, or a broken file: not read (open it in the program that made it and save it again, or export the sheet as CSV)\n`);
  assert.ok(r.peakMb < 120, `peak RSS ${r.peakMb.toFixed(0)} MB`);
  assert.equal(sb.stats().requests, 0);
});

test('the same string in an archive that declares 100 KB: refused once it inflates past that', async (t) => {
  const dir = tempDir(t);
  const big = repeatedDeflate(Buffer.alloc(1024 * 1024, 'a'), 2048, Buffer.from(`<sst xmlns="${X}"><si><t>`), Buffer.from('</t></si></sst>'));
  const file = join(dir, 'liar.xlsx');
  writeFileSync(file, workbook({ name: 'xl/sharedStrings.xml', compressed: { bytes: big.bytes, size: 100 * 1024 } }));
  const r = await runCliMeasured(t, ['import', file, '--country', 'GB', '--dry-run'], { env: { CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, `callctl: ${file}: xl/sharedStrings.xml inflates past the 0.1 MB its archive declares — a zip bomb, or a broken file: not read (open it in the program that made it and save it again, or export the sheet as CSV)\n`);
  assert.ok(r.peakMb < 120, `peak RSS ${r.peakMb.toFixed(0)} MB`);
});

test('500,000 strings that compress 30 times: refused once they pass 10 times the file in temporary space, none left behind', async (t) => {
  const dir = tempDir(t);
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  // A block of 500 strings, repeated: each compresses like the last, ~30 times (under the ratio
  // that marks a member a bomb), and together they inflate to ~60 MB from ~2 MB.
  const block = Buffer.from(Array.from({ length: 500 }, (_, i) => `<si><t>lead ${String(i).padStart(4, '0')} ${'x'.repeat(100)}</t></si>`).join(''));
  const many = repeatedDeflate(block, 1000, Buffer.from(`<sst xmlns="${X}">`), Buffer.from('</sst>'));
  const file = join(dir, 'strings.xlsx');
  writeFileSync(file, workbook({ name: 'xl/sharedStrings.xml', compressed: many }));
  const size = statSync(file).size;
  let most = 0;
  const sample = () => {
    for (const d of tmpFiles(tmp)) {
      try {
        for (const f of readdirSync(join(tmp, d))) most = Math.max(most, statSync(join(tmp, d, f)).size);
      } catch {
        // removed meanwhile
      }
    }
  };
  const r = await runCliMeasured(t, ['import', file, '--country', 'GB', '--dry-run'], { env: { CALLCTL_CONFIG_DIR: tempDir(t), TMPDIR: tmp }, whileRunning: sample });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, `callctl: ${file}: its shared strings inflate past 10 times the file's size — a zip bomb, or a broken file: not read (open it in the program that made it and save it again, or export the sheet as CSV)\n`);
  assert.deepEqual(tmpFiles(tmp), [], 'the temporary file is removed');
  assert.ok(most <= 10 * size + 2 * 1024 * 1024, `temporary space ${most} bytes for a file of ${size}`);
  assert.ok(r.peakMb < 150, `peak RSS ${r.peakMb.toFixed(0)} MB`);
});

test('a 5 MB row and a 1.5 MB shared string: each rejects its own row unread; the rows around them are read', async (t) => {
  const dir = tempDir(t);
  const { randomBytes } = await import('node:crypto');
  const cellRow = (r: number, name: string, phone: string) => `<row r="${r}"><c r="A${r}" t="inlineStr"><is><t>${name}</t></is></c><c r="B${r}" t="inlineStr"><is><t>${phone}</t></is></c></row>`;
  const sheet = `<worksheet xmlns="${X}"><sheetData>${cellRow(1, 'Name', 'Phone')}${cellRow(2, 'Before', '+447400100001')}${cellRow(3, randomBytes(3_750_000).toString('base64'), '+447400100002')}<row r="4"><c r="A4" t="s"><v>0</v></c><c r="B4" t="inlineStr"><is><t>+447400100003</t></is></c></row>${cellRow(5, 'After', '+447400100004')}</sheetData></worksheet>`;
  const file = join(dir, 'long.xlsx');
  writeFileSync(file, zipOf([
    { name: '_rels/.rels', data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="${R}/officeDocument" Target="xl/workbook.xml"/></Relationships>` },
    { name: 'xl/workbook.xml', data: `<workbook xmlns="${X}" xmlns:r="${R}"><sheets><sheet name="Leads" sheetId="1" r:id="s1"/></sheets></workbook>` },
    { name: 'xl/_rels/workbook.xml.rels', data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="s1" Type="${R}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="s2" Type="${R}/sharedStrings" Target="sharedStrings.xml"/></Relationships>` },
    { name: 'xl/worksheets/sheet1.xml', data: sheet },
    { name: 'xl/sharedStrings.xml', data: `<sst xmlns="${X}"><si><t>${randomBytes(1_125_000).toString('base64')}</t></si></sst>` },
  ]));
  const r = await runCliMeasured(t, ['import', file, '--country', 'GB', '--dry-run', '--json'], { env: { CALLCTL_CONFIG_DIR: tempDir(t) }, cwd: dir });
  assert.equal(r.code, 6, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual([s.rows, s.rejected], [4, 2]);
  const { readFileSync } = await import('node:fs');
  const rejects = readFileSync(`${file}.rejects.csv`, 'utf8').split(/\r?\n/).filter((l) => l !== '');
  assert.equal(rejects.length, 3, rejects.join('\n').slice(0, 500));
  assert.match(rejects[1]!, /the row is longer than 4 MB in the workbook: not read \(a broken export\?\)/);
  assert.match(rejects[2]!, /a cell is longer than 1 MB: not read \(a broken export\?\)/);
  assert.ok(r.peakMb < 150, `peak RSS ${r.peakMb.toFixed(0)} MB`);
});
