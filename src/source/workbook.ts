/**
 * The rows of a workbook (`.xlsx` or `.ods`, told by content: file-kind.ts), streamed: memory does
 * not grow with the rows, nor with the workbook's distinct texts (kept on disk, disk-strings.ts).
 * The worksheet is the first one, or `--sheet`; its first non-empty row is the header; each cell is
 * the text the spreadsheet shows, except that a number keeps all its digits and a date is ISO 8601
 * (xlsx-book.ts, ods-book.ts). Every row carries its sheet's name: a workbook's lines are named
 * `Leads!12` wherever callctl shows one (docs/files.md).
 */
import { statSync } from 'node:fs';
import { RuntimeError, UsageError } from '../errors.js';
import { type Book, openBook, type SheetInfo, unreadable } from './book.js';
import { otherSheets, type SheetSummary } from './book-sheets.js';
import { DiskStrings } from './disk-strings.js';
import { type FileKind, fileKind } from './file-kind.js';
import { normalizeHeader } from './headers.js';
import { CUT_MARK } from './long-records.js';
import type { Row, Source } from './open.js';
import type { RawCell, RawRow } from './xlsx-book.js';

/**
 * Temporary space for the shared strings, as a multiple of the file's size (and 1 MB more): a
 * workbook's texts compress 3 to 6 times; a table that inflates past this is refused as a bomb.
 */
const STRINGS_PER_FILE_BYTE = 10;

export interface WorkbookOptions {
  /** The file (resolved) and how the operator named it. */
  path: string;
  shown: string;
  kind: Exclude<FileKind, { kind: 'text' }>;
  /** The worksheet to read; the first one when absent; `all`: every sheet `accepts` takes. */
  sheet?: string;
  /** With `all`: whether a sheet's header maps (true), or why not. */
  accepts?: (header: string[]) => true | string;
}

/** The column a row's sheet is named in, with `--sheet all` (after the sheets' columns). */
export const SHEET_COLUMN = 'sheet';

/** "Referrals" (3 rows) */
const counted = (s: SheetSummary) => `"${s.name}" (${s.hidden ? 'hidden, ' : ''}${s.rows === undefined ? 'rows not counted' : `${s.rows} row${s.rows === 1 ? '' : 's'}`})`;

/**
 * The sheets to read and the notes to say: the one asked for (or the first) and, by default, the
 * other sheets holding rows; with `all`, every sheet whose header maps, the others named with why.
 * `union` is the columns of the chosen sheets by name (compared as the mapping compares them),
 * each sheet's own columns placed into it, then the sheet's name.
 */
async function plan(book: Book, o: WorkbookOptions): Promise<{ chosen: SheetInfo[]; notes: string[]; union?: string[] }> {
  const sheets = book.sheets;
  const shown = o.shown;
  if (o.sheet === 'all' && !sheets.some((s) => s.name === 'all')) {
    const notes: string[] = [];
    const chosen: SheetInfo[] = [];
    const union: string[] = [];
    const keys = new Map<string, number>();
    const summaries = await otherSheets(book);
    summaries.forEach((s, i) => {
      const why = s.header === undefined ? (s.rows === undefined ? 'it cannot be read' : 'it is empty') : o.accepts?.(s.header) ?? true;
      if (why !== true) return void notes.push(`${shown}: skipping worksheet ${counted(s)}: ${why}`);
      chosen.push(sheets[i] as SheetInfo);
      // A hidden sheet is read like the others, but said: its tab is not in front of the operator.
      if (s.hidden) notes.push(`${shown}: reading hidden worksheet ${counted(s)} too (--sheet <name> reads one sheet)`);
      for (const key of columnKeys(s.header as string[])) if (!keys.has(key.key)) keys.set(key.key, union.push(key.header) - 1);
    });
    if (chosen.length === 0) throw new UsageError(`${shown}: no worksheet has a header that maps`, notes.map((n) => n.replace(`${shown}: `, '')).join('; '));
    return { chosen, notes, union: [...union, SHEET_COLUMN] };
  }
  let wanted = sheets[0];
  if (o.sheet !== undefined) {
    // A name first (a sheet may be called "2"), then a tab's position as the spreadsheet shows it, from 1.
    const at = /^[1-9]\d*$/.test(o.sheet) ? sheets[Number(o.sheet) - 1] : undefined;
    wanted = sheets.find((s) => s.name === o.sheet) ?? sheets.find((s) => s.name.toLowerCase() === (o.sheet as string).toLowerCase()) ?? at;
    if (!wanted) throw new UsageError(`${shown} has no worksheet "${o.sheet}"`, `its worksheets: ${sheets.map((s, i) => `${i + 1}. ${s.name}`).join(', ') || '(none found)'}; --sheet takes a name or a number, and all reads every one whose header maps`);
  }
  if (!wanted) return { chosen: [], notes: [] };
  const notes: string[] = [];
  if (wanted.name !== o.sheet && o.sheet !== undefined && /^\d+$/.test(o.sheet)) notes.push(`${shown}: --sheet ${o.sheet} is worksheet "${wanted.name}"`);
  if (wanted.hidden) notes.push(`${shown}: worksheet "${wanted.name}" is hidden in ${book.kind === 'xlsx' ? 'Excel' : 'the workbook'}${o.sheet === undefined ? `, and first: it is the one read (--sheet <name> reads another)` : ''}`);
  if (o.sheet === undefined && sheets.length > 1) {
    const others = (await otherSheets(book, new Set([wanted.name]))).filter((s) => s.rows !== 0);
    if (others.length > 0) notes.push(`${shown}: read worksheet "${wanted.name}"; it has other sheets holding rows: ${others.map(counted).join(', ')} (--sheet <name> reads one, --sheet all every one whose header maps)`);
  }
  return { chosen: [wanted], notes };
}

