/**
 * An Excel workbook (`.xlsx`, `.xlsm`, from any writer: Excel, LibreOffice, Google Sheets, Numbers,
 * openpyxl and pandas, XlsxWriter, SheetJS, exceljs) read straight from its ZIP: the package's own
 * relationships say where the workbook, its sheets, shared strings and styles are — targets relative
 * or absolute (`/xl/worksheets/sheet1.xml`, openpyxl's), parts under any name — and each sheet's
 * XML is streamed a row at a time. A cell is the text Excel shows, except that a number keeps all
 * its digits (a phone stored as a number is never `4.47911E+11`) and a date is ISO 8601: shared or
 * inline strings, rich text without its phonetic guide, booleans, errors, formulas' cached results,
 * ISO dates (`t="d"`), cells and rows with or without their reference, in any order OOXML allows.
 */
import { posix } from 'node:path';
import { RuntimeError } from '../errors.js';
import { type SheetInfo } from './book.js';
import { attr, elements, unescapeOoxml, unescapeXml } from './xml-scan.js';
import { memberText, memberWhole, type ZipEntry } from './zip.js';

/** The longest row (its XML, in characters) kept; a longer one is refused as a row over 1 MB of text. */
export const MAX_ROW_XML = 4 * 1024 * 1024;
/** The longest shared string kept (its XML); a longer one stands for a cell over 1 MB. */
const MAX_STRING_XML = 1024 * 1024 + 4096;
/** The parts read whole (the sheet list, the styles, the relationships) hold no more than this. */
const MAX_PART = 32 * 1024 * 1024;

/** A cell of a row: where it is (0-based column) and its text, or the shared string it points to. */
export interface RawCell {
  at: number;
  text?: string;
  shared?: number;
}

/** A row of a sheet: its number as the spreadsheet shows it, and its cells holding a value. */
export type RawRow = { number: number; cells: RawCell[]; long?: undefined } | { number: number; long: true };

/** Excel's built-in number formats that are dates or times (ECMA-376 18.8.30, with the East Asian ones). */
const DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81]);

/** A format code that shows a date or a time: d, m, y, h or s outside quotes, escapes and `[…]` (but `[h]`). */
function isDateFormat(code: string): boolean {
  const bare = code
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/\[(?![hms]+\])[^\]]*\]/gi, '')
    .split(';')[0] as string;
  return /[dmyhs]/i.test(bare.replace(/General/gi, ''));
}

/** Excel's date serial (days since 1899-12-30, or since 1904-01-01) as ISO 8601: the day alone at midnight. */
function serialDate(serial: number, date1904: boolean): string | undefined {
  const ms = Math.round((serial + (date1904 ? 1462 : 0) - 25569) * 86_400_000);
  const d = new Date(ms);
  if (!Number.isFinite(serial) || Number.isNaN(d.getTime()) || d.getUTCFullYear() > 9999) return undefined;
  return isoText(d);
}

/** A Date (UTC, as Excel's dates have no zone) as ISO 8601, the day alone when it has no time. */
function isoText(d: Date): string {
  const iso = d.toISOString();
  if (iso.endsWith('T00:00:00.000Z')) return iso.slice(0, 10);
  return iso.replace(/\.000Z$|Z$/, '');
}

/** A number as Excel shows it at full width: integers whole, fractions to Excel's 15 digits. */
export function numberText(n: number): string {
  if (Number.isInteger(n)) return Math.abs(n) < 1e21 ? String(n) : BigInt(n).toString();
  return String(Number(n.toPrecision(15)));
}

/** Column letters to a 0-based index: A → 0, AA → 26. */
function columnIndex(letters: string): number {
  let n = 0;
  for (let i = 0; i < letters.length; i++) n = n * 26 + (letters.charCodeAt(i) - 64);
  return n - 1;
}

/** The text of `<t>` runs of a string item (shared or inline), phonetic guides (`<rPh>`) left out. */
export function stringItemText(xml: string): string {
  const plain = xml.indexOf('rPh') === -1 ? xml : xml.replace(/<(?:\w+:)?rPh\b[\s\S]*?<\/(?:\w+:)?rPh>/g, '');
  let out = '';
  for (const m of plain.matchAll(/<(?:\w+:)?t(?:\s[^>]*)?>([\s\S]*?)<\/(?:\w+:)?t>/g)) out += unescapeOoxml(m[1] as string);
  return out;
}

