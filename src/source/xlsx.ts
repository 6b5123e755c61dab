/**
 * The rows of an Excel workbook (`.xlsx`), streamed with exceljs's WorkbookReader: memory does
 * not grow with the rows (read-excel-file, measured beside it, holds the whole sheet; README,
 * "File formats"), nor with the workbook's distinct texts (kept on disk, disk-strings.ts). The
 * worksheet is the first one, or `--sheet`; its first non-empty row is the header; each cell
 * becomes the text Excel shows, except that a number keeps all its digits (a phone stored as a
 * number is never `4.47911E+11`) and a date is ISO 8601.
 */
import { createReadStream, statSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { RuntimeError, UsageError } from '../errors.js';
import { DiskStrings } from './disk-strings.js';
import type { Row, Source } from './open.js';
import { normalizeHeader } from './headers.js';
import { type SheetSummary, otherSheets } from './xlsx-sheets.js';
import { sheetsOf } from './xlsx-zip.js';

export { headOf, isZip, sheetsOf } from './xlsx-zip.js';

/** Excel's date as ISO 8601: the day alone when there is no time of day (Excel dates have no zone). */
function isoDate(d: Date): string {
  const iso = d.toISOString();
  if (iso.endsWith('T00:00:00.000Z')) return iso.slice(0, 10);
  return iso.replace(/\.000Z$|Z$/, '');
}

/** A number as Excel shows it at full width: integers whole, fractions to Excel's 15 digits. */
function numberText(n: number): string {
  if (Number.isInteger(n)) return Math.abs(n) < 1e21 ? String(n) : BigInt(n).toString();
  return String(Number(n.toPrecision(15)));
}

/** One cell's value (exceljs's model) as text. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : isoDate(value);
  if (typeof value === 'object') {
    const v = value as { richText?: Array<{ text: string }>; text?: unknown; result?: unknown; error?: string; formula?: string; sharedFormula?: string };
    if (Array.isArray(v.richText)) return v.richText.map((r) => r.text).join('');
    if (v.formula !== undefined || v.sharedFormula !== undefined) return cellText(v.result);
    if (v.error !== undefined) return v.error;
    if (v.text !== undefined) return cellText(v.text);
  }
  return String(value);
}

const patched: unique symbol = Symbol.for('callctl.unzipper.endAfterDrain') as never;

/**
 * exceljs reads the archive through unzipper's Parse, which pushes each entry it finds, then
 * `end`s itself at the end of the central directory and emits 'end' at once on its 'finish' — while
 * entries it pushed may still wait in its buffer for exceljs, which pauses the stream while it
 * handles the one before. exceljs then sees 'end', stops, and never reads them: a small last entry
 * (a workbook whose last entry was xl/workbook.xml lost its sheet names: "Cannot read properties of
 * undefined (reading 'sheets')", 1 read in ~300; a worksheet or the shared strings could be lost
 * the same way). The 'end' emitted by hand is held back; Parse has already pushed its own end
 * (or it is pushed now), so the stream's own 'end' follows once its buffer is read.
 * unzipper 0.12 still does this; exceljs 4.4 uses 0.10.
 */
export function endParseAfterDrain(unzipper: { Parse: (opts?: unknown) => Duplex } & { [patched]?: true }): void {
  if (unzipper[patched] || typeof unzipper.Parse !== 'function') return;
  const Parse = unzipper.Parse;
  unzipper.Parse = (opts?: unknown) => {
    const p = Parse(opts);
    // Only where its entries are read as a stream (exceljs's way); its 'entry' event way is left be.
    if ((opts as { forceStream?: boolean } | undefined)?.forceStream !== true) return p;
    const emit = p.emit;
    p.emit = function (this: Duplex, event: string | symbol, ...args: unknown[]): boolean {
      // By hand, from 'finish': let the buffered entries be read first. Its 'close' by hand, which
      // would now come before 'end' (a premature close to stream.finished and pipeline), waits for
      // the stream's own, once it has ended.
      if (event === 'end' && !this.readableEnded) {
        if (this.readable) this.push(null);
        return false;
      }
      if (event === 'close' && !this.readableEnded && !this.destroyed) return false;
      return emit.call(this, event, ...args);
    } as Duplex['emit'];
    return p;
  };
  unzipper[patched] = true;
}

export interface WorkbookOptions {
  path: string;
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
async function plan(o: WorkbookOptions): Promise<{ chosen: string[]; notes: string[]; union?: string[] }> {
  const sheets = sheetsOf(o.path);
  if (o.sheet === 'all' && !sheets.some((s) => s.name === 'all')) {
    const notes: string[] = [];
    const chosen: string[] = [];
    const union: string[] = [];
    const keys = new Map<string, number>();
    for (const s of await otherSheets(o.path)) {
      const why = s.header === undefined ? 'it is empty' : o.accepts?.(s.header) ?? true;
      if (why !== true) {
        notes.push(`${o.path}: skipping worksheet ${counted(s)}: ${why}`);
        continue;
      }
      chosen.push(s.name);
      // A hidden sheet is read like the others, but said: its tab is not in front of the operator.
      if (s.hidden) notes.push(`${o.path}: reading hidden worksheet ${counted(s)} too (--sheet <name> reads one sheet)`);
      for (const key of columnKeys(s.header as string[])) if (!keys.has(key.key)) keys.set(key.key, union.push(key.header) - 1);
    }
    if (chosen.length === 0) throw new UsageError(`${o.path}: no worksheet has a header that maps`, notes.map((n) => n.replace(`${o.path}: `, '')).join('; '));
    return { chosen, notes, union: [...union, SHEET_COLUMN] };
  }
  let wanted = sheets[0];
  if (o.sheet !== undefined) {
    // A name first (a sheet may be called "2"), then a tab's position as Excel shows it, from 1.
    const at = /^[1-9]\d*$/.test(o.sheet) ? sheets[Number(o.sheet) - 1] : undefined;
    wanted = sheets.find((s) => s.name === o.sheet) ?? sheets.find((s) => s.name.toLowerCase() === (o.sheet as string).toLowerCase()) ?? at;
    if (!wanted) throw new UsageError(`${o.path} has no worksheet "${o.sheet}"`, `its worksheets: ${sheets.map((s, i) => `${i + 1}. ${s.name}`).join(', ') || '(none found)'}; --sheet takes a name or a number, and all reads every one whose header maps`);
  }
  if (!wanted) return { chosen: [], notes: [] };
  const notes: string[] = [];
  if (wanted.name !== o.sheet && o.sheet !== undefined && /^\d+$/.test(o.sheet)) notes.push(`${o.path}: --sheet ${o.sheet} is worksheet "${wanted.name}"`);
  if (wanted.hidden) notes.push(`${o.path}: worksheet "${wanted.name}" is hidden in Excel${o.sheet === undefined ? `, and first: it is the one read (--sheet <name> reads another)` : ''}`);
  if (o.sheet === undefined && sheets.length > 1) {
    const others = (await otherSheets(o.path, new Set([wanted.name]))).filter((s) => s.rows !== 0);
    if (others.length > 0) notes.push(`${o.path}: read worksheet "${wanted.name}"; it has other sheets holding rows: ${others.map(counted).join(', ')} (--sheet <name> reads one, --sheet all every one whose header maps)`);
  }
  return { chosen: [wanted.name], notes };
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

/** Opens a workbook and reads the header row of the chosen worksheet (or of each, with `--sheet all`). */
export async function openWorkbook(o: WorkbookOptions): Promise<Source> {
  const size = statSync(o.path).size;
  const { chosen, notes, union } = await plan(o);
  const sheetNames = new Map(sheetsOf(o.path).map((s) => [s.sheetNo, s.name]));

  const { default: ExcelJS } = await import('exceljs');
  endParseAfterDrain((await import('unzipper')).default);
  const counter = { n: 0 };
  const bytes = createReadStream(o.path, { highWaterMark: 256 * 1024 });
  bytes.on('data', (c) => (counter.n += (c as Buffer).length));
  // Shared strings are emitted, not cached, and kept on disk (disk-strings.ts): the table holds
  // every distinct text of the workbook, and in memory it grew with the rows. With them emitted,
  // exceljs spools each worksheet to a temporary file and reads it once the table is complete.
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(bytes, { sharedStrings: 'emit', styles: 'cache', hyperlinks: 'ignore', worksheets: 'emit', entries: 'ignore' });
  const strings = new DiskStrings();
  const broken = (err: unknown): never => {
    strings.close();
    if (err instanceof UsageError || err instanceof RuntimeError) throw err;
    throw new RuntimeError('malformed_xlsx', `${o.path}: not a readable Excel workbook (${(err as Error)?.message ?? String(err)})`, 'open it in Excel and save it again as .xlsx, or export the sheet as CSV');
  };

  type WorksheetReader = AsyncIterable<{ number: number; values: unknown }> & { id?: unknown; name?: string };
  type Event = { eventType?: string; value?: unknown; index?: number; text?: unknown };
  const events = (reader as unknown as { parse(): AsyncIterator<Event> }).parse();
  const cellsOf = (values: unknown): string[] => {
    const list = Array.isArray(values) ? (values as unknown[]) : [];
    const cells: string[] = [];
    for (let i = 1; i < list.length; i++) {
      const v = list[i] as { sharedString?: unknown } | undefined;
      cells.push(v !== null && typeof v === 'object' && typeof v.sharedString === 'number' ? (strings.get(v.sharedString) ?? '') : cellText(v));
    }
    return cells;
  };
  const left = new Set(chosen);
  /** The next chosen worksheet in the archive, its rows and header; the others are read past. */
  async function nextSheet(): Promise<{ name: string; rows: AsyncIterator<{ number: number; values: unknown }>; header: string[] | undefined } | undefined> {
    while (left.size > 0) {
      const next = await events.next().catch(broken);
      if (next.done) return undefined;
      const e = next.value;
      if (e.eventType === undefined && typeof e.index === 'number') {
        strings.add(cellText(e.text));
        continue;
      }
      if (e.eventType !== 'worksheet') continue;
      const ws = e.value as WorksheetReader;
      // exceljs names a worksheet only when workbook.xml came first in the archive; otherwise it
      // knows its file number, which the workbook's relationships map to a name.
      const known = (reader as unknown as { model?: unknown }).model !== undefined;
      const name = known ? ws.name : sheetNames.get(String(ws.id));
      const take = chosen.length === 0 || (name !== undefined && left.has(name));
      if (!take) {
        for await (const _row of ws) void _row; // a sheet that is not read
        continue;
      }
      if (name !== undefined) left.delete(name);
      else left.clear();
      const rows = ws[Symbol.asyncIterator]();
      for (;;) {
        const row = await rows.next().catch(broken);
        if (row.done) return { name: name ?? '', rows, header: undefined };
        const cells = cellsOf(row.value.values);
        if (cells.some((c) => c.trim() !== '')) {
          const header = cells.map((h) => h.trim());
          while (header.length > 0 && header[header.length - 1] === '') header.pop();
          return { name: name ?? '', rows, header };
        }
      }
    }
    return undefined;
  }

  let sheet = await nextSheet();
  if (!sheet) {
    strings.close();
    throw new UsageError(`${o.path}: no worksheet to read`, 'save the workbook again in Excel, or export the sheet as CSV');
  }
  if (sheet.header === undefined && union === undefined) {
    strings.close();
    throw new UsageError(`${o.path}${chosen[0] !== undefined ? ` (worksheet "${chosen[0]}")` : ''} is empty: no header row`, 'the first non-empty row must name the columns');
  }
  const header = union ?? (sheet.header as string[]);
  /** With --sheet all: where each of this sheet's columns goes in the union. */
  const placesOf = (own: string[]) => {
    const at = new Map(columnKeys((union as string[]).slice(0, -1)).map((k, i) => [k.key, i]));
    return columnKeys(own).map((k) => at.get(k.key));
  };

  let closed = false;
  async function* rows(): AsyncGenerator<Row> {
    let current = sheet;
    while (current !== undefined) {
      const places = union && current.header ? placesOf(current.header) : undefined;
      for (;;) {
        if (closed) return;
        const next = await current.rows.next().catch(broken);
        if (next.done) break;
        let cells = cellsOf(next.value.values);
        if (cells.every((c) => c.trim() === '')) continue;
        if (union && places) {
          const placed = new Array<string>(union.length).fill('');
          cells.forEach((c, i) => {
            const at = places[i];
            if (at !== undefined) placed[at] = c;
            else if (c.trim() !== '') placed.push(c); // beyond its header: the row is too long, as in one sheet
          });
          placed[union.length - 1] = current.name;
          cells = placed;
        }
        // The row number Excel shows is the "line" of messages and of the rejects file.
        yield { cells, line: next.value.number };
      }
      current = union ? await nextSheet() : undefined;
    }
    strings.close();
  }

  return {
    header,
    delimiter: ',',
    encoding: 'utf8',
    rows: rows(),
    bytesRead: () => counter.n,
    size,
    close: () => {
      closed = true;
      strings.close();
      bytes.destroy();
    },
    notes,
    ...(union ? { sheetColumn: union.length - 1 } : {}),
  };
}
