/**
 * The erasure as a plan on the bulk engine (src/bulk/engine.ts), like the import and the outcome
 * writeback: a row is one request, already resolved to the contacts that are this person
 * (resolve.ts); a request that found none ends `notFound` unsent; the others send one DELETE per
 * contact and end `erased`, or `notFound` when every contact was already gone. Each contact
 * erased gets a receipt, and each request that erased nothing one that says so.
 *
 * Before a row's DELETEs go, the journal notes the contacts they are for (`{"erase": [ids]}`): a
 * run killed with a DELETE in flight may have had it carried out unanswered, after which the
 * listing no longer shows the contact and a DELETE of it meets 404. `--resume` (and `--restart`)
 * sends those DELETEs again as the same requests: a 404 then is the erasure the killed run did
 * (docs/commands/erasure.md, "Sending the DELETEs": a 404 after an ambiguous failure of the same
 * request), receipted once — never a "found 0" for a person whose records were erased, nor a
 * contact forgotten.
 */
import { eraseContact } from '../api/contacts.js';
import type { BulkPlan } from '../bulk/engine.js';
import type { EarlierRun, Journal } from '../bulk/journal.js';
import type { ApiClient } from '../http/client.js';
import type { ReceiptsFile } from './receipts.js';
import type { ErasureRequest } from './requests.js';
import type { Resolution } from './resolve.js';
import { lineName, lineRef } from '../source/open.js';

/** What the erasure did, beyond the engine's counts: contacts tried, erased, requests that found nobody. */
export interface ErasureCounts {
  contacts: number;
  erased: number;
  notFound: number;
}

/** What a run knows of the runs before it: its journal, and the DELETEs the earlier runs noted before sending (resume, restart). */
export interface ErasureJournal {
  journal: Journal | undefined;
  intents: EarlierRun['intents'] | undefined;
}

/** The contacts a row's earlier run was erasing when it stopped (its intent). */
const intentIds = (intent: Record<string, unknown> | undefined): string[] => (Array.isArray(intent?.erase) ? intent.erase.filter((x): x is string => typeof x === 'string') : []);

/**
 * `unsettled`: the listing the requests were resolved with never held still (people.ts): a request
 * it found no one for is refused, not receipted "found 0" — the person may be the one missed.
 */
export function erasurePlan(client: ApiClient, resolutions: Resolution[], receipts: ReceiptsFile, now: () => number, earlier: ErasureJournal = { journal: undefined, intents: undefined }, listing: { unsettled: boolean } = { unsettled: false }): { plan: BulkPlan<Resolution>; counts: ErasureCounts } {
  const counts: ErasureCounts = { contacts: 0, erased: 0, notFound: 0 };
  const at = () => new Date(now()).toISOString();
  // A contact an earlier run was erasing stands in its row again, listed or not; its receipt, if
  // that run wrote one, is not written twice.
  const inFlightBefore = new Set<string>();
  resolutions.forEach((r, i) => {
    for (const id of intentIds(earlier.intents?.get(i + 1))) {
      inFlightBefore.add(id);
      if (!r.contacts.some((c) => c.id === id)) r.contacts.push({ id });
    }
  });
  const receiptedBefore = inFlightBefore.size > 0 ? receipts.erasedBefore() : new Set<string>();
  const receipt = (request: ErasureRequest, erased?: { id: string; at: string }) => {
    // A request's line as its receipt names it: a number, or a workbook's `Leads!12`.
    const line = lineRef(request);
    if (erased !== undefined && receiptedBefore.has(`${line} ${erased.id}`)) return;
    receipts.add(erased === undefined ? { request: line, found: 0, at: at() } : { request: line, id: erased.id, erased: true, at: erased.at });
  };
  // One DELETE per contact, however many lines of the file find it (a person who wrote twice, by
  // phone and by e-mail): every such line gets the receipt of that erasure, none a "found 0". The
  // time it was erased, or undefined when there was none to erase (eraseContact).
  const erasing = new Map<string, Promise<string | undefined>>();
  const eraseOnce = (id: string, signal: AbortSignal | undefined): Promise<string | undefined> => {
    let attempt = erasing.get(id);
    if (attempt !== undefined) return attempt;
    counts.contacts += 1;
    attempt = (async () => {
      const answer = await eraseContact(client, id, signal);
      if (!answer.erased && !inFlightBefore.has(id)) return undefined;
      counts.erased += 1;
      return at();
    })();
    erasing.set(id, attempt);
    // A failed DELETE may be tried again by a later line (or --resume).
    attempt.catch(() => erasing.delete(id));
    return attempt;
  };
  const byRow = new Map(resolutions.map((r, i) => [i + 1, r]));
  const resolutionOf = (n: number): Resolution => {
    const r = byRow.get(n);
    if (r === undefined) throw new Error(`erasure: no request for row ${n}`);
    return r;
  };
  const plan: BulkPlan<Resolution> = {
    check(row) {
      const r = resolutionOf(row.n);
      if (r.contacts.length > 0) return { send: r };
      if (r.near !== undefined) return { reject: `found no one with this number as given; ${r.near.length === 1 ? `contact ${r.near[0]} has it` : `contacts ${r.near.join(', ')} have it`} with an extension where the other has none: not erased, not recorded as found 0 (a person decides: erase by id)` };
      const listed = (r.request.numbers?.length ?? 0) > 0 || (r.request.emails?.length ?? 0) > 0;
      if (listing.unsettled && listed) return { reject: 'found no one in a listing that changed while it was read: not recorded as found 0 (run it again when the contacts are not changing)' };
      return { done: 'notFound' };
    },
    duplicate: () => 'duplicate',
    ended(row) {
      counts.notFound += 1;
      receipt(resolutionOf(row.n).request);
    },
    async send(r, row, signal) {
      earlier.journal?.intent(row.n, { erase: r.contacts.map((c) => c.id) });
      let erased = 0;
      for (const c of r.contacts) {
        const when = await eraseOnce(c.id, signal);
        if (when === undefined) continue;
        erased += 1;
        receipt(r.request, { id: c.id, at: when });
      }
      if (erased === 0) {
        counts.notFound += 1;
        receipt(r.request);
        return 'notFound';
      }
      return 'erased';
    },
    refused: (err) => `refused by the server (${err.status ?? ''}): ${err.serverMessage ?? err.message}`,
  };
  return { plan, counts };
}
