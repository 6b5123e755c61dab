/**
 * The erasure as a plan on the bulk engine (src/bulk/engine.ts), like the import and the outcome
 * writeback: a row is one request, already resolved to the contacts that are this person
 * (resolve.ts); a request that found none ends `notFound` unsent; the others send one DELETE per
 * contact and end `erased`, or `notFound` when every contact was already gone. Each contact
 * erased gets a receipt, and each request that erased nothing one that says so.
 */
import { eraseContact } from '../api/contacts.js';
import type { BulkPlan } from '../bulk/engine.js';
import type { ApiClient } from '../http/client.js';
import type { ReceiptsFile } from './receipts.js';
import type { ErasureRequest } from './requests.js';
import type { Resolution } from './resolve.js';

/** What the erasure did, beyond the engine's counts: contacts tried, erased, requests that found nobody. */
export interface ErasureCounts {
  contacts: number;
  erased: number;
  notFound: number;
}

export function erasurePlan(client: ApiClient, resolutions: Resolution[], receipts: ReceiptsFile, now: () => number): { plan: BulkPlan<Resolution>; counts: ErasureCounts } {
  const counts: ErasureCounts = { contacts: 0, erased: 0, notFound: 0 };
  const at = () => new Date(now()).toISOString();
  const receipt = (request: ErasureRequest, erased?: { id: string; at: string }) => receipts.add(erased === undefined ? { request: request.line, found: 0 } : { request: request.line, id: erased.id, erased: true, at: erased.at });
  // One DELETE per contact, however many lines of the file find it (a person who wrote twice, by
  // phone and by e-mail): every such line gets the receipt of that erasure, none a "found 0". The
  // time it was erased, or undefined when there was none to erase (eraseContact).
  const erasing = new Map<string, Promise<string | undefined>>();
  const eraseOnce = (id: string, signal: AbortSignal | undefined): Promise<string | undefined> => {
    let attempt = erasing.get(id);
    if (attempt !== undefined) return attempt;
    counts.contacts += 1;
    attempt = (async () => {
      if (!(await eraseContact(client, id, signal)).erased) return undefined;
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
      return r.contacts.length === 0 ? { done: 'notFound' } : { send: r };
    },
    duplicate: () => 'duplicate',
    ended(row) {
      counts.notFound += 1;
      receipt(resolutionOf(row.n).request);
    },
    async send(r, _row, signal) {
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
