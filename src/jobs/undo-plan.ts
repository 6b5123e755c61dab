/**
 * The undo of an import as a plan on the bulk engine (src/bulk/engine.ts), like the import itself:
 * one row per contact the import created or changed. Each is read first (its GET, or as one listing
 * of the account showed it: undo-reads.ts) and then —
 *   created: erased (DELETE), unless someone changed it since (its fields no longer digest to
 *     what the import wrote): kept and named;
 *   changed: each field the import changed gets its earlier value back (one PATCH), unless its
 *     value is no longer what the import wrote: that field is kept and named;
 *   `--include-changed` undoes those too; a contact already gone (404) is `gone`. A row without
 *   the digest of what the import wrote (a line not written by the import) is kept and named,
 *   whatever the flags: nothing shows the contact is the import's.
 * Before acting on a row the plan writes what it is about to do into the journal (`i`), so that
 * after a kill -9 a 404 on a contact whose DELETE went out reads as erased, not gone; a field that
 * already holds its earlier value needs no PATCH. A dry run reads and decides the same, and writes
 * nothing: its receipts go to a sink that only collects them (undo-output.ts). Receipts: one JSON line per contact — import line, id, what was done, the names of the
 * fields — never a value.
 */
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { eraseContact } from '../api/contacts.js';
import type { BulkPlan } from '../bulk/engine.js';
import type { EarlierRun, Journal } from '../bulk/journal.js';
import { ApiError, RuntimeError } from '../errors.js';
import { type ApiClient, pathOf } from '../http/client.js';
import { contactDigest, type Effect, fieldDigest, fieldsNotSent, looseDigest, sameValue, type ServiceFills } from '../import/effects.js';
import { storedByFirstSend } from '../import/undo-notes.js';
import { lineName, lineRef } from '../source/open.js';

/**
 * What the undo did to one contact, and the row's ending: `partly` is a contact given some fields
 * back and keeping others (its receipt says `restored`, with the fields `kept`).
 */
export type Did = 'erased' | 'restored' | 'partly' | 'kept' | 'gone' | 'cannotRestore' | 'uncertain' | 'notStored' | 'earlier';

export interface Receipt {
  /** The import's line: a number, or a workbook's `Leads!12`. */
  item: number | string;
  id: string;
  did: Exclude<Did, 'earlier' | 'partly' | 'notStored'>;
  /** Fields given their earlier values back. */
  fields?: string[];
  /** Fields (or, for a created contact, the contact) kept: changed since the import. */
  kept?: string[];
  at: string;
}

/** The undo's receipts: appended and fsync'd, each (line, id, what was done) written once however often the undo is resumed. */
export class UndoReceipts {
  private fd: number | undefined;
  private readonly seen = new Set<string>();
  written = 0;

  constructor(readonly path: string) {
    try {
      for (const line of readFileSync(path, 'utf8').split('\n')) {
        try {
          const r = JSON.parse(line) as Receipt;
          this.seen.add(`${r.item}|${r.id}|${r.did}`);
        } catch {
          // a line cut short: not a receipt
        }
      }
    } catch {
      // none yet
    }
  }

