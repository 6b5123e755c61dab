/**
 * What a real import writes into its journal so that `import undo` can put the contacts back
 * (src/import/effects.ts; docs/people.md, "What undo takes back"). As a row's POST goes on the
 * wire (past the limiter) — every row, with or without a listing — its intent (`i`): when it was first sent (`t`, this
 * machine's clock), its line and E.164 phone (`l`, `p`), and what the listing said of its phone (a new person, or the contact it matches
 * with the earlier values of the fields the row changes). Once answered, the contact's id and
 * digests of what was written (`d`). The intent is a plain write before the send, so a kill -9,
 * SIGHUP, a fault or a full disk that loses the answer leaves it behind: the row is known to have
 * perhaps been stored, and a retry that meets the contact it stored is not taken for a match.
 * On --resume, what the first run wrote stands: its listing already holds the contacts the first
 * run created — and so does a --restart's, for the rows the abandoned run had sent but not finished.
 */
import type { BulkCounts, BulkRow } from '../bulk/engine.js';
import type { EarlierRun, Journal } from '../bulk/journal.js';
import { contactDigest, fieldDigest, fieldsNotSent, sameValue, sentDigests, ServiceFills, storedFields } from './effects.js';
import type { FieldChange } from './preview.js';
import type { ImportOptions } from './run-import.js';
import type { ContactBody } from './validate.js';
import { resolve } from 'node:path';

/** The answer to a row's POST; `date` the answer's Date header. */
export type Answer = { status: number; contact: unknown; ambiguousBefore: boolean; date?: string | undefined };

/** How a sent row ended: `uncertain` — matched after an attempt whose answer was lost, and nothing tells whether that attempt stored it. */
export type Ending = 'created' | 'matched' | 'uncertain';

type Intent = Record<string, unknown>;

/**
 * How far before its first send a contact's creation time may read and still be that send's: the
 * `Date` header and many creation times are whole seconds.
 */
export const CREATED_SLACK_MS = 1000;

/** A creation time the answer carries, in ms: an ISO time with its zone, or seconds or ms since 1970. */
function createdAtOf(c: Record<string, unknown>): number | undefined {
  for (const key of ['createdAt', 'created_at', 'created', 'creationTime', 'dateCreated']) {
    const v = c[key];
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v < 1e11 ? v * 1000 : v;
    if (typeof v === 'string' && /\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})$/i.test(v.trim())) {
      const ms = Date.parse(v.trim());
      if (Number.isFinite(ms)) return ms;
    }
  }
  return undefined;
}

/**
 * Whether the contact a retry met is the one the row's first send stored: its creation time against
 * that send's time, both on the service's clock (the answer's `Date` header gives the offset of
 * this machine's). Undefined when the service gives no creation time or no Date, or the first
 * send's time is unknown.
 */
export function storedByFirstSend(contact: Record<string, unknown>, date: string | undefined, firstSentAt: number | undefined, answeredAt: number): boolean | undefined {
  const created = createdAtOf(contact);
  const server = date === undefined ? Number.NaN : Date.parse(date);
  if (created === undefined || !Number.isFinite(server) || firstSentAt === undefined) return undefined;
  return created >= firstSentAt + (server - answeredAt) - CREATED_SLACK_MS;
}

export class UndoNotes {
  /** What the listing said of the rows accepted and not yet sent (a window of them). */
  private readonly listed = new Map<number, Intent>();
  /** What the service fills itself on the contacts this run's rows created (their 201 answers). */
  private readonly fills = new ServiceFills();

  constructor(
    private readonly journal: Journal | undefined,
    private readonly earlier: EarlierRun | undefined,
    /** --restart: what the abandoned run knew of the rows it had not finished. */
    private readonly abandoned: EarlierRun['intents'] | undefined,
    private readonly now: () => number,
  ) {}

  /** The listing's word on a row about to be sent: the contact it matches, or none. */
  read(row: BulkRow, match: { id: string; fields: Record<string, unknown> } | undefined, changed: FieldChange[]): void {
    if (!this.journal) return;
    this.listed.set(row.n, match ? { match: match.id, b: Object.fromEntries(changed.map((c) => [c.field, match.fields[c.field] ?? null])) } : { new: 1 });
  }