/** Each header cell's key in the union: its name as the mapping compares it, and which repeat of it. */
function columnKeys(header: string[]): Array<{ key: string; header: string }> {
  const seen = new Map<string, number>();
  return header.map((h) => {
    const norm = normalizeHeader(h);
    const n = (seen.get(norm) ?? 0) + 1;
    seen.set(norm, n);
    return { key: `${norm}#${n}`, header: h };
  });
}

/** The shared strings, on disk; refused as a bomb once they pass the room a file this size may take. */
async function loadStrings(book: Book, o: WorkbookOptions, size: number): Promise<DiskStrings | undefined> {
  const items = book.strings();
  if (!items) return undefined;
  const room = STRINGS_PER_FILE_BYTE * size + 1024 * 1024;
  const strings = new DiskStrings();
  try {
    for await (const text of items) {
      strings.add(text ?? CUT_MARK);
      if (strings.bytes > room) {
        throw new RuntimeError('workbook_bomb', `${o.shown}: its shared strings inflate past ${STRINGS_PER_FILE_BYTE} times the file's size — a zip bomb, or a broken file: not read`, 'open it in the program that made it and save it again, or export the sheet as CSV');
      }
    }
  } catch (err) {
    strings.close();
    throw unreadable(o.shown, err);
  }
  return strings;
}

/** The sheet names of the workbook at `path` (for a TAB after --sheet); undefined when it is none. */
export async function sheetNames(path: string): Promise<string[] | undefined> {
  const kind = fileKind(path, path);
  if (kind.kind === 'text') return undefined;
  return (await openBook(path, kind, path)).sheets.map((s) => s.name);
}

/**
 * The sheets of the workbook at `path`, each with its header row and how many rows it holds; undefined
 * when the file is no workbook (a CSV, or a format refused when read). For a reader that takes
 * every sheet on its own (erasure requests: erasure/requests.ts).
 */
export async function workbookSheets(path: string, shown: string): Promise<SheetSummary[] | undefined> {
  let kind: FileKind;
  try {
    // A pipe or a FIFO is read once, as a stream (open.ts): never looked into here.
    if (!statSync(path).isFile()) return undefined;
    kind = fileKind(path, shown);
  } catch {
    return undefined; // opening it says why (a format refused, no such file)
  }
  if (kind.kind === 'text') return undefined;
  let book: Book;
  try {
    book = await openBook(path, kind, shown);
  } catch (err) {
    throw err instanceof UsageError ? err : unreadable(shown, err);
  }
  return otherSheets(book);
}

