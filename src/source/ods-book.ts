/**
 * An OpenDocument spreadsheet (`.ods`: LibreOffice's and OpenOffice's own format, which Google
 * Sheets and Numbers also export) read through the same row reader as an `.xlsx`: `content.xml`
 * holds every table, streamed a row at a time. A cell is the text the spreadsheet shows, except
 * that a number is its stored value whole (`office:value`, every digit of a phone) and a date is
 * ISO 8601 (`office:date-value`). Repeated cells and rows (`number-columns-repeated`,
 * `number-rows-repeated`: how the format writes runs of equal cells) are read out, blank ones only
 * counted; annotations (comments) and drawings in a cell are not its text.
 */
import type { SheetInfo } from './book.js';
import { attr, elements, unescapeXml } from './xml-scan.js';
import { MAX_ROW_XML, numberText, type RawCell, type RawRow } from './xlsx-book.js';
import { memberText, type ZipEntry } from './zip.js';

/** Columns of a row read at most (a spreadsheet's width: Excel's and LibreOffice's 16,384). */
const MAX_COLUMNS = 16_384;
/** Rows of a table at most (LibreOffice's 1,048,576 since 7.4; a larger repeat is no real sheet). */
const MAX_ROWS = 1_048_576;

/** A text paragraph's content: spaces, tabs and line breaks as written, other markup dropped. */
function paragraphText(inner: string): string {
  const marked = inner
    .replace(/<text:s(?:\s[^>]*?)?\/>/g, (tag) => ' '.repeat(Math.min(Math.max(Number(attr(tag, 'c') ?? 1) || 1, 1), 1000)))
    .replace(/<text:tab\b[^>]*\/>/g, '\t')
    .replace(/<text:line-break\b[^>]*\/>/g, '\n')
    .replace(/<text:note\b[\s\S]*?<\/text:note>/g, '')
    .replace(/<[^>]*>/g, '');
  return unescapeXml(marked);
}

/** One `<table:table-cell>`'s text (without its tag's attributes' repeat). */
function cellText(start: string, body: string): string | undefined {
  const type = attr(start, 'value-type');
  switch (type) {
    case 'float':
    case 'percentage':
    case 'currency': {
      const n = Number(attr(start, 'value'));
      if (Number.isFinite(n)) return numberText(n);
      break;
    }
    case 'date': {
      const d = attr(start, 'date-value');
      if (d !== undefined) return d.replace(/T00:00:00(?:\.0+)?$/, '').replace(/(T\d\d:\d\d:\d\d)\.\d+$/, '$1');
      break;
    }
    case 'time': {
      const m = /^-?PT(\d+)H(\d+)M(\d+)(?:\.\d+)?S$/.exec(attr(start, 'time-value') ?? '');
      if (m) return [m[1], m[2], m[3]].map((x) => (x as string).padStart(2, '0')).join(':');
      break;
    }
    case 'boolean':
      return attr(start, 'boolean-value') === 'true' ? 'TRUE' : 'FALSE';
    case 'string': {
      const s = attr(start, 'string-value');
      if (s !== undefined) return s;
    }
  }
  const content = body.replace(/<office:annotation\b[\s\S]*?<\/office:annotation>/g, '').replace(/<draw:frame\b[\s\S]*?<\/draw:frame>/g, '');
  const paragraphs = [...content.matchAll(/<text:[ph](?:\s[^>]*?)?(?:\/>|>([\s\S]*?)<\/text:[ph]>)/g)].map((m) => paragraphText(m[1] ?? ''));
  return paragraphs.length === 0 ? undefined : paragraphs.join('\n');
}

/** The cells of a `<table:table-row>` holding a value, repeats read out. */
function rowCells(row: string): RawCell[] {
  const cells: RawCell[] = [];
  let at = 0;
  for (const m of row.matchAll(/<table:(table-cell|covered-table-cell)(?=[\s/>])([^>]*?)(?:\/>|>([\s\S]*?)<\/table:\1>)/g)) {
    const start = m[2] ?? '';
    const repeat = Math.max(1, Number(attr(start, 'number-columns-repeated') ?? 1) || 1);
    const text = m[1] === 'table-cell' && m[3] !== undefined ? cellText(start, m[3]) : m[1] === 'table-cell' ? cellText(start, '') : undefined;
    if (text !== undefined && text !== '') for (let i = 0; i < repeat && at + i < MAX_COLUMNS; i++) cells.push({ at: at + i, text });
    at += repeat;
    if (at >= MAX_COLUMNS) break;
  }
  return cells;
}

/** The tables of a document, in order, hidden ones (a table style with `display="false"`) said. */
export async function odsSheets(file: string, content: ZipEntry, shown: string): Promise<SheetInfo[]> {
  const hiddenStyles = new Set<string>();
  const sheets: SheetInfo[] = [];
  let styles = true;
  // The table style elements come first (automatic styles), then the tables: their start tags only.
  for await (const el of elements(memberText(file, content, shown), 'style', { max: 64 * 1024, starts: 'table' })) {
    if (el.start) {
      styles = false;
      const name = attr(el.xml, 'name');
      if (name !== undefined) sheets.push({ name, hidden: hiddenStyles.has(attr(el.xml, 'style-name') ?? '') });
    } else if (styles && attr(el.xml, 'family') === 'table' && /\stable:display\s*=\s*"false"/.test(el.xml)) {
      hiddenStyles.add(attr(el.xml, 'name') ?? '');
    }
  }
  return sheets;
}

/** The rows of the table at `index` (its position among the tables), streamed; blank ones only numbered. */
export async function* odsRows(file: string, content: ZipEntry, index: number, shown: string, onRead?: (bytes: number) => void): AsyncGenerator<RawRow> {
  let table = -1;
  let number = 0;
  for await (const el of elements(memberText(file, content, shown, onRead), 'table-row', { max: MAX_ROW_XML, starts: 'table' })) {
    if (el.start) {
      table += 1;
      if (table > index) return;
      continue;
    }
    if (table !== index) continue;
    const head = el.xml.slice(0, el.xml.indexOf('>') + 1);
    const repeat = Math.max(1, Number(attr(head, 'number-rows-repeated') ?? 1) || 1);
    if (el.long) {
      yield { number: number + 1, long: true };
      number += repeat;
      continue;
    }
    const cells = rowCells(el.xml);
    if (cells.length === 0) {
      number += repeat;
      continue;
    }
    for (let i = 0; i < repeat && number < MAX_ROWS; i++) {
      number += 1;
      yield { number, cells };
    }
  }
}
