/**
 * A workbook, whichever format holds it (`.xlsx` or `.ods`): its sheets in their own order, and
 * each sheet's rows streamed with their numbers as the spreadsheet shows them. A cell is its
 * text, or (in an `.xlsx`) the index of a shared string, which the reader looks up.
 */
import { RuntimeError } from '../errors.js';
import type { FileKind } from './file-kind.js';
import { odsRows, odsSheets } from './ods-book.js';
import { missingSheet, type RawRow, sharedStringItems, xlsxParts, xlsxRows, type XlsxParts } from './xlsx-book.js';
import type { ZipEntry } from './zip.js';

/** A worksheet: its name, and whether its tab is hidden. */
export interface SheetInfo {
  name: string;
  /** Hidden in Excel (`state="hidden"` or `"veryHidden"`), or an `.ods` table not displayed. */
  hidden: boolean;
}

export interface Book {
  kind: 'xlsx' | 'ods';
  sheets: SheetInfo[];
  /** The rows of a sheet, in order (blank ones may be left out); `onRead`: compressed bytes read. */
  rows(sheet: SheetInfo, onRead?: (bytes: number) => void): AsyncGenerator<RawRow>;
  /** The compressed size of what `rows` reads for a sheet (the progress's whole). */
  sizeOf(sheet: SheetInfo): number;
  /** The shared strings, in order (`undefined` for one too long to be a cell); none in an `.ods`. */
  strings(): AsyncGenerator<string | undefined> | undefined;
}

/** Opens the workbook `fileKind` found: its sheet list (and, for an `.xlsx`, its styles). */
export async function openBook(path: string, kind: Exclude<FileKind, { kind: 'text' }>, shown: string): Promise<Book> {
  if (kind.kind === 'ods') {
    const sheets = await odsSheets(path, kind.content, shown);
    return {
      kind: 'ods',
      sheets,
      rows: (sheet, onRead) => odsRows(path, kind.content, sheets.indexOf(sheet), shown, onRead),
      sizeOf: () => kind.content.compressed,
      strings: () => undefined,
    };
  }
  const parts: XlsxParts = xlsxParts(path, kind.entries, kind.workbook, shown);
  return {
    kind: 'xlsx',
    sheets: parts.sheets,
    rows: (sheet, onRead) => {
      const entry = (sheet as SheetInfo & { entry?: ZipEntry }).entry;
      if (!entry) throw missingSheet(shown, sheet.name);
      return xlsxRows(path, entry, parts, shown, onRead);
    },
    sizeOf: (sheet) => (sheet as SheetInfo & { entry?: ZipEntry }).entry?.compressed ?? 0,
    strings: () => (parts.sharedStrings ? sharedStringItems(path, parts.sharedStrings, shown) : undefined),
  };
}

/** A workbook's reading that failed for a reason no check above named: one line, what to do. */
export function unreadable(shown: string, err: unknown): RuntimeError {
  if (err instanceof RuntimeError) return err;
  return new RuntimeError('malformed_workbook', `${shown}: not a readable workbook (${(err as Error)?.message ?? String(err)})`, 'open it in the program that made it and save it again, or export the sheet as CSV');
}
