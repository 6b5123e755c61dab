/**
 * What an import did to each contact, as its journal keeps it for `import undo` (docs/people.md,
 * "What undo takes back"). Per row the import writes, before sending, when it first sent it and
 * what it had read of the contact the row matches (`i`: `{t}`, `{t, new}` or `{t, match: id, b:
 * {field: earlier value}}` for the fields it changes — personal data, in the 0600 journal in the
 * config folder) and, once answered, the contact's id with digests of what it wrote (`d`: `{id,
 * line, w}` for a contact created — one digest of its fields; `own` when a retry met the contact
 * its first attempt stored, `uncertain` when nothing told —, `{id, line, wf: {field: digest}}`
 * for a changed one). Digests let the
 * undo tell that someone changed a contact since, without keeping what the import wrote.
 */
import { createHash } from 'node:crypto';
import { CONTACT_FIELDS } from '../api/fields.js';
import type { ParsedJournal } from '../bulk/journal.js';

/** A field's value as compared: empty, absent and null alike; tags as a set. */
function norm(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (Array.isArray(v)) return v.map(String).sort().join('\u0000');
  return String(v);
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** One field's value, digested. */
export function fieldDigest(v: unknown): string {
  return sha(norm(v));
}

/** Every contact field of a contact, digested together. */
export function contactDigest(c: Record<string, unknown>): string {
  return sha(CONTACT_FIELDS.map((f) => norm(c[f])).join('\u0001'));
}

/**
 * What a row sent, as the undo compares it with a contact found by its phone (src/jobs/undo-plan.ts):
 * each field but the phone (the service may write it its own way; the contact was found by it),
 * digested with case and outer spaces set aside, as a service may store them its own way.
 */
export function sentDigests(body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of CONTACT_FIELDS) if (f !== 'phone' && norm(body[f]) !== '') out[f] = looseDigest(body[f]);
  return out;
}

/**
 * The fields a contact holds that a row did not send (`sent`: the fields it sent): a contact its
 * send created holds none of them, so one that does was stored by someone else — unless the
 * service fills that field itself with that value (`fills`, learnt from the import's own 201
 * answers); a field the service fills with values that vary tells nothing, and counts.
 */
export function fieldsNotSent(contact: Record<string, unknown>, sent: Iterable<string>, fills?: ServiceFills): string[] {
  const had = new Set(sent);
  return CONTACT_FIELDS.filter((f) => f !== 'phone' && !had.has(f) && norm(contact[f]) !== '' && fills?.filled(f, contact[f]) !== true);
}

/**
 * What the service fills itself on a contact it creates (a default `status`, say): each field a
 * 201 answer of the import held that its row did not send, with the value (digested) — one value
 * every time, or none when the values varied. Kept in each created row's note (`fl`), so that the
 * undo knows them too.
 */
export class ServiceFills {
  private readonly seen = new Map<string, string | null>();

  /** Learns from a contact a row created (`sent`: the fields it sent); returns what the service filled, digested. */
  learn(contact: Record<string, unknown>, sent: Iterable<string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const f of fieldsNotSent(contact, sent)) {
      out[f] = looseDigest(contact[f]);
      this.add(f, out[f]);
    }
    return out;
  }

  add(field: string, digest: string): void {
    const had = this.seen.get(field);
    this.seen.set(field, had === undefined || had === digest ? digest : null);
  }

  /** Whether the service fills `field` itself with `value` on every contact it creates. */
  filled(field: string, value: unknown): boolean {
    const d = this.seen.get(field);
    return typeof d === 'string' && d === looseDigest(value);
  }
}

/** A value digested as `sentDigests` does. */
export function looseDigest(v: unknown): string {
  return sha(norm(v).trim().toLowerCase());
}

/** Two values of a field are the same (empty and absent alike, tags as a set). */
export function sameValue(a: unknown, b: unknown): boolean {
  return norm(a) === norm(b);
}

/**
 * The contact as the service stored it, for the digests: the answer's fields when the answer
 * carries contact fields, else what was sent.
 */
export function storedFields(answer: unknown, sent: Record<string, unknown>): Record<string, unknown> {
  const a = answer !== null && typeof answer === 'object' ? (answer as Record<string, unknown>) : {};
  return CONTACT_FIELDS.some((f) => f in a) ? a : sent;
}

/** Where an import's row was: its line, and a workbook's sheet (named `Leads!12`, source/open.ts). */
type At = { row: number; line: number; sheet?: string; id: string };