  add(r: Receipt): void {
    const key = `${r.item}|${r.id}|${r.did}`;
    if (this.seen.has(key)) return;
    if (this.fd === undefined) {
      try {
        this.fd = openSync(this.path, 'a', 0o600);
      } catch (err) {
        throw new RuntimeError('receipts_unwritable', `cannot write the receipts file ${this.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
    }
    writeSync(this.fd, `${JSON.stringify(r)}\n`);
    fsyncSync(this.fd);
    this.seen.add(key);
    this.written += 1;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

export interface UndoPlanInput {
  client: ApiClient;
  items: Effect[];
  includeChanged: boolean;
  /** Erase the contacts the import may have created (kind `uncertain`) as created ones. */
  includeUncertain: boolean;
  dryRun: boolean;
  journal: Journal | undefined;
  earlier: EarlierRun | undefined;
  /** Where each contact's receipt goes (a dry run's too: undo-output.ts collects them). */
  receipts: { add(r: Receipt): void } | undefined;
  /** The contacts as one listing of the account showed them (undo-reads.ts); the others are read one by one. */
  listed?: Map<string, Record<string, unknown>> | undefined;
  /** Contacts an earlier undo of this import finished (id → its ending). */
  doneBefore: Map<string, string>;
  /** Contacts an earlier undo of this import set out to erase. */
  erasingBefore: Set<string>;
  /** Contacts an earlier undo set out to erase for a row sent without a journaled answer: import row → ids. */
  erasingInFlightBefore?: Map<number, string[]>;
  /** Rows sent without a journaled answer whose contact an earlier undo erased (import rows). */
  erasedInFlightBefore?: Set<number>;
  now: () => number;
  /** A contact kept, or kept in part, named for the operator. */
  onKept(e: Effect, what: string): void;
  /** The contacts holding each phone of the rows sent without a journaled answer (in-flight.ts). */
  inFlight?: Map<string, string[]> | undefined;
  /** What the service fills itself on a contact it creates (src/import/effects.ts ServiceFills). */
  fills?: ServiceFills | undefined;
  /** Contacts other imports of the account created, answered 201 (run-undo.ts): id → that import. */
  createdByOthers?: Map<string, string> | undefined;
}

export interface UndoTally {
  /** Fields kept on contacts whose other fields were given back. */
  keptFields: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The value a field is given back: an earlier empty one as the empty value of its type. */
function earlierValue(field: string, before: unknown): unknown {
  if (before !== undefined && before !== null) return before;
  return field === 'tags' ? [] : '';
}

/**
 * Whether an earlier undo's ending for a contact leaves nothing to do now (what it kept,
 * --include-changed undoes; what it left as uncertain, --include-uncertain).
 */
export function finalBefore(ending: string | undefined, includeChanged: boolean, includeUncertain = false): boolean {
  return ending !== undefined && ending !== 'failed' && ending !== 'earlier' && !((ending === 'kept' || ending === 'partly') && includeChanged) && !(ending === 'uncertain' && includeUncertain);
}

/** Why a journal row is not acted on: nothing in it shows the contact is the import's. */
const UNVERIFIED = 'its journal row holds no digest of what the import wrote, so nothing shows this contact is the one the import created or changed: kept (check it, and erase or edit it by id)';

export function undoPlan(o: UndoPlanInput): { plan: BulkPlan<Effect>; tally: UndoTally } {
  const tally: UndoTally = { keptFields: 0 };
  const at = () => new Date(o.now()).toISOString();
  const receipt = (e: Effect, did: Receipt['did'], extra: Partial<Receipt> = {}) => {
    o.receipts?.add({ item: lineRef(e), id: e.id, did, ...extra, at: at() });
  };
  const intendedErase = (row: number, id: string) => o.erasingBefore.has(id) || o.earlier?.intents.get(row)?.act === 'erase';

  async function read(e: Effect, signal: AbortSignal): Promise<Record<string, unknown> | undefined> {
    const listed = o.listed?.get(e.id);
    if (listed !== undefined) return listed;
    try {
      const res = await o.client.request({ method: 'GET', path: pathOf`/contacts/${e.id}`, signal });
      if (!isObject(res.body)) throw new ApiError('unexpected', `the answer to GET /contacts/${e.id} is not a contact`, { method: 'GET', path: `/contacts/${e.id}` }, 'run again with --resume');
      return res.body;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  async function erase(e: Extract<Effect, { kind: 'created' | 'uncertain' }>, row: number, signal: AbortSignal): Promise<Did> {
    const current = await read(e, signal);
    if (current === undefined) {
      const did = intendedErase(row, e.id) ? 'erased' : 'gone';
      receipt(e, did);
      return did;
    }
    // A row without the digest of what the import wrote cannot show that this contact is the one
    // it created (a journal line written by hand, or by something else): kept, whatever the flags.
    if (e.w === undefined) {
      o.onKept(e, UNVERIFIED);
      receipt(e, 'kept', { kept: ['contact'] });
      return 'kept';
    }
    if (contactDigest(current) !== e.w && !o.includeChanged) {
      o.onKept(e, 'changed since the import');
      receipt(e, 'kept', { kept: ['contact'] });
      return 'kept';
    }
    if (o.dryRun) {
      receipt(e, 'erased');
      return 'erased';
    }
    const erasure = await eraseContact(o.client, e.id, signal);
    if (!erasure.erased) throw erasure.notFound;
    receipt(e, 'erased');
    return 'erased';
  }

  /**
   * A row the import sent without a journaled answer: each contact holding its phone, read for its
   * creation time — created by that send: erased; older: there before, what the send merged into it
   * cannot be given back; no time to tell: uncertain (erased with --include-uncertain). Created
   * after the send but holding other values than the row sent: someone else may have stored the
   * phone since — uncertain too, never erased as the import's on its time alone.
   */
  async function inFlight(e: Extract<Effect, { kind: 'inFlight' }>, row: number, signal: AbortSignal): Promise<Did> {
    let did: Did = 'notStored';
    // The contacts an earlier run of the undo set out to erase for this row are read again: one
    // whose DELETE went out before a kill -9 is gone from the listing, and is this row's erasure.
    const before = o.erasingInFlightBefore?.get(e.row) ?? [];
    const erasing = [...before];
    for (const id of new Set([...(o.inFlight?.get(e.p) ?? []), ...before])) {
      const one = { ...e, id } as unknown as Effect;
      let res;
      try {
        res = await o.client.request({ method: 'GET', path: pathOf`/contacts/${id}`, signal });
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) {
          if (before.includes(id)) {
            receipt(one, 'erased');
            did = 'erased';
          }
          continue;
        }
        throw err;
      }
      const contact = isObject(res.body) ? res.body : {};
      const own = storedByFirstSend(contact, typeof res.headers.date === 'string' ? res.headers.date : undefined, e.t, o.now());
      // Not older than the send, but another import of the account was answered it as a new contact:
      // it is that import's, not what this send stored (which the service would have matched).
      const creator = own !== false ? o.createdByOthers?.get(id) : undefined;
      if (creator !== undefined) {
        o.onKept(one, `holds the row's phone, but import ${creator} created it (the service answered its POST as a new contact): not what this row's send stored`);
        continue;
      }
      const other = own === true ? notAsSent(contact, e.f, o.fills) : undefined;
      if (other !== undefined && !o.includeUncertain) {
        o.onKept(one, `created after the row was sent, but ${other}: someone else may have stored the phone since — kept (--include-uncertain erases it)`);
        receipt(one, 'uncertain');
        if (did !== 'erased') did = 'uncertain';
      } else if (own === false) {
        receipt(one, 'cannotRestore');
        if (did === 'notStored') did = 'cannotRestore';
      } else if (own === undefined && !o.includeUncertain) {
        o.onKept(one, 'sent when the import stopped, its answer lost, and the service gives no creation time to tell whether that send created it: kept (--include-uncertain erases it)');
        receipt(one, 'uncertain');
        if (did !== 'erased') did = 'uncertain';
      } else {
        did = 'erased';
        if (o.dryRun) {
          receipt(one, 'erased'); // named in the dry run's changes file, as the real run's
          continue;
        }
        if (!erasing.includes(id)) erasing.push(id);
        o.journal?.note(row, { erase: id, row: e.row, erasing });
        const erasure = await eraseContact(o.client, id, signal);
        if (erasure.erased) receipt(one, 'erased');
      }
    }
    return did;
  }

  async function restore(e: Extract<Effect, { kind: 'changed' }>, signal: AbortSignal): Promise<Did> {
    const current = await read(e, signal);
    if (current === undefined) {
      receipt(e, 'gone');
      return 'gone';
    }
    const body: Record<string, unknown> = {};
    const back: string[] = [];
    const kept: string[] = [];
    for (const [field, { before, wrote }] of Object.entries(e.fields)) {
      const now = current[field];
      if (sameValue(now, before)) back.push(field); // already as it was
      else if (wrote !== undefined && (fieldDigest(now) === wrote || o.includeChanged)) {
        body[field] = earlierValue(field, before);
        back.push(field);
      } else kept.push(field);
    }
    if (kept.length > 0 && back.length > 0) tally.keptFields += kept.length;
    if (kept.length > 0) {
      const unverified = kept.filter((f) => e.fields[f]?.wrote === undefined);
      const changed = kept.filter((f) => !unverified.includes(f));
      const why = [changed.length > 0 ? `${changed.join(', ')} changed since the import` : '', unverified.length > 0 ? `${unverified.join(', ')}: ${UNVERIFIED}` : ''].filter((w) => w !== '').join('; ');
      o.onKept(e, `${why}${back.length > 0 ? `; ${back.join(', ')} ${o.dryRun ? 'would be restored' : 'restored'}` : ''}`);
    }
    if (back.length === 0) {
      receipt(e, 'kept', { kept });
      return 'kept';
    }
    if (!o.dryRun && Object.keys(body).length > 0) await o.client.request({ method: 'PATCH', path: pathOf`/contacts/${e.id}`, body, signal });
    receipt(e, 'restored', { fields: back, ...(kept.length > 0 ? { kept } : {}) });
    return kept.length > 0 ? 'partly' : 'restored';
  }

  const plan: BulkPlan<Effect> = {
    check(row) {
      const e = o.items[row.n - 1] as Effect;
      const erasing = e.kind === 'created' || (e.kind === 'uncertain' && o.includeUncertain);
      const act = erasing ? 'erase' : e.kind === 'changed' ? 'restore' : e.kind === 'inFlight' ? 'find' : 'none';
      if (!o.earlier?.intents.has(row.n)) o.journal?.intent(row.n, e.kind === 'inFlight' ? { line: e.line, act } : { id: e.id, act });
      if (e.kind === 'inFlight' ? o.erasedInFlightBefore?.has(e.row) === true : finalBefore(o.doneBefore.get(e.id), o.includeChanged, o.includeUncertain)) return { done: 'earlier' };
      if (e.kind === 'unread') return { done: 'cannotRestore' };
      if (e.kind === 'uncertain' && !o.includeUncertain) return { done: 'uncertain' };
      return { send: e };
    },
    ended(row, ending) {
      const e = o.items[row.n - 1] as Effect;
      if (ending === 'cannotRestore' || ending === 'uncertain') receipt(e, ending);
    },
    duplicate: () => 'duplicate',
    async send(e, row, signal) {
      if (e.kind === 'inFlight') return inFlight(e, row.n, signal);
      return e.kind === 'created' || e.kind === 'uncertain' ? erase(e, row.n, signal) : restore(e as Extract<Effect, { kind: 'changed' }>, signal);
    },
    refused: (err) => `refused by the server (${err.status ?? ''}): ${err.serverMessage ?? err.message}`,
  };
  return { plan, tally };
}

/**
 * Why a contact found by a row's phone and created after its send may not be the row's (`sent`:
 * the row's digests, src/import/effects.ts sentDigests): a field it holds otherwise than the row
 * sent it, or one it holds that the row did not send (and the service does not fill itself). A
 * field it does not show is not compared; a journal older than the digests compares nothing; a
 * contact that shows none of the fields the row sent is not taken as its own.
 */
function notAsSent(contact: Record<string, unknown>, sent: Record<string, string> | undefined, fills: ServiceFills | undefined): string | undefined {
  if (sent === undefined) return undefined;
  const shown = Object.keys(sent).filter((f) => f in contact);
  if (shown.length === 0 && Object.keys(sent).length > 0) return 'it shows none of the fields the row sent';
  const other = shown.filter((f) => looseDigest(contact[f]) !== sent[f]);
  if (other.length > 0) return `its ${other.join(', ')} ${other.length === 1 ? 'is' : 'are'} not what the row sent`;
  const extra = fieldsNotSent(contact, Object.keys(sent), fills);
  return extra.length === 0 ? undefined : `it holds ${extra.join(', ')}, which the row did not send`;
}
