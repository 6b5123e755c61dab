/**
 * What the other worksheets of a workbook hold, without reading them into memory or through
 * exceljs: each one's XML is inflated as a stream straight from the ZIP and scanned row by row —
 * the rows that hold a value counted, the first one kept as the header (its shared strings looked
 * up by streaming the shared-strings table, stopping once they are found). Memory stays a chunk
 * and a row, whatever the sheets hold. Used to say which sheets a workbook has besides the one
 * read, and, for `--sheet all`, which of them have a header that maps.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import { type SheetInfo, unescapeXml, workbookOf, type ZipEntry, zipDataAt, zipEntries } from './xlsx-zip.js';

export interface SheetSummary {
  name: string;
  /** Hidden in Excel: its tab is not shown. */
  hidden: boolean;
  /** Its first row holding a value, as text (trimmed, trailing empty cells dropped); undefined for an empty sheet. */
  header: string[] | undefined;
  /** Rows holding a value, the header not counted; undefined when the sheet could not be read (a ZIP64 member). */
  rows: number | undefined;
}

/** A member's text, streamed in chunks. */
function memberText(file: string, entry: ZipEntry): Readable {
  const at = zipDataAt(file, entry);
  const bytes = createReadStream(file, { start: at, end: at + Math.max(entry.compressed, 1) - 1, highWaterMark: 64 * 1024 });
  const out = entry.method === 8 ? bytes.pipe(createInflateRaw()) : bytes;
  if (entry.method === 8) bytes.on('error', (e) => out.destroy(e));
  out.setEncoding('utf8');
  return out;
}

/** Complete elements named `tag` as they stream past; the text between them is dropped. */
async function* elements(text: Readable, tag: string): AsyncGenerator<string> {
  const whole = new RegExp(`<((?:\\w+:)?)${tag}\\b[^>]*?(?:/>|>[\\s\\S]*?</\\1${tag}>)`, 'g');
  const open = new RegExp(`<(?:\\w+:)?${tag}\\b`);
  let buf = '';
  try {
    for await (const chunk of text) {
      buf += chunk as string;
      whole.lastIndex = 0;
      let end = 0;
      for (let m = whole.exec(buf); m !== null; m = whole.exec(buf)) {
        end = whole.lastIndex;
        yield m[0];
      }
      const rest = buf.slice(end);
      const at = rest.search(open);
      // Keep an element begun in this chunk; else only enough to find one split at the chunk's end.
      buf = at !== -1 ? rest.slice(at) : rest.slice(-(tag.length + 8));
    }
  } finally {
    text.destroy();
  }
}

/** Column letters to a 0-based index: A → 0, AA → 26. */
function columnIndex(ref: string): number {
  let n = 0;
  for (const ch of ref) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

type RawCell = { at: number; shared?: number; text?: string };

/** The cells of a row holding a value: a shared string's index, or the text of anything else. */
function cellsOf(row: string): RawCell[] {
  const cells: RawCell[] = [];
  let next = 0;
  for (const m of row.matchAll(/<(?:\w+:)?c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:\w+:)?c>)/g)) {
    const attrs = m[1] ?? '';
    const ref = /\br="([A-Z]+)\d*"/.exec(attrs)?.[1];
    const at = ref ? columnIndex(ref) : next;
    next = at + 1;
    const body = m[2] ?? '';
    const type = /\bt="(\w+)"/.exec(attrs)?.[1];
    const v = /<(?:\w+:)?v>([\s\S]*?)<\/(?:\w+:)?v>/.exec(body)?.[1];
    if (type === 's' && v !== undefined) cells.push({ at, shared: Number(v) });
    else if (type === 'inlineStr') cells.push({ at, text: textOf(body) });
    else if (v !== undefined) cells.push({ at, text: type === 'b' ? (v === '1' ? 'TRUE' : 'FALSE') : unescapeXml(v) });
  }
  return cells;
}

/** The text of `<t>` runs, phonetic guides (`<rPh>`) left out. */
function textOf(xml: string): string {
  const plain = xml.replace(/<(?:\w+:)?rPh\b[\s\S]*?<\/(?:\w+:)?rPh>/g, '');
  return [...plain.matchAll(/<(?:\w+:)?t\b[^>]*>([\s\S]*?)<\/(?:\w+:)?t>/g)].map((m) => unescapeXml(m[1] as string)).join('');
}

const HAS_VALUE = /<(?:\w+:)?(?:v|t)\b[^>]*>[^<]/;

/** One sheet's header cells and the rows holding a value. */
async function scanSheet(file: string, entry: ZipEntry): Promise<{ header: RawCell[] | undefined; rows: number }> {
  let header: RawCell[] | undefined;
  let rows = 0;
  for await (const row of elements(memberText(file, entry), 'row')) {
    if (!HAS_VALUE.test(row)) continue;
    rows += 1;
    header ??= cellsOf(row);
  }
  return { header, rows };
}

/** The shared strings at `wanted` indices, streaming the table until the last of them. */
async function sharedStrings(file: string, entry: ZipEntry | undefined, wanted: Set<number>): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  if (!entry || wanted.size === 0) return found;
  const last = Math.max(...wanted);
  let i = 0;
  for await (const si of elements(memberText(file, entry), 'si')) {
    if (wanted.has(i)) found.set(i, textOf(si));
    if (++i > last) break;
  }
  return found;
}

/** Every worksheet of the workbook but `skip` (names), in the workbook's order: header and rows. */
export async function otherSheets(file: string, skip: ReadonlySet<string> = new Set()): Promise<SheetSummary[]> {
  const { sheets, sharedStrings: stringsPath } = workbookOf(file);
  const entries = new Map(zipEntries(file).map((e) => [e.name, e]));
  const scanned: Array<{ sheet: SheetInfo; header: RawCell[] | undefined; rows: number | undefined }> = [];
  for (const sheet of sheets) {
    if (skip.has(sheet.name)) continue;
    const entry = sheet.path ? entries.get(sheet.path) : undefined;
    // A ZIP64 member (over 4 GB) has no 32-bit size: it is named, not counted.
    if (!entry || entry.compressed === 0xffffffff) scanned.push({ sheet, header: undefined, rows: undefined });
    else scanned.push({ sheet, ...(await scanSheet(file, entry)) });
  }
  const wanted = new Set(scanned.flatMap((s) => (s.header ?? []).flatMap((c) => (c.shared !== undefined ? [c.shared] : []))));
  const strings = await sharedStrings(file, stringsPath ? entries.get(stringsPath) : undefined, wanted);
  return scanned.map(({ sheet, header, rows }) => {
    let text: string[] | undefined;
    if (header) {
      text = [];
      for (const c of header) text[c.at] = (c.shared !== undefined ? (strings.get(c.shared) ?? '') : (c.text ?? '')).trim();
      text = Array.from(text, (h) => h ?? '');
      while (text.length > 0 && text[text.length - 1] === '') text.pop();
    }
    return { name: sheet.name, hidden: sheet.hidden, header: text, rows: rows === undefined ? undefined : Math.max(0, rows - 1) };
  });
}
