/**
 * How an undo reads the contacts it will touch (docs/commands/jobs.md, "How it reads, what it shows"), the cheaper way: one
 * GET a contact, or one listing of the account — through the one whole-list reader
 * (contacts/people.ts) — when that costs fewer requests. What a listing costs is known from the
 * account's size, the envelope's `total`, read with one request (`limit=1`); a service that gives
 * no total is read one GET a contact. A contact the listing did not show is read by its GET
 * (gone, or there since): the listing only spares requests, it never decides alone that a contact
 * is gone. The listing is a moment's picture: a change a person makes to a contact after it was
 * listed and before the undo reaches it is not seen, as one made just after a GET is not.
 */
import { everyContact } from '../contacts/people.js';
import type { ApiClient } from '../http/client.js';
import { DEFAULT_LIMIT, envelopeOf, LIST_PAGE } from '../http/paginate.js';

/** What the undo reads with, and what it costs in requests. */
export interface UndoReads {
  /** The contacts the listing showed, by id (undefined: one GET each). */
  listed: Map<string, Record<string, unknown>> | undefined;
  /** For the operator: how the contacts were read, or are to be. */
  how: string;
}

/**
 * The contacts `ids` from one listing when it costs fewer requests than a GET each (the probe
 * included, pages counted at the API's default size: a service that takes larger ones costs less).
 */
export async function readForUndo(client: ApiClient, ids: ReadonlySet<string>, o: { signal?: AbortSignal | undefined } = {}): Promise<UndoReads> {
  const each: UndoReads = { listed: undefined, how: `one read a contact (${ids.size.toLocaleString('en-US')} requests)` };
  if (ids.size < 3) return each;
  const probe = await client.request({ method: 'GET', path: '/contacts', query: { page: 1, limit: 1 }, shape: LIST_PAGE, ...(o.signal ? { signal: o.signal } : {}) });
  const total = envelopeOf(probe.body, 1).total;
  if (total === undefined) return { ...each, how: `${each.how}: the service does not say how many contacts it has, so a listing's cost is unknown` };
  const pages = Math.max(1, Math.ceil(total / DEFAULT_LIMIT));
  if (1 + pages >= ids.size) return { ...each, how: `${each.how}, fewer than listing the account's ${total.toLocaleString('en-US')} contacts` };
  const listed = new Map<string, Record<string, unknown>>();
  // A contact the listing missed (the account changing while it is read) is read by its GET.
  for await (const { stored, raw } of everyContact(client, undefined, { whole: true })) {
    if (ids.has(stored.id)) listed.set(stored.id, raw as Record<string, unknown>);
  }
  return { listed, how: `one listing of the account's ${total.toLocaleString('en-US')} contacts (at most ${pages.toLocaleString('en-US')} pages) rather than ${ids.size.toLocaleString('en-US')} reads` };
}
