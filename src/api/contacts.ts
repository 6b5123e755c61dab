/** Typed calls for contacts (docs/api.md, Contacts). No printing: commands decide what a person sees. */
import { ApiError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { pathOf } from '../http/client.js';
import { allItems, type Envelope, pages, type PageQuery } from '../http/paginate.js';
import type { Column } from '../output/writers.js';
import { CONTACT_FIELDS, type ContactField } from './fields.js';
import { type Contact, CONTACT, ERASED, isRecord, type ListedContact, RECORDS_PAGE } from './shapes.js';

export type { Contact, ListedContact } from './shapes.js';

export type ContactFields = Partial<Record<Exclude<ContactField, 'tags'>, string>> & { tags?: string[] };

/** Table columns, and the CSV columns (the API's own names, so the CSV re-imports). */
export const CONTACT_TABLE: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'firstName', header: 'First' },
  { key: 'lastName', header: 'Last' },
  { key: 'phone', header: 'Phone' },
  { key: 'email', header: 'Email' },
  { key: 'city', header: 'City' },
  { key: 'status', header: 'Status' },
  { key: 'tags', header: 'Tags' },
];
export const CONTACT_CSV: Column[] = ['id', ...CONTACT_FIELDS].map((key) => ({ key, header: key }));

/**
 * A listing's CSV columns: the contact fields (so the file re-imports), then every other field the
 * contacts listed have, under its own name, as the service sent them (`createdAt`, a field of the
 * account's own): an export keeps what the service returned.
 */
export function contactCsvColumns(items: ListedContact[]): Column[] {
  const known = new Set(CONTACT_CSV.map((c) => c.key));
  const extra = new Set<string>();
  for (const item of items) for (const k of Object.keys(item)) if (!known.has(k)) extra.add(k);
  return [...CONTACT_CSV, ...[...extra].map((key) => ({ key, header: key }))];
}

/** GET /contacts: the pages asked for, as they arrive. */
export async function* listContacts(client: ApiClient, q: Omit<PageQuery, 'path' | 'shape'>): AsyncGenerator<ListedContact[]> {
  for await (const items of pages(client, { ...q, path: '/contacts', shape: RECORDS_PAGE })) yield items.filter(isRecord);
}

/** Every contact, page by page, in pages as large as the service takes (paginate.ts, allItems). */
export async function* allContacts(client: ApiClient, onPage?: (env: Envelope) => void): AsyncGenerator<ListedContact[]> {
  for await (const items of allItems(client, '/contacts', { shape: RECORDS_PAGE, ...(onPage ? { onPage } : {}) })) yield items.filter(isRecord);
}

export async function getContact(client: ApiClient, id: string): Promise<Contact> {
  return (await client.request<Contact>({ method: 'GET', path: pathOf`/contacts/${id}`, shape: CONTACT })).body;
}

/**
 * POST /contacts. With an E.164 phone the service matches, so a repeat after an ambiguous failure
 * cannot duplicate the contact and the request is retried. `beforeSend`: told as the POST goes on
 * the wire (the import's intent is written then). `date`: the answer's `Date` header —
 * the service's clock, against which a contact's creation time is read (src/import/undo-notes.ts).
 */
export async function createContact(client: ApiClient, fields: ContactFields, o: { signal?: AbortSignal; beforeSend?: () => void } = {}): Promise<{ status: number; contact: Contact; ambiguousBefore: boolean; date: string | undefined }> {
  const safeToRetry = typeof fields.phone === 'string' && fields.phone.startsWith('+');
  const res = await client.request<Contact>({ method: 'POST', path: '/contacts', body: fields, safeToRetry, shape: CONTACT, ...(o.signal ? { signal: o.signal } : {}), ...(o.beforeSend ? { beforeSend: o.beforeSend } : {}) });
  // ambiguousBefore: an earlier attempt may have stored it — a 200 may then match our own contact.
  const date = res.headers.date;
  return { status: res.status, contact: res.body, ambiguousBefore: res.ambiguousBefore, date: typeof date === 'string' ? date : undefined };
}

export async function updateContact(client: ApiClient, id: string, fields: ContactFields): Promise<Contact> {
  return (await client.request<Contact>({ method: 'PATCH', path: pathOf`/contacts/${id}`, body: fields, shape: CONTACT })).body;
}

/**
 * What a DELETE found: the contact erased — by this request, or by an earlier attempt of it whose
 * answer was lost (`earlierAttempt`) — or no contact to erase, with the 404 that said so.
 */
export type Erasure = { erased: true; earlierAttempt: boolean } | { erased: false; notFound: ApiError };

/**
 * DELETE — the erasure of the person and all their history (docs/api.md, Contacts). A DELETE
 * re-sent after an ambiguous failure meets 404 when the first attempt went through: that 404 is
 * the erasure done. Only a 404 on the first attempt says there was no such contact.
 */
export async function eraseContact(client: ApiClient, id: string, signal?: AbortSignal): Promise<Erasure> {
  try {
    await client.request({ method: 'DELETE', path: pathOf`/contacts/${id}`, shape: ERASED, ...(signal ? { signal } : {}) });
    return { erased: true, earlierAttempt: false };
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
    return err.attempts > 1 ? { erased: true, earlierAttempt: true } : { erased: false, notFound: err };
  }
}
