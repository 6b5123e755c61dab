/**
 * Data on stdout in the four formats of the contract, written as it arrives: `json` is one array
 * streamed item by item, `ndjson` a line per item, `csv` a header row then rows (cells guarded
 * against formulas unless --csv-raw), `table` one cli-table3 table per batch (a page, with --all)
 * so output starts before the last page.
 */
import type { OutStream } from '../deps.js';
import type { OutputFormat } from './format-check.js';
import { isClosedPipe, StdoutClosedError } from './closed.js';
import { guardCell } from './csv-guard.js';
import { escapeControls } from './escape.js';

/** A column: its header and how to read it from an item. */
export interface Column {
  header: string;
  key: string;
  /** Never cut in a table (ids, phones, e-mails: what operators copy). Default: by key, see `isWhole`. */
  whole?: boolean;
}

/** Columns an operator copies and pastes: cutting them makes the value useless. */
const WHOLE_KEYS = new Set(['id', 'phone', 'email', 'from', 'to']);

/** Whether a column is never cut: ids (`id`, `contactId`, `callId`…), phones and e-mails. */
export function isWhole(column: Column): boolean {
  return column.whole ?? (WHOLE_KEYS.has(column.key) || /Id$/.test(column.key));
}

export interface ListWriter {
  write(items: unknown[]): Promise<void>;
  end(): Promise<void>;
}

/**
 * Writes to a stream and resolves once the text is handed over, so a slow reader (a pipe into
 * `less`, a slow disk) holds back the next page. A reader that has gone (`| head`) rejects with
 * StdoutClosedError: the caller stops, and no further page is requested.
 */
export function writeOut(out: OutStream, text: string): Promise<void> {
  if (text === '') return Promise.resolve();
  if (out.destroyed || out.writableEnded) return Promise.reject(new StdoutClosedError());
  return new Promise((done, fail) => {
    out.write(text, (err) => {
      if (!err) done();
      else fail(isClosedPipe(err) ? new StdoutClosedError() : err);
    });
  });
}

/** A cell as text: arrays joined with `;` (tags), objects as JSON, nothing for null. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(';');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** How data is written: `csvRaw` turns off the CSV formula guard (csv-guard.ts), for machines. */
export interface WriteOptions {
  csvRaw?: boolean;
}

export async function createListWriter(out: OutStream, format: OutputFormat, columns: Column[], o: WriteOptions = {}): Promise<ListWriter> {
  switch (format) {
    case 'json': {
      let first = true;
      return {
        write: (items) => {
          const text = items.map((item) => `${first ? ((first = false), '[\n') : ',\n'}${JSON.stringify(item)}`).join('');
          return writeOut(out, text);
        },
        end: () => writeOut(out, first ? '[]\n' : '\n]\n'),
      };
    }
    case 'ndjson':
      return { write: (items) => writeOut(out, items.map((i) => `${JSON.stringify(i)}\n`).join('')), end: async () => undefined };
    case 'csv': {
      const { stringify } = await import('csv-stringify/sync');
      const cell = o.csvRaw ? (text: string) => text : guardCell;
      const head = columns.map((c) => cell(c.key));
      let header = true;
      return {
        write: (items) => {
          const rows = items.map((item) => columns.map((c) => cell(cellText((item as Record<string, unknown>)[c.key]))));
          const text = stringify(header ? [head, ...rows] : rows);
          header = false;
          return writeOut(out, text);
        },
        end: () => (header ? writeOut(out, stringify([head])) : Promise.resolve()),
      };
    }
    case 'table': {
      const { default: Table } = await import('cli-table3');
      // With --all a table is drawn per batch so rows appear as they arrive: the header is printed
      // once and a column only ever widens. The first batch waits for TABLE_FIRST rows (or the
      // end), so that rows that come a few at a time — `find`'s matches, a filter's, page after
      // page — are measured together and line up as one table.
      let widths: number[] | undefined;
      let waiting: unknown[] = [];
      const draw = (items: unknown[]): Promise<void> => {
        if (items.length === 0) return Promise.resolve();
        const rows = items.map((item) => columns.map((c) => oneLine(cellText((item as Record<string, unknown>)[c.key]))));
        const head = widths === undefined;
        // A loop, not Math.max(...rows): a page of half a million rows is more arguments than a call takes.
        const need = columns.map((c, i) => rows.reduce((w, r) => Math.max(w, textWidth(r[i] as string)), Math.max(head ? oneLine(c.header).length : 0, widths?.[i] ?? 0)));
        const floors = columns.map((_c, i) => (rows.every((r) => r[i] === '' || ISO_TIME.test(r[i] as string)) ? DATE_WIDTH : undefined));
        widths = out.isTTY === true ? fitWidths(columns, need, out.columns || 80, floors) : need;
        // Drawn a slice of rows at a time, the widths fixed, so the slices line up: cli-table3
        // spreads its rows into one call, and a page of 200,000 was more arguments than a call takes.
        const parts: string[] = [];
        for (let at = 0; at < rows.length; at += TABLE_SLICE) {
          const table = new Table({ ...(head && at === 0 ? { head: columns.map((c) => oneLine(c.header)) } : {}), chars: NO_RULES, style: PLAIN, colWidths: widths });
          for (const row of rows.slice(at, at + TABLE_SLICE)) table.push(row);
          parts.push(table.toString().split('\n').map((line) => line.trimEnd()).join('\n'));
        }
        return writeOut(out, `${parts.join('\n')}\n`);
      };
      return {
        write: (items) => {
          if (widths !== undefined) return draw(items);
          waiting = waiting.concat(items);
          if (waiting.length < TABLE_FIRST) return Promise.resolve();
          const first = waiting;
          waiting = [];
          return draw(first);
        },
        end: async () => {
          if (waiting.length > 0) await draw(waiting.splice(0));
          if (widths === undefined) await writeOut(out, '(none)\n');
        },
      };
    }
  }
}

