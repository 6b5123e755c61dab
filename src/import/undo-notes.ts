/**
 * What a real import writes into its journal so that `import undo` can put the contacts back
 * (src/import/effects.ts): before a row is sent, what the listing said of its phone (a new person,
 * or the contact it matches with the earlier values of the fields the row changes); once
 * answered, the contact's id and digests of what was written. On --resume, what the first run
 * read stands: the listing of a resumed run already holds the contacts the first run created —
 * and so does a --restart's, for the rows the abandoned run had sent but not finished.
 */
import type { BulkCounts, BulkRow } from '../bulk/engine.js';
import type { EarlierRun, Journal } from '../bulk/journal.js';
import { contactDigest, fieldDigest, storedFields } from './effects.js';
import type { FieldChange } from './preview.js';
import type { ImportOptions } from './run-import.js';
import type { ContactBody } from './validate.js';
import { resolve } from 'node:path';

/** The answer to a row's POST. */
export type Answer = { status: number; contact: unknown; ambiguousBefore: boolean };

type Intent = Record<string, unknown>;

export class UndoNotes {
  /** What was read of the rows in flight (a window of them). */
  private readonly inFlight = new Map<number, Intent>();

  constructor(
    private readonly journal: Journal | undefined,
    private readonly earlier: EarlierRun | undefined,
    /** --restart: what the abandoned run knew of the rows it had not finished. */
    private readonly abandoned?: EarlierRun['intents'] | undefined,
  ) {}

  /** The listing's word on a row about to be sent: the contact it matches, or none. */
  read(row: BulkRow, match: { id: string; fields: Record<string, unknown> } | undefined, changed: FieldChange[]): void {
    if (!this.journal) return;
    const first = this.earlier?.intents.get(row.n);
    const intent = first ?? this.abandoned?.get(row.n) ?? (match ? { match: match.id, b: Object.fromEntries(changed.map((c) => [c.field, match.fields[c.field] ?? null])) } : { new: 1 });
    this.inFlight.set(row.n, intent);
    if (!first) this.journal.intent(row.n, intent);
  }

  /** A row's answer: the contact's id, and digests of what it now holds. */
  answered(row: BulkRow, body: ContactBody, answer: Answer): void {
    const intent = this.inFlight.get(row.n);
    this.inFlight.delete(row.n);
    if (!this.journal) return;
    const c = answer.contact !== null && typeof answer.contact === 'object' ? (answer.contact as Record<string, unknown>) : {};
    if (typeof c.id !== 'string' && typeof c.id !== 'number') return;
    const id = String(c.id);
    const stored = storedFields(c, body);
    const base = { id, line: row.line, ...(row.sheet !== undefined ? { sheet: row.sheet } : {}) };
    if (answer.status === 201) return this.journal.note(row.n, { ...base, w: contactDigest(stored) });
    if (intent?.new !== undefined) {
      // The listing had no one with this phone, yet the service matched: our own earlier attempt
      // stored it (a retry after a lost answer, or a run killed before its answer was journaled).
      const own = answer.ambiguousBefore || this.earlier?.intents.has(row.n) === true || this.abandoned?.has(row.n) === true;
      return this.journal.note(row.n, own ? { ...base, own: true, w: contactDigest(stored) } : base);
    }
    if (intent?.match === id && intent.b !== null && typeof intent.b === 'object') {
      const wf = Object.fromEntries(Object.keys(intent.b).map((f) => [f, fieldDigest(stored[f])]));
      return this.journal.note(row.n, { ...base, wf });
    }
    this.journal.note(row.n, base);
  }
}

/** The options a job record keeps of an import (what `jobs resume` runs it with again). */
export function recordedOptions(o: ImportOptions, region: string | undefined, cwd: string): Record<string, unknown> {
  return {
    // The region in effect (flag or profile): a resume runs with it whatever the profile says then.
    ...(region !== undefined ? { country: region } : {}),
    ...(o.map.length > 0 ? { map: o.map } : {}),
    ...(o.encoding !== undefined ? { encoding: o.encoding } : {}),
    ...(o.delimiter !== undefined ? { delimiter: o.delimiter } : {}),
    ...(o.sheet !== undefined ? { sheet: o.sheet } : {}),
    ...(o.checkExisting ? { checkExisting: true } : {}),
    existing: o.existing,
    ...(o.allowNoPhone ? { allowNoPhone: true } : {}),
    ...(o.keepOtherPhones ? { keepOtherPhones: true } : {}),
    ...(o.rejects !== undefined ? { rejects: resolve(cwd, o.rejects) } : {}),
    ...(o.dryRun ? { dryRun: true } : {}),
  };
}

/** A dry run's record: its counts. */
export function dryTally(c: BulkCounts, pre: { new: number; matches: number }, changes: number): Record<string, number> {
  return { rows: c.rows, valid: c.valid, rejected: c.rejected, duplicates: c.duplicates, new: pre.new, matches: pre.matches, changes };
}
