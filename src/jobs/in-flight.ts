/**
 * What the rows of an import sent without a journaled answer stored (docs/people.md, "What undo
 * takes back"): a kill -9, a hang-up or a full disk with a POST on the wire, or a row that failed
 * after attempts that may have reached the service. Each row's intent, written before it was sent,
 * holds its E.164 phone and when it was first sent. One listing of the contacts finds those with
 * that phone (the service matches on it); the undo's plan then reads each for its creation time
 * against the service's clock (src/import/undo-notes.ts, storedByFirstSend): created by that send
 * — erased as the import's; older — it was there before, and what the send merged into it cannot
 * be given back; no creation time — uncertain, named, erased only with --include-uncertain.
 */
import { everyContact } from '../contacts/people.js';
import type { ApiClient } from '../http/client.js';
import type { InFlight } from '../import/effects.js';

/** The contacts holding each phone of the rows in flight: phone → contact ids. */
export async function inFlightContacts(client: ApiClient, rows: InFlight[], region: string | undefined): Promise<Map<string, string[]>> {
  const phones = new Set(rows.flatMap((r) => (r.p !== undefined ? [r.p] : [])));
  const found = new Map<string, string[]>();
  if (phones.size === 0) return found;
  for await (const { stored } of everyContact(client, region, { whole: true })) {
    for (const e164 of stored.e164s) if (phones.has(e164)) found.set(e164, [...(found.get(e164) ?? []), stored.id]);
  }
  return found;
}