/** Rows a table's first batch waits for (or the end) before it is drawn: its columns' widths. */
const TABLE_FIRST = 50;
/** Rows a table is drawn with at once. */
const TABLE_SLICE = 1_000;

/** No borders and no ruled line between rows: one line a row, as gh and kubectl print. */
const NO_RULES = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '',
  middle: '  ',
};
const PLAIN = { head: [] as string[], border: [] as string[], 'padding-left': 0, 'padding-right': 0 };

/** A time as the API sends it; cut in a table, it keeps at least its date (`2026-10-01…`). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T/;
const DATE_WIDTH = 11;

/**
 * A cell on one line, as a terminal may show it: a table row never spans two, and the data's other
 * control characters are written out, never obeyed (escape.ts).
 */
function oneLine(text: string): string {
  return escapeControls(/[\r\n\t]/.test(text) ? text.replace(/\r?\n|\r|\t/g, ' ') : text);
}

/** Display width, counting a wide (CJK, emoji) character as two columns. */
function textWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1faff}\u{20000}-\u{3fffd}]/u.test(ch) ? 2 : 1;
  return w;
}

/**
 * Widths for a terminal `width` columns wide: whole columns (ids, phones, e-mails) keep what they
 * need; the others give way, widest first, down to a few characters (cli-table3 ends a cut cell
 * with `…`). A row may still pass the width when the whole columns alone do not fit.
 */
export function fitWidths(columns: Column[], need: number[], width: number, floors: Array<number | undefined> = []): number[] {
  const widths = [...need];
  const gaps = NO_RULES.middle.length * (columns.length - 1);
  let total = widths.reduce((a, b) => a + b, 0) + gaps;
  const floor = (i: number) => Math.min(need[i] as number, floors[i] ?? Math.max(4, Math.min(columns[i]!.header.length, 8)));
  while (total > width) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (isWhole(columns[i]!) || (widths[i] as number) <= floor(i)) continue;
      if (widest === -1 || (widths[i] as number) > (widths[widest] as number)) widest = i;
    }
    if (widest === -1) break;
    widths[widest] = (widths[widest] as number) - 1;
    total -= 1;
  }
  return widths;
}

/** One record: JSON as returned, or a two-column table of its fields. */
export async function writeRecord(out: OutStream, format: OutputFormat, record: unknown, columns?: Column[], o: WriteOptions = {}): Promise<void> {
  if (format === 'json') return writeOut(out, `${JSON.stringify(record, null, 2)}\n`);
  if (format === 'ndjson') return writeOut(out, `${JSON.stringify(record)}\n`);
  const fields = record && typeof record === 'object' ? (record as Record<string, unknown>) : { value: record };
  if (format === 'csv') {
    const writer = await createListWriter(out, 'csv', columns ?? Object.keys(fields).map((key) => ({ key, header: key })), o);
    await writer.write([record]);
    return writer.end();
  }
  // One line a field, nothing cut: `key  value`, the keys aligned.
  const entries = Object.entries(fields);
  const keyWidth = Math.max(0, ...entries.map(([k]) => oneLine(k).length));
  return writeOut(out, entries.map(([k, v]) => `${oneLine(k).padEnd(keyWidth)}  ${oneLine(cellText(v))}`.trimEnd()).join('\n') + '\n');
}
