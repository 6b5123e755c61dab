// A phone Excel stored as a number has lost its leading 0 — in Italy a landline's 0 is part of the
// number (06 = Rome), so 612345678 is no Italian number at all. The row is rejected (never guessed),
// and the reason says what the 0 would make of it (docs/commands/import.md, "Workbooks").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { runCli, tempDir } from '../helpers/cli.js';

test('a number cell without its leading 0: rejected with the number the 0 would make; valid cells untouched', async (t) => {
  const dir = tempDir(t);
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Leads');
  ws.addRow(['Name', 'Phone', 'Country']);
  ws.addRow(['Roma', 612345678, 'Italy']);
  ws.addRow(['Paris', 612345678, 'France']);
  const file = join(dir, 'leads.xlsx');
  await wb.xlsx.writeFile(file);
  const r = await runCli(['import', file, '--dry-run', '--json'], { env: { CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.equal(r.code, 6, r.stderr);
  assert.deepEqual([JSON.parse(r.stdout).rows, JSON.parse(r.stdout).rejected], [2, 1]);
  const rejects = parse(readFileSync(`${file}.rejects.csv`, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;
  assert.deepEqual(rejects.map((x) => [x.Name, x.error]), [
    ['Roma', 'phone "612345678" is not a valid number for IT — with a leading 0 it is +39 06 1234 5678: a cell stored as a number drops it (write the 0, or store the column as text)'],
  ]);
});
