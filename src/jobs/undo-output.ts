/**
 * What `import undo` shows besides its summary (docs/commands/jobs.md, "How it reads, what it shows"): a table of every
 * contact — its import line, its id, what the undo would do or did, the fields given back and those
 * kept (names, never values) — kept in the undo's changes file, `<import file>.undo-changes.csv`
 * (rewritten by each run), and printed on stdout only when asked (`-v`, or `--format
 * table|csv|ndjson`): a summary comes first, and a thousand contacts are not a thousand lines of
 * it. The contacts kept are named on stderr after the summary, the first KEPT_SHOWN of them.
 */
import { stringify } from 'csv-stringify/sync';
import type { Context } from '../context.js';
import type { Effect } from '../import/effects.js';
import { lineName, lineRef } from '../source/open.js';
import { guardCell } from '../output/csv-guard.js';
import { writeFileAtomic } from '../output/files.js';
import { createListWriter } from '../output/writers.js';
import type { Receipt } from './undo-plan.js';

/** One contact's row of the table. */
export interface UndoRow {
  /** The import's line: a number, or a workbook's `Leads!12`. */
  line: number | string;
  id: string;
  action: string;
  /** Fields given back (or to be). */
  fields: string;
  /** Fields kept, or `contact` for a created contact kept whole. */
  kept: string;
}

/** Contacts named one by one on stderr, after the summary; the rest are in the changes file. */
export const KEPT_SHOWN = 20;

const COLUMNS = [
  { key: 'line', header: 'Line' },
  { key: 'id', header: 'Contact' },
  { key: 'action', header: 'Action' },
  { key: 'fields', header: 'Fields' },
  { key: 'kept', header: 'Kept' },
];

/** What the undo would do to each contact, from the record alone (before any contact is read). */
export function plannedRows(items: Effect[]): UndoRow[] {
  return items.map((e) => ({
    line: lineRef(e),
    id: e.kind === 'inFlight' ? '(found by its phone)' : e.id,
    action: PLANNED[e.kind],
    fields: e.kind === 'changed' ? Object.keys(e.fields).join(';') : '',
    kept: '',
  }));
}

/**
 * What the record alone says the undo would do: a contact matched after a lost answer is kept unless
 * --include-uncertain; a row sent without a journaled answer is looked for by its phone.
 */
const PLANNED: Record<Effect['kind'], string> = {
  created: 'would erase',
  changed: 'would restore',
  unread: 'cannot restore',
  uncertain: 'uncertain',
  inFlight: 'would find by phone',
};

const WOULD: Record<Receipt['did'], string> = { erased: 'would erase', restored: 'would restore', kept: 'would keep', gone: 'gone', cannotRestore: 'cannot restore', uncertain: 'uncertain' };
const DID: Record<Receipt['did'], string> = { erased: 'erased', restored: 'restored', kept: 'kept', gone: 'gone', cannotRestore: 'cannot restore', uncertain: 'uncertain' };

/**
 * Rows in the import's order: by line, a workbook's sheets in the order they first come (the undo
 * meets them in the file's order), each sheet's lines by number.
 */
function inImportOrder(rows: UndoRow[]): UndoRow[] {
  const rank = new Map<string, number>();
  const keyOf = (r: UndoRow): [number, number] => {
    if (typeof r.line === 'number') return [0, r.line];
    const bang = r.line.lastIndexOf('!');
    const sheet = r.line.slice(0, bang);
    if (!rank.has(sheet)) rank.set(sheet, rank.size + 1);
    return [rank.get(sheet) ?? 0, Number(r.line.slice(bang + 1))];
  };
  const keyed = rows.map((r) => ({ r, k: keyOf(r) }));
  keyed.sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1]);
  return keyed.map((x) => x.r);
}

/**
 * The plan's receipts as the table's rows — a dry run's too, which writes no receipt file — passed
 * on to the receipts file in a real run.
 */
export class UndoTable {
  readonly rows: UndoRow[] = [];

  constructor(
    private readonly dryRun: boolean,
    private readonly next?: { add(r: Receipt): void },
  ) {}

  add(r: Receipt): void {
    this.next?.add(r);
    this.rows.push({ line: r.item, id: r.id, action: (this.dryRun ? WOULD : DID)[r.did] ?? r.did, fields: (r.fields ?? []).join(';'), kept: (r.kept ?? []).join(';') });
  }
}

/** Writes the changes file (atomically, masked, cells guarded unless --csv-raw), rows in line order. */
export function writeUndoChanges(ctx: Context, path: string, rows: UndoRow[]): void {
  const cell = ctx.csvRaw ? (t: string) => t : guardCell;
  const sorted = inImportOrder(rows);
  const text = stringify([COLUMNS.map((c) => c.key), ...sorted.map((r) => [String(r.line), cell(r.id), r.action, r.fields, r.kept])]);
  writeFileAtomic(path, `\ufeff${text}`, (t) => ctx.log.redact(t));
}

/** Whether the table is asked for on stdout: `-v`, or a `--format` other than JSON (which is the summary's). */
export function tableAsked(ctx: Context): boolean {
  if (ctx.format === 'json') return false;
  return ctx.log.verbosity === 'verbose' || ctx.globals.format !== undefined;
}

/** Prints the table on stdout in the format asked. */
export async function showUndoTable(ctx: Context, rows: UndoRow[]): Promise<void> {
  const writer = await createListWriter(ctx.deps.io.stdout, ctx.format, COLUMNS, ctx);
  await writer.write(inImportOrder(rows));
  await writer.end();
}
