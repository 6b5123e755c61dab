/**
 * Data on stdout in the four formats of the contract, written as it arrives: `json` is one array
 * streamed item by item, `ndjson` a line per item, `csv` a header row then rows, `table` one
 * cli-table3 table per batch (a page, with --all) so output starts before the last page.
 */
import type { OutStream } from '../deps.js';
import type { OutputFormat } from '../context.js';

/** A column: its header and how to read it from an item. */
export interface Column {
  header: string;
  key: string;
}

export interface ListWriter {
  write(items: unknown[]): Promise<void>;
  end(): Promise<void>;
}

/** Writes to a stream, waiting when the reader is slower (a pipe into `head`, a slow disk). */
function writeOut(out: OutStream, text: string): Promise<void> {
  if (text === '') return Promise.resolve();
  return new Promise((done) => {
    if (out.write(text)) done();
    else out.once('drain', done);
  });
}

/** A cell as text: arrays joined with `;` (tags), objects as JSON, nothing for null. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(';');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export async function createListWriter(out: OutStream, format: OutputFormat, columns: Column[]): Promise<ListWriter> {
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
      let header = true;
      return {
        write: (items) => {
          const rows = items.map((item) => columns.map((c) => cellText((item as Record<string, unknown>)[c.key])));
          const text = stringify(header ? [columns.map((c) => c.key), ...rows] : rows);
          header = false;
          return writeOut(out, text);
        },
        end: () => (header ? writeOut(out, stringify([columns.map((c) => c.key)])) : Promise.resolve()),
      };
    }
    case 'table': {
      const { default: Table } = await import('cli-table3');
      let any = false;
      return {
        write: (items) => {
          if (items.length === 0) return Promise.resolve();
          any = true;
          const width = out.columns ?? 120;
          const table = new Table({ head: columns.map((c) => c.header), style: { head: [], border: [] }, wordWrap: true, colWidths: fitWidths(columns, items, width) });
          for (const item of items) table.push(columns.map((c) => cellText((item as Record<string, unknown>)[c.key])));
          return writeOut(out, `${table.toString()}\n`);
        },
        end: () => (any ? Promise.resolve() : writeOut(out, '(none)\n')),
      };
    }
  }
}

/** Column widths that fit the terminal: each column gets what its content needs, shrunk evenly. */
function fitWidths(columns: Column[], items: unknown[], width: number): number[] {
  const need = columns.map((c) => Math.max(c.header.length, ...items.map((i) => cellText((i as Record<string, unknown>)[c.key]).length)) + 2);
  const budget = Math.max(columns.length * 6, width - columns.length - 1);
  let total = need.reduce((a, b) => a + b, 0);
  const widths = [...need];
  while (total > budget) {
    const widest = widths.indexOf(Math.max(...widths));
    widths[widest] = (widths[widest] as number) - 1;
    total -= 1;
  }
  return widths;
}

/** One record: JSON as returned, or a two-column table of its fields. */
export async function writeRecord(out: OutStream, format: OutputFormat, record: unknown, columns?: Column[]): Promise<void> {
  if (format === 'json') return writeOut(out, `${JSON.stringify(record, null, 2)}\n`);
  if (format === 'ndjson') return writeOut(out, `${JSON.stringify(record)}\n`);
  const fields = record && typeof record === 'object' ? (record as Record<string, unknown>) : { value: record };
  if (format === 'csv') {
    const writer = await createListWriter(out, 'csv', columns ?? Object.keys(fields).map((key) => ({ key, header: key })));
    await writer.write([record]);
    return writer.end();
  }
  const { default: Table } = await import('cli-table3');
  const table = new Table({ style: { head: [], border: [] } });
  for (const [k, v] of Object.entries(fields)) table.push({ [k]: cellText(v) });
  return writeOut(out, `${table.toString()}\n`);
}
