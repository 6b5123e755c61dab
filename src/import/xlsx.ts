/**
 * The rows of an Excel workbook (`.xlsx`), streamed with exceljs's WorkbookReader: memory does
 * not grow with the rows (read-excel-file, measured beside it, holds the whole sheet; README,
 * "File formats"), nor with the workbook's distinct texts (kept on disk, disk-strings.ts). The
 * worksheet is the first one, or `--sheet`; its first non-empty row is the header; each cell
 * becomes the text Excel shows, except that a number keeps all its digits (a phone stored as a
 * number is never `4.47911E+11`) and a date is ISO 8601.
 */
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { inflateRawSync } from 'node:zlib';
import { RuntimeError, UsageError } from '../errors.js';
import { DiskStrings } from './disk-strings.js';
import type { Row, Source } from './source.js';

/** A ZIP local file header: every `.xlsx` starts with it, whatever the file is called. */
export function isZip(head: Uint8Array): boolean {
  return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

/** The first bytes of a file (fewer if it is shorter). */
export function headOf(file: string, n = 4): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    return buf.subarray(0, readSync(fd, buf, 0, n, 0));
  } finally {
    closeSync(fd);
  }
}

/** Small members of a ZIP, read through its central directory (the workbook's sheet list). */
function readZipMembers(file: string, wanted: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const fd = openSync(file, 'r');
  try {
    const size = statSync(file).size;
    const tailLength = Math.min(size, 65_536 + 22);
    const tail = Buffer.alloc(tailLength);
    readSync(fd, tail, 0, tailLength, size - tailLength);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd === -1) return out;
    const entries = tail.readUInt16LE(eocd + 10);
    const dirSize = tail.readUInt32LE(eocd + 12);
    const dirOffset = tail.readUInt32LE(eocd + 16);
    const dir = Buffer.alloc(dirSize);
    readSync(fd, dir, 0, dirSize, dirOffset);
    let p = 0;
    for (let i = 0; i < entries && p + 46 <= dir.length && dir.readUInt32LE(p) === 0x02014b50; i++) {
      const method = dir.readUInt16LE(p + 10);
      const compressed = dir.readUInt32LE(p + 20);
      const nameLength = dir.readUInt16LE(p + 28);
      const extraLength = dir.readUInt16LE(p + 30);
      const commentLength = dir.readUInt16LE(p + 32);
      const local = dir.readUInt32LE(p + 42);
      const name = dir.toString('utf8', p + 46, p + 46 + nameLength);
      p += 46 + nameLength + extraLength + commentLength;
      if (!wanted.includes(name) || compressed > 16 * 1024 * 1024) continue;
      const header = Buffer.alloc(30);
      readSync(fd, header, 0, 30, local);
      const dataAt = local + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
      const data = Buffer.alloc(compressed);
      readSync(fd, data, 0, compressed, dataAt);
      out.set(name, (method === 8 ? inflateRawSync(data) : data).toString('utf8'));
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

const unescapeXml = (s: string) => s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The worksheets in the workbook's own order, with the number of their `sheetN.xml`. */
export function sheetsOf(file: string): Array<{ name: string; sheetNo: string | undefined }> {
  const members = readZipMembers(file, ['xl/workbook.xml', 'xl/_rels/workbook.xml.rels']);
  const targets = new Map<string, string>();
  for (const m of (members.get('xl/_rels/workbook.xml.rels') ?? '').matchAll(/<Relationship\b[^>]*>/g)) {
    const id = /\bId="([^"]*)"/.exec(m[0])?.[1];
    const target = /\bTarget="([^"]*)"/.exec(m[0])?.[1];
    if (id && target) targets.set(id, target);
  }
  const sheets: Array<{ name: string; sheetNo: string | undefined }> = [];
  for (const m of (members.get('xl/workbook.xml') ?? '').matchAll(/<(?:\w+:)?sheet\b[^>]*>/g)) {
    const name = /\bname="([^"]*)"/.exec(m[0])?.[1];
    const rid = /\br:id="([^"]*)"/.exec(m[0])?.[1];
    if (name === undefined) continue;
    const target = rid ? targets.get(rid) : undefined;
    sheets.push({ name: unescapeXml(name), sheetNo: target ? /sheet(\d+)\.xml$/.exec(target)?.[1] : undefined });
  }
  return sheets;
}

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
  /** The worksheet to read; the first one when absent. */
  sheet?: string;
}

/** Opens a workbook and reads the header row of the chosen worksheet. */
export async function openWorkbook(o: WorkbookOptions): Promise<Source> {
  const size = statSync(o.path).size;
  const sheets = sheetsOf(o.path);
  let wanted: { name: string; sheetNo: string | undefined } | undefined;
  if (o.sheet !== undefined) {
    wanted = sheets.find((s) => s.name === o.sheet) ?? sheets.find((s) => s.name.toLowerCase() === (o.sheet as string).toLowerCase());
    if (!wanted) throw new UsageError(`${o.path} has no worksheet "${o.sheet}"`, `its worksheets: ${sheets.map((s) => s.name).join(', ') || '(none found)'}`);
  } else wanted = sheets[0];

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
  let worksheet: WorksheetReader | undefined;
  for (;;) {
    const next = await events.next().catch(broken);
    if (next.done) break;
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
    const match = wanted === undefined || (known ? ws.name === wanted.name : String(ws.id) === wanted.sheetNo);
    if (match) {
      worksheet = ws;
      break;
    }
    for await (const _row of ws) void _row; // skip a sheet that is not the one asked for
  }
  if (!worksheet) {
    strings.close();
    throw new UsageError(`${o.path}: no worksheet to read`, 'save the workbook again in Excel, or export the sheet as CSV');
  }

  const rowIterator = worksheet[Symbol.asyncIterator]();
  const cellsOf = (values: unknown): string[] => {
    const list = Array.isArray(values) ? (values as unknown[]) : [];
    const cells: string[] = [];
    for (let i = 1; i < list.length; i++) {
      const v = list[i] as { sharedString?: unknown } | undefined;
      cells.push(v !== null && typeof v === 'object' && typeof v.sharedString === 'number' ? (strings.get(v.sharedString) ?? '') : cellText(v));
    }
    return cells;
  };
  let header: string[] | undefined;
  for (;;) {
    const next = await rowIterator.next().catch(broken);
    if (next.done) break;
    const cells = cellsOf(next.value.values);
    if (cells.some((c) => c.trim() !== '')) {
      header = cells.map((h) => h.trim());
      while (header.length > 0 && header[header.length - 1] === '') header.pop();
      break;
    }
  }
  const shown = `${o.path}${wanted ? ` (worksheet "${wanted.name}")` : ''}`;
  if (header === undefined) {
    strings.close();
    throw new UsageError(`${shown} is empty: no header row`, 'the first non-empty row must name the columns');
  }

  let closed = false;
  async function* rows(): AsyncGenerator<Row> {
    for (;;) {
      if (closed) return;
      const next = await rowIterator.next().catch(broken);
      if (next.done) {
        strings.close();
        return;
      }
      const cells = cellsOf(next.value.values);
      if (cells.every((c) => c.trim() === '')) continue;
      // The row number Excel shows is the "line" of messages and of the rejects file.
      yield { cells, line: next.value.number };
    }
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
    notes: [],
  };
}