  /** Whether an earlier run may have sent the row (its intent is in the journal it continues or abandoned). */
  private triedBefore(n: number): boolean {
    return this.earlier?.intents.has(n) === true || this.abandoned?.has(n) === true;
  }

  /**
   * The row's POST goes on the wire now: its intent is written first (a plain write: no fsync, no
   * answer awaited; a write that fails — a full disk — stops the POST). Returns what to do with
   * the answer.
   */
  sending(row: BulkRow, e164: string | undefined, sent: ContactBody): (body: ContactBody, answer: Answer) => Ending {
    const listing = this.listed.get(row.n);
    this.listed.delete(row.n);
    const first = this.earlier?.intents.get(row.n);
    // `l` and `p`: the row's line and phone, for an undo to find what a row whose answer was never
    // journaled stored (src/jobs/in-flight.ts); `p` is blanked with the rest when the person is erased.
    // `f`: digests of what else it sent, for that undo to tell its contact from one someone else
    // stored with the phone after the send.
    const intent = first ?? this.abandoned?.get(row.n) ?? { t: this.now(), l: row.line, ...(row.sheet !== undefined ? { s: row.sheet } : {}), ...(e164 !== undefined ? { p: e164, f: sentDigests(sent) } : {}), ...listing };
    if (!first) this.journal?.intent(row.n, intent);
    return (body, answer) => this.answered(row, intent, body, answer);
  }

  /** A row's answer: the contact's id and digests of what it now holds; how the row ended. */
  private answered(row: BulkRow, intent: Intent, body: ContactBody, answer: Answer): Ending {
    const c = answer.contact !== null && typeof answer.contact === 'object' ? (answer.contact as Record<string, unknown>) : {};
    const hasId = typeof c.id === 'string' || typeof c.id === 'number';
    const base = { id: String(c.id), line: row.line, ...(row.sheet !== undefined ? { sheet: row.sheet } : {}) };
    const stored = storedFields(c, body);
    const note = (data: Record<string, unknown>) => {
      if (hasId) this.journal?.note(row.n, data);
    };
    const sentFields = Object.keys(body).filter((f) => !sameValue((body as Record<string, unknown>)[f], undefined));
    if (answer.status === 201) {
      const fl = this.fills.learn(c, sentFields);
      note({ ...base, w: contactDigest(stored), ...(Object.keys(fl).length > 0 ? { fl } : {}) });
      return 'created';
    }
    // A match after an attempt whose answer was lost (a fault, a timeout; a run killed, hung up or
    // stopped by a full disk with the POST on the wire) may be the contact that attempt stored.
    const triedBefore = answer.ambiguousBefore || this.triedBefore(row.n);
    // A contact holding a field the row never sent — and the service does not fill itself — is not
    // what its attempt stored alone: someone else may have stored the phone since, and this retry
    // merged into their contact — uncertain.
    const foreign = triedBefore && fieldsNotSent(c, sentFields, this.fills).length > 0;
    const uncertain = () => {
      note({ ...base, uncertain: true, w: contactDigest(stored) });
      return 'uncertain' as const;
    };
    if (intent?.new !== undefined) {
      // The listing had no one with this phone: a match is our own earlier attempt's contact —
      // unless no attempt went before, and someone else stored the person meanwhile.
      if (foreign) return uncertain();
      note(triedBefore ? { ...base, own: true, w: contactDigest(stored) } : base);
      return triedBefore ? 'created' : 'matched';
    }
    if (intent?.match !== undefined) {
      if (intent.match === base.id && intent.b !== null && typeof intent.b === 'object') note({ ...base, wf: Object.fromEntries(Object.keys(intent.b).map((f) => [f, fieldDigest(stored[f])])) });
      else note(base);
      return 'matched';
    }
    if (!triedBefore) {
      note(base);
      return 'matched';
    }
    // No listing: the contact's creation time tells, where the service gives one.
    const own = storedByFirstSend(c, answer.date, typeof intent?.t === 'number' ? intent.t : undefined, this.now());
    if (own === true && !foreign) {
      note({ ...base, own: true, w: contactDigest(stored) });
      return 'created';
    }
    if (own === false) {
      note(base);
      return 'matched';
    }
    return uncertain();
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