/** What an import did to one contact. */
export type Effect =
  /** Created by the import: erased by the undo. `w`: the digest of its fields as written. */
  | ({ kind: 'created'; w: string | undefined } & At)
  /** Changed after being read: its fields get their earlier values back. */
  | ({ kind: 'changed'; fields: Record<string, { before: unknown; wrote: string | undefined }> } & At)
  /** Changed without being read first (no --check-existing): its earlier values are unknown. */
  | ({ kind: 'unread' } & At)
  /**
   * Matched after an attempt whose answer was lost, and nothing told whether that attempt stored
   * it (undo-notes.ts): erased only with --include-uncertain, as a created one, else named.
   */
  | ({ kind: 'uncertain'; w: string | undefined } & At)
  /**
   * Sent without a journaled answer (InFlight): what it stored is found by its phone at the undo
   * (src/jobs/in-flight.ts). `id` is empty: the contact is not known yet.
   */
  | ({ kind: 'inFlight'; id: ''; p: string; t: number | undefined; f?: Record<string, string> } & Omit<At, 'id'>);

/**
 * A row sent whose answer the journal never got (the import stopped with it on the wire, or it
 * failed after attempts that may have reached the service): perhaps stored. `p`: its E.164 phone,
 * by which an undo finds what it stored (src/jobs/in-flight.ts); `t`: when it was first sent.
 */
export interface InFlight {
  row: number;
  line: number;
  sheet?: string;
  p: string | undefined;
  t: number | undefined;
  /** What it sent but its phone, digested (sentDigests); absent in journals older than this check. */
  f?: Record<string, string>;
}

export interface Effects {
  effects: Effect[];
  /** Rows stored whose answer left no id in the journal (a journal older than undo). */
  unknown: number;
  inFlight: InFlight[];
  /** What the service filled itself on the contacts the import created (the notes' `fl`). */
  fills: ServiceFills;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const isDigests = (v: unknown): v is Record<string, string> => isObject(v) && Object.values(v).every((d) => typeof d === 'string');

/** The effects of an import, in the order of its rows. */
export function effectsOf(p: ParsedJournal): Effects {
  const effects: Effect[] = [];
  let unknown = 0;
  const inFlight: InFlight[] = [];
  const fills = new ServiceFills();
  for (const [r, i] of p.intents) {
    const status = p.rows.get(r);
    // A row whose person was erased since (--purge-local took its phone out) has nothing to find.
    if (typeof i.t !== 'number' || i.erased === true || (status !== undefined && status !== 'failed')) continue;
    inFlight.push({ row: r, line: typeof i.l === 'number' ? i.l : r, ...(typeof i.s === 'string' ? { sheet: i.s } : {}), p: typeof i.p === 'string' ? i.p : undefined, t: i.t, ...(isDigests(i.f) ? { f: i.f } : {}) });
  }
  inFlight.sort((a, b) => a.row - b.row);
  for (const r of [...p.rows.keys()].sort((a, b) => a - b)) {
    const status = p.rows.get(r);
    if (status !== 'created' && status !== 'matched' && status !== 'uncertain') continue;
    const d = p.data.get(r);
    if (!d || typeof d.id !== 'string') {
      unknown += 1;
      continue;
    }
    if (isDigests(d.fl)) for (const [f, digest] of Object.entries(d.fl)) fills.add(f, digest);
    const base = { row: r, line: typeof d.line === 'number' ? d.line : r, ...(typeof d.sheet === 'string' ? { sheet: d.sheet } : {}), id: d.id };
    const i = p.intents.get(r);
    if (status === 'uncertain') {
      effects.push({ kind: 'uncertain', ...base, w: typeof d.w === 'string' ? d.w : undefined });
    } else if (status === 'created' || d.own === true) {
      effects.push({ kind: 'created', ...base, w: typeof d.w === 'string' ? d.w : undefined });
    } else if (i && i.match === d.id && isObject(i.b)) {
      const wrote = isObject(d.wf) ? d.wf : {};
      const fields = Object.fromEntries(Object.entries(i.b).map(([f, before]) => [f, { before, wrote: typeof wrote[f] === 'string' ? (wrote[f] as string) : undefined }]));
      if (Object.keys(fields).length > 0) effects.push({ kind: 'changed', ...base, fields });
    } else effects.push({ kind: 'unread', ...base });
  }
  return { effects, unknown, inFlight, fills };
}
