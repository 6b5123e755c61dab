/** Writes an `.xlsx` workbook of the given sheets (exceljs), each a list of rows; a sheet may be hidden. Returns `file`. */
import ExcelJS from 'exceljs';

export async function writeBook(file: string, sheets: Array<{ name: string; hidden?: boolean; rows: unknown[][] }>): Promise<string> {
  const wb = new ExcelJS.Workbook();
  for (const s of sheets) {
    const ws = wb.addWorksheet(s.name, s.hidden ? { state: 'hidden' } : {});
    for (const row of s.rows) ws.addRow(row);
  }
  await wb.xlsx.writeFile(file);
  return file;
}
