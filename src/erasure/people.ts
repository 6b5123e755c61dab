/**
 * Who a person is among the contacts. The service matches contacts on the phone, but a POST with a
 * national-format phone creates a second contact instead of matching (docs/api.md, Contacts): one
 * person is often `+44 7911 123456` and `07911 123456`. So every stored phone is read as E.164 —
 * a national one with the region (`--country`, else the profile's `country`) — and compared in
 * that form; e-mails compare without case or surrounding spaces. The API shows no search: these
 * read every page of contacts, once.
 */
import { allItems } from '../http/paginate.js';
import type { ApiClient } from '../http/client.js';
import { toE164 } from '../phone/e164.js';

export interface StoredContact {
  id: string;
  phone: string | undefined;
  /** The stored phone as E.164, when it reads as one. */
  e164: string | undefined;
  email: string | undefined;
  /** For a person to recognise: "Ada Lovelace". Never written to a receipt. */
  name: string;
}

/** The fields of a contact that identify a person, as the API returned it. */
export function storedContact(raw: unknown, region: string | undefined): StoredContact | undefined {
  const c = (raw ?? {}) as Record<string, unknown>;
  if (typeof c.id !== 'string' && typeof c.id !== 'number') return undefined;
  const phone = typeof c.phone === 'string' && c.phone.trim() !== '' ? c.phone.trim() : undefined;
  const read = phone ? toE164(phone, region) : undefined;
  const email = typeof c.email === 'string' && c.email.trim() !== '' ? c.email.trim().toLowerCase() : undefined;
  const name = [c.firstName, c.lastName].filter((x) => typeof x === 'string' && x !== '').join(' ');
  return { id: String(c.id), phone, e164: read?.ok ? read.e164 : undefined, email, name };
}

/** A stored phone in national format: not `+`-prefixed, yet a number once read with the region. */
export function isNational(c: StoredContact): boolean {
  return c.phone !== undefined && c.e164 !== undefined && !c.phone.replace(/^[\s(]+/, '').startsWith('+');
}

/** Streams every contact, read as a StoredContact, page by page; the raw object rides along. */
export async function* everyContact(client: ApiClient, region: string | undefined): AsyncGenerator<{ stored: StoredContact; raw: unknown }> {
  for await (const page of allItems(client, '/contacts')) {
    for (const raw of page) {
      const stored = storedContact(raw, region);
      if (stored) yield { stored, raw };
    }
  }
}

/** One listing of all contacts, indexed by E.164 phone and by e-mail: for a whole file of requests. */
export class PeopleIndex {
  private readonly byPhone = new Map<string, StoredContact[]>();
  private readonly byEmail = new Map<string, StoredContact[]>();
  private readonly byId = new Map<string, StoredContact>();
  listed = 0;

  static async load(client: ApiClient, region: string | undefined): Promise<PeopleIndex> {
    const index = new PeopleIndex();
    for await (const { stored } of everyContact(client, region)) index.add(stored);
    return index;
  }

  add(c: StoredContact): void {
    this.listed += 1;
    this.byId.set(c.id, c);
    if (c.e164) push(this.byPhone, c.e164, c);
    if (c.email) push(this.byEmail, c.email, c);
  }

  phone(e164: string): StoredContact[] {
    return this.byPhone.get(e164) ?? [];
  }

  email(address: string): StoredContact[] {
    return this.byEmail.get(address.trim().toLowerCase()) ?? [];
  }

  id(id: string): StoredContact | undefined {
    return this.byId.get(id);
  }
}

function push(map: Map<string, StoredContact[]>, key: string, c: StoredContact): void {
  const list = map.get(key);
  if (list) list.push(c);
  else map.set(key, [c]);
}