/** Opens a workbook and reads the header row of the chosen worksheet (or of each, with `--sheet all`). */
export async function openWorkbook(o: WorkbookOptions): Promise<Source> {
  const size = statSync(o.path).size;
  let book: Book;
  try {
    book = await openBook(o.path, o.kind, o.shown);
  } catch (err) {
    throw err instanceof UsageError ? err : unreadable(o.shown, err);
  }
  const { chosen, notes, union } = await plan(book, o);
  if (chosen.length === 0) throw new UsageError(`${o.shown}: no worksheet to read`, 'save the workbook again, or export the sheet as CSV');
  const strings = await loadStrings(book, o, size);
  const counter = { n: 0 };
  const onRead = (n: number) => (counter.n += n);
  const total = chosen.reduce((sum, s) => sum + book.sizeOf(s), 0);

  /** A row's cells as text, each at its column; a cell over 1 MB makes it `long`. */
  const cellsOf = (raw: RawCell[]): { cells: string[]; long: boolean } => {
    const cells: string[] = [];
    let long = false;
    for (const c of raw) {
      const text = c.shared !== undefined ? (strings?.get(c.shared) ?? '') : (c.text ?? '');
      if (text === CUT_MARK) long = true;
      while (cells.length < c.at) cells.push('');
      cells[c.at] = text;
    }
    return { cells, long };
  };

  type Sheet = { info: SheetInfo; rows: AsyncGenerator<RawRow>; header: string[] | undefined; line?: number };
  let current: AsyncGenerator<RawRow> | undefined;
  const next = async (rows: AsyncGenerator<RawRow>) => {
    try {
      return await rows.next();
    } catch (err) {
      throw unreadable(o.shown, err);
    }
  };
  /** A chosen sheet's rows, its header read. */
  async function open(info: SheetInfo): Promise<Sheet> {
    let rows: AsyncGenerator<RawRow>;
    try {
      rows = book.rows(info, onRead);
    } catch (err) {
      throw unreadable(o.shown, err);
    }
    current = rows;
    for (;;) {
      const row = await next(rows);
      if (row.done) return { info, rows, header: undefined };
      if (row.value.long) continue;
      const { cells } = cellsOf(row.value.cells);
      if (cells.some((c) => c.trim() !== '')) {
        const header = cells.map((h) => h.trim());
        while (header.length > 0 && header[header.length - 1] === '') header.pop();
        return { info, rows, header, line: row.value.number };
      }
    }
  }

  let first: Sheet;
  try {
    first = await open(chosen[0] as SheetInfo);
  } catch (err) {
    strings?.close();
    throw err;
  }
  if (first.header === undefined && union === undefined) {
    strings?.close();
    throw new UsageError(`${o.shown} (worksheet "${first.info.name}") is empty: no header row`, 'the first non-empty row must name the columns');
  }
  const header = union ?? (first.header as string[]);
  /** With --sheet all: where each of this sheet's columns goes in the union. */
  const placesOf = (own: string[]) => {
    const at = new Map(columnKeys((union as string[]).slice(0, -1)).map((k, i) => [k.key, i]));
    return columnKeys(own).map((k) => at.get(k.key));
  };

  let closed = false;
  async function* rows(): AsyncGenerator<Row> {
    let sheet: Sheet | undefined = first;
    let index = 0;
    try {
      while (sheet !== undefined) {
        const places = union && sheet.header ? placesOf(sheet.header) : undefined;
        for (;;) {
          if (closed) return;
          const next_ = await next(sheet.rows);
          if (next_.done) break;
          const raw = next_.value;
          // The row number the spreadsheet shows, and its sheet, are the "line" of messages and rejects.
          const at = { line: raw.number, sheet: sheet.info.name };
          if (raw.long) {
            yield { cells: [], ...at, refused: 'the row is longer than 4 MB in the workbook: not read (a broken export?)' };
            continue;
          }
          const read = cellsOf(raw.cells);
          let cells = read.cells;
          if (cells.every((c) => c.trim() === '')) continue;
          if (read.long) {
            yield { cells: [], ...at, refused: 'a cell is longer than 1 MB: not read (a broken export?)' };
            continue;
          }
          if (union && places) {
            const placed = new Array<string>(union.length).fill('');
            cells.forEach((c, i) => {
              const to = places[i];
              if (to !== undefined) placed[to] = c;
              else if (c.trim() !== '') placed.push(c); // beyond its header: the row is too long, as in one sheet
            });
            placed[union.length - 1] = sheet.info.name;
            cells = placed;
          }
          yield { cells, ...at };
        }
        index += 1;
        sheet = union && index < chosen.length ? await open(chosen[index] as SheetInfo) : undefined;
      }
    } finally {
      strings?.close();
    }
  }

  return {
    header,
    ...(union === undefined && first.line !== undefined ? { headerLine: first.line } : {}),
    delimiter: ',',
    encoding: 'utf8',
    rows: rows(),
    bytesRead: () => counter.n,
    size: total > 0 ? total : size,
    close: () => {
      closed = true;
      strings?.close();
      void current?.return(undefined);
    },
    notes,
    ...(union ? { sheetColumn: union.length - 1 } : {}),
  };
}
