/**
 * What the other sheets of a workbook hold, without keeping them: each one's rows streamed and
 * counted, the first one holding a value kept as its header (an `.xlsx`'s shared strings looked up
 * by streaming the table, stopping once they are found). Memory stays a chunk and a row, whatever
 * the sheets hold. Used to say which sheets a workbook has besides the one read, and, for
 * `--sheet all`, which of them have a header that maps.
 */
import type { Book, SheetInfo } from './book.js';
import type { RawCell } from './xlsx-book.js';

export interface SheetSummary {
  name: string;
  /** Hidden: its tab is not shown. */
  hidden: boolean;
  /** Its first row holding a value, as text (trimmed, trailing empty cells dropped); undefined for an empty sheet. */
  header: string[] | undefined;
  /** Rows holding a value, the header not counted; undefined when the sheet could not be read. */
  rows: number | undefined;
}

/** A row holds a value: a cell with text that is not blank, or a shared string (looked up later). */
const holdsValue = (cells: RawCell[]) => cells.some((c) => c.shared !== undefined || (c.text !== undefined && c.text.trim() !== ''));

/** One sheet's header cells and the rows holding a value. */
async function scanSheet(book: Book, sheet: SheetInfo): Promise<{ header: RawCell[] | undefined; rows: number | undefined }> {
  let header: RawCell[] | undefined;
  let rows = 0;
  try {
    for await (const row of book.rows(sheet)) {
      if (row.long) {
        rows += 1;
        continue;
      }
      if (!holdsValue(row.cells)) continue;
      rows += 1;
      header ??= row.cells;
    }
  } catch {
    // A sheet that cannot be read is named, not counted; reading it (--sheet) says why.
    return { header: undefined, rows: undefined };
  }
  return { header, rows };
}

/** The shared strings at `wanted` indices, streaming the table until the last of them. */
async function lookup(book: Book, wanted: Set<number>): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  if (wanted.size === 0) return found;
  const items = book.strings();
  if (!items) return found;
  const last = Math.max(...wanted);
  let i = 0;
  for await (const text of items) {
    if (wanted.has(i)) found.set(i, text ?? '');
    if (++i > last) break;
  }
  return found;
}

/** Every sheet of the workbook but `skip` (names), in the workbook's order: header and rows. */
export async function otherSheets(book: Book, skip: ReadonlySet<string> = new Set()): Promise<SheetSummary[]> {
  const scanned: Array<{ sheet: SheetInfo; header: RawCell[] | undefined; rows: number | undefined }> = [];
  for (const sheet of book.sheets) if (!skip.has(sheet.name)) scanned.push({ sheet, ...(await scanSheet(book, sheet)) });
  const wanted = new Set(scanned.flatMap((s) => (s.header ?? []).flatMap((c) => (c.shared !== undefined ? [c.shared] : []))));
  const strings = await lookup(book, wanted);
  return scanned.map(({ sheet, header, rows }) => {
    let text: string[] | undefined;
    if (header) {
      text = [];
      for (const c of header) text[c.at] = (c.shared !== undefined ? (strings.get(c.shared) ?? '') : (c.text ?? '')).trim();
      text = Array.from(text, (h) => h ?? '');
      while (text.length > 0 && text[text.length - 1] === '') text.pop();
      if (text.length === 0) text = undefined;
    }
    return { name: sheet.name, hidden: sheet.hidden, header: text, rows: rows === undefined ? undefined : Math.max(0, rows - 1) };
  });
}