/** A workbook package's parts: where each sheet and the shared strings are, and which styles are dates. */
export interface XlsxParts {
  sheets: Array<SheetInfo & { entry: ZipEntry | undefined }>;
  sharedStrings: ZipEntry | undefined;
  /** Cell style index → is a date format. */
  dateStyles: boolean[];
  date1904: boolean;
}

/** Resolves a relationship's target against the folder of the part that names it. */
function resolveTarget(base: string, target: string): string {
  const t = decodeURIComponent(target.replace(/\\/g, '/'));
  return t.startsWith('/') ? posix.normalize(t.slice(1)) : posix.normalize(posix.join(posix.dirname(base), t));
}

/** A part's relationships: id → [type's last word, member path]. */
function relationships(file: string, entries: Map<string, ZipEntry>, part: string, shown: string): Map<string, { type: string; path: string }> {
  const relsPath = posix.join(posix.dirname(part), '_rels', `${posix.basename(part)}.rels`);
  const out = new Map<string, { type: string; path: string }>();
  const rels = findEntry(entries, relsPath);
  if (!rels) return out;
  for (const m of memberWhole(file, rels, MAX_PART, shown).matchAll(/<(?:\w+:)?Relationship\b[^>]*>/g)) {
    const id = attr(m[0], 'Id');
    const target = attr(m[0], 'Target');
    const type = attr(m[0], 'Type') ?? '';
    if (id === undefined || target === undefined || attr(m[0], 'TargetMode') === 'External') continue;
    out.set(id, { type: type.slice(type.lastIndexOf('/') + 1), path: resolveTarget(part, target) });
  }
  return out;
}

/** A member by path; ZIP names are case-sensitive but some writers and tools are not (OPC says case-insensitive). */
function findEntry(entries: Map<string, ZipEntry>, path: string): ZipEntry | undefined {
  const exact = entries.get(path);
  if (exact) return exact;
  const lower = path.toLowerCase();
  for (const [name, e] of entries) if (name.toLowerCase() === lower) return e;
  return undefined;
}

/** The workbook part: the package's officeDocument relationship, else `xl/workbook.xml`. */
export function workbookPart(file: string, entries: Map<string, ZipEntry>, shown: string): string | undefined {
  for (const rel of relationships(file, entries, '', shown).values()) if (rel.type === 'officeDocument' && findEntry(entries, rel.path)) return rel.path;
  return findEntry(entries, 'xl/workbook.xml') ? 'xl/workbook.xml' : undefined;
}

/** The parts of the workbook at `part`. */
export function xlsxParts(file: string, entries: Map<string, ZipEntry>, part: string, shown: string): XlsxParts {
  const rels = relationships(file, entries, part, shown);
  const workbook = memberWhole(file, findEntry(entries, part) as ZipEntry, MAX_PART, shown);
  const sheets: XlsxParts['sheets'] = [];
  for (const m of workbook.matchAll(/<(?:\w+:)?sheet\b[^>]*>/g)) {
    const name = attr(m[0], 'name');
    const rid = /\s\w+:id\s*=\s*"([^"]*)"/.exec(m[0])?.[1];
    if (name === undefined) continue;
    const rel = rid === undefined ? undefined : rels.get(rid);
    const state = attr(m[0], 'state');
    sheets.push({ name, hidden: state === 'hidden' || state === 'veryHidden', entry: rel ? findEntry(entries, rel.path) : undefined });
  }
  const pr = /<(?:\w+:)?workbookPr\b[^>]*>/.exec(workbook)?.[0];
  const date1904 = pr !== undefined && /^(1|true)$/.test(attr(pr, 'date1904') ?? '');
  let sharedStrings: ZipEntry | undefined;
  let styles: ZipEntry | undefined;
  for (const rel of rels.values()) {
    if (rel.type === 'sharedStrings') sharedStrings = findEntry(entries, rel.path);
    else if (rel.type === 'styles') styles = findEntry(entries, rel.path);
  }
  return { sheets, sharedStrings, dateStyles: styles ? dateStylesOf(memberWhole(file, styles, MAX_PART, shown)) : [], date1904 };
}

