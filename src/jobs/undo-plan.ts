/**
 * The undo of an import as a plan on the bulk engine (src/bulk/engine.ts), like the import itself:
 * one row per contact the import created or changed. Each is read first (its GET, or as one listing
 * of the account showed it: undo-reads.ts) and then —
 *   created: erased (DELETE), unless someone changed it since (its fields no longer digest to
 *     what the import wrote): kept and named;
 *   changed: each field the import changed gets its earlier value back (one PATCH), unless its
 *     value is no longer what the import wrote: that field is kept and named;
 *   `--include-changed` undoes those too; a contact already gone (404) is `gone`.
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
import { contactDigest, type Effect, fieldDigest, sameValue } from '../import/effects.js';

/**
 * What the undo did to one contact, and the row's ending: `partly` is a contact given some fields
 * back and keeping others (its receipt says `restored`, with the fields `kept`).
 */
export type Did = 'erased' | 'restored' | 'partly' | 'kept' | 'gone' | 'cannotRestore' | 'earlier';

export interface Receipt {
  item: number;
  id: string;
  did: Exclude<Did, 'earlier' | 'partly'>;
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
  now: () => number;
  /** A contact kept, or kept in part, named for the operator. */
  onKept(e: Effect, what: string): void;
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

/** Whether an earlier undo's ending for a contact leaves nothing to do now (what it kept, --include-changed undoes). */
export function finalBefore(ending: string | undefined, includeChanged: boolean): boolean {
  return ending !== undefined && ending !== 'failed' && ending !== 'earlier' && !((ending === 'kept' || ending === 'partly') && includeChanged);
}

export function undoPlan(o: UndoPlanInput): { plan: BulkPlan<Effect>; tally: UndoTally } {
  const tally: UndoTally = { keptFields: 0 };
  const at = () => new Date(o.now()).toISOString();
  const receipt = (e: Effect, did: Receipt['did'], extra: Partial<Receipt> = {}) => {
    o.receipts?.add({ item: e.line, id: e.id, did, ...extra, at: at() });
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

  async function erase(e: Extract<Effect, { kind: 'created' }>, row: number, signal: AbortSignal): Promise<Did> {
    const current = await read(e, signal);
    if (current === undefined) {
      const did = intendedErase(row, e.id) ? 'erased' : 'gone';
      receipt(e, did);
      return did;
    }
    if (e.w !== undefined && contactDigest(current) !== e.w && !o.includeChanged) {
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
      else if (wrote === undefined || fieldDigest(now) === wrote || o.includeChanged) {
        body[field] = earlierValue(field, before);
        back.push(field);
      } else kept.push(field);
    }
    if (kept.length > 0 && back.length > 0) tally.keptFields += kept.length;
    if (kept.length > 0) {
      o.onKept(e, `${kept.join(', ')} changed since the import${back.length > 0 ? `; ${back.join(', ')} ${o.dryRun ? 'would be restored' : 'restored'}` : ''}`);
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
      const act = e.kind === 'created' ? 'erase' : e.kind === 'changed' ? 'restore' : 'none';
      if (!o.earlier?.intents.has(row.n)) o.journal?.intent(row.n, { id: e.id, act });
      if (finalBefore(o.doneBefore.get(e.id), o.includeChanged)) return { done: 'earlier' };
      if (e.kind === 'unread') return { done: 'cannotRestore' };
      return { send: e };
    },
    ended(row, ending) {
      const e = o.items[row.n - 1] as Effect;
      if (ending === 'cannotRestore') receipt(e, 'cannotRestore');
    },
    duplicate: () => 'duplicate',
    async send(e, row, signal) {
      return e.kind === 'created' ? erase(e, row.n, signal) : restore(e as Extract<Effect, { kind: 'changed' }>, signal);
    },
    refused: (err) => `refused by the server (${err.status ?? ''}): ${err.serverMessage ?? err.message}`,
  };
  return { plan, tally };
}