/** Which cell styles (`cellXfs`, by index) show a date. */
function dateStylesOf(styles: string): boolean[] {
  const custom = new Map<number, boolean>();
  for (const m of styles.matchAll(/<(?:\w+:)?numFmt\b[^>]*>/g)) {
    const id = Number(attr(m[0], 'numFmtId'));
    custom.set(id, isDateFormat(attr(m[0], 'formatCode') ?? ''));
  }
  const xfs = /<(?:\w+:)?cellXfs\b[^>]*>([\s\S]*?)<\/(?:\w+:)?cellXfs>/.exec(styles)?.[1] ?? '';
  return [...xfs.matchAll(/<(?:\w+:)?xf\b[^>]*>/g)].map((m) => {
    const id = Number(attr(m[0], 'numFmtId') ?? 0);
    return custom.get(id) ?? DATE_FORMATS.has(id);
  });
}

/** One `<c>`: its value as text, or its shared string's index. */
function cellOf(attrs: string, body: string, parts: XlsxParts): Omit<RawCell, 'at'> | undefined {
  const type = /\st="(\w+)"/.exec(attrs)?.[1];
  if (type === 'inlineStr') {
    const is = /<(?:\w+:)?is\b[^>]*>([\s\S]*?)<\/(?:\w+:)?is>/.exec(body)?.[1];
    return is === undefined ? undefined : { text: stringItemText(is) };
  }
  const v = /<(?:\w+:)?v(?:\s[^>]*)?>([\s\S]*?)<\/(?:\w+:)?v>/.exec(body)?.[1];
  if (v === undefined) return undefined;
  switch (type) {
    case 's':
      return { shared: Number(v) };
    case 'b':
      return { text: v.trim() === '1' || v.trim() === 'true' ? 'TRUE' : 'FALSE' };
    case 'str':
    case 'e':
      return { text: unescapeOoxml(v) };
    case 'd': {
      const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(v) || !v.includes('T') ? v : `${v}Z`);
      return { text: Number.isNaN(d.getTime()) ? unescapeXml(v) : isoText(d) };
    }
    default: {
      const n = Number(v);
      if (v.trim() === '' || Number.isNaN(n)) return { text: unescapeXml(v) };
      const s = /\ss="(\d+)"/.exec(attrs)?.[1];
      if (s !== undefined && parts.dateStyles[Number(s)]) return { text: serialDate(n, parts.date1904) ?? numberText(n) };
      return { text: numberText(n) };
    }
  }
}

/** The cells of a `<row>` holding a value, each at its column (by its reference, else the next). */
export function rowCells(row: string, parts: XlsxParts): RawCell[] {
  const cells: RawCell[] = [];
  let next = 0;
  for (const m of row.matchAll(/<(?:\w+:)?c(?=[\s/>])([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:\w+:)?c>)/g)) {
    const attrs = m[1] ?? '';
    const ref = /\sr="\$?([A-Za-z]{1,3})\$?\d*"/.exec(attrs)?.[1];
    const at = ref ? columnIndex(ref.toUpperCase()) : next;
    next = at + 1;
    if (m[2] === undefined) continue;
    const cell = cellOf(attrs, m[2], parts);
    if (cell) cells.push({ at, ...cell });
  }
  return cells;
}

/** The rows of a worksheet, streamed from its XML, each numbered as the spreadsheet shows it. */
export async function* xlsxRows(file: string, entry: ZipEntry, parts: XlsxParts, shown: string, onRead?: (bytes: number) => void): AsyncGenerator<RawRow> {
  let last = 0;
  for await (const el of elements(memberText(file, entry, shown, onRead), 'row', { max: MAX_ROW_XML })) {
    const r = Number(/\sr="(\d+)"/.exec(el.xml.slice(0, el.xml.indexOf('>') + 1))?.[1]);
    const number = Number.isInteger(r) && r > 0 ? r : last + 1;
    last = number;
    if (el.long) yield { number, long: true };
    else yield { number, cells: rowCells(el.xml, parts) };
  }
}

/**
 * The shared strings in order, streamed: each `<si>`'s text, or `undefined` for one longer than a
 * cell may be (its cells make their row refused).
 */
export async function* sharedStringItems(file: string, entry: ZipEntry, shown: string): AsyncGenerator<string | undefined> {
  for await (const el of elements(memberText(file, entry, shown), 'si', { max: MAX_STRING_XML })) yield el.long ? undefined : stringItemText(el.xml);
}

/** A worksheet a workbook names whose part is not in the archive. */
export function missingSheet(shown: string, name: string): RuntimeError {
  return new RuntimeError('malformed_workbook', `${shown}: worksheet "${name}" is listed but its part is not in the file`, 'open it in the program that made it and save it again, or export the sheet as CSV');
}
