/**
 * The sandbox's state: contacts, calls and their recordings, in memory. Contacts are matched on
 * their international phone through an index (never a scan), and listed in creation order by
 * slicing an array, so 100k contacts stay as fast as ten.
 */
import { randomBytes } from 'node:crypto';

export { CONTACT_FIELDS, type ContactField } from '../api/fields.js';
import type { ContactField } from '../api/fields.js';

export interface Contact {
  id: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  phone?: string;
  address?: string;
  city?: string;
  state?: string;
  zipCode?: string;
  tags?: string[];
  status?: string;
  notes?: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * A call. The source that brought it (`google_ads`, `website`…) is in a field whose name the
 * sandbox is given (`--call-source-field`, default `channel`): the real service's name for it is
 * not shown, so callctl must assume none (docs/commands/sandbox.md).
 */
export interface Call {
  id: string;
  contactId: string;
  from: string;
  to: string;
  direction: 'inbound' | 'outbound';
  startedAt: string;
  durationSec: number;
  outcome: string | null;
  value: number | null;
  currency: string | null;
  recordingUrl: string | null;
  /** The source field, under its configured name. */
  [sourceField: string]: unknown;
}

/** The default name of a call's source field. */
export const SOURCE_FIELD = 'channel';

export type ContactInput = Partial<Record<ContactField, string | string[]>>;

/** The phone as the service matches it: `+` and digits, separators ignored; undefined for national format. */
export function matchKey(phone: string | undefined): string | undefined {
  if (phone === undefined) return undefined;
  const compact = phone.replace(/[\s.\-()]/g, '');
  return /^\+\d{4,15}$/.test(compact) ? compact : undefined;
}

export interface StoredState {
  contacts: Contact[];
  calls: Call[];
}

/**
 * Records in creation order: add, get and delete by id are O(1) and a page is a slice. An erasure
 * leaves a hole in the order that the next page compacts away, so erasing many contacts in a row
 * costs one pass, not one pass each.
 */
class Ordered<T extends { id: string }> {
  private readonly byId = new Map<string, T>();
  private order: T[] = [];
  private holes = 0;

  get size(): number {
    return this.byId.size;
  }

  get(id: string): T | undefined {
    return this.byId.get(id);
  }

  add(item: T): void {
    this.byId.set(item.id, item);
    this.order.push(item);
  }

  delete(id: string): void {
    if (this.byId.delete(id)) this.holes += 1;
  }

  page(page: number, limit: number): T[] {
    if (this.holes > 0) {
      this.order = this.order.filter((item) => this.byId.get(item.id) === item);
      this.holes = 0;
    }
    const start = (page - 1) * limit;
    return this.order.slice(start, start + limit);
  }

  /** Every record in creation order (a Map iterates in insertion order). */
  values(): IterableIterator<T> {
    return this.byId.values();
  }
}

export class Store {
  private readonly contacts = new Ordered<Contact>();
  private readonly byPhone = new Map<string, string>();
  private readonly calls = new Ordered<Call>();
  private readonly callsByContact = new Map<string, Set<string>>();
  // Ids are opaque: a random part per store (so ids made after a --data reload never collide with
  // saved ones) and a counter — cheaper than random bytes per request, which showed in profiles.
  private readonly idPrefix = randomBytes(4).toString('hex');
  private idCounter = 0;

  constructor(
    private readonly now: () => Date = () => new Date(),
    /** The name of a call's source field (docs/commands/sandbox.md, "Answers"). */
    readonly sourceField: string = SOURCE_FIELD,
  ) {}

  newId(prefix: string): string {
    this.idCounter += 1;
    return `${prefix}_${this.idPrefix}${this.idCounter.toString(36).padStart(4, '0')}`;
  }

  contactCount(): number {
    return this.contacts.size;
  }

  /** One page of contacts in creation order. */
  contactPage(page: number, limit: number): Contact[] {
    return this.contacts.page(page, limit);
  }

  allContacts(): Contact[] {
    return [...this.contacts.values()];
  }

  contact(id: string): Contact | undefined {
    return this.contacts.get(id);
  }

  /** The contact a phone in international format matches, if any. */
  matchPhone(phone: string | undefined): Contact | undefined {
    const key = matchKey(phone);
    const id = key ? this.byPhone.get(key) : undefined;
    return id ? this.contacts.get(id) : undefined;
  }

  createContact(input: ContactInput): Contact {
    const at = this.now().toISOString();
    const contact = { id: this.newId('ct'), ...input, createdAt: at, updatedAt: at } as Contact;
    this.addContact(contact);
    return contact;
  }

  private addContact(contact: Contact): void {
    this.contacts.add(contact);
    const key = matchKey(contact.phone);
    if (key && !this.byPhone.has(key)) this.byPhone.set(key, contact.id);
  }

  /** Changes only the given fields (PATCH, and the merge of a matched POST). */
  updateContact(contact: Contact, input: ContactInput): Contact {
    const oldKey = matchKey(contact.phone);
    Object.assign(contact, input, { updatedAt: this.now().toISOString() });
    const newKey = matchKey(contact.phone);
    if (oldKey !== newKey) {
      if (oldKey && this.byPhone.get(oldKey) === contact.id) this.byPhone.delete(oldKey);
      if (newKey && !this.byPhone.has(newKey)) this.byPhone.set(newKey, contact.id);
    }
    return contact;
  }

  /** Erasure: the contact, its calls and their recordings. */
  deleteContact(contact: Contact): void {
    this.contacts.delete(contact.id);
    const key = matchKey(contact.phone);
    if (key && this.byPhone.get(key) === contact.id) this.byPhone.delete(key);
    for (const callId of this.callsByContact.get(contact.id) ?? []) this.calls.delete(callId);
    this.callsByContact.delete(contact.id);
  }

  callCount(): number {
    return this.calls.size;
  }

  callPage(page: number, limit: number): Call[] {
    return this.calls.page(page, limit);
  }

  allCalls(): Call[] {
    return [...this.calls.values()];
  }

  call(id: string): Call | undefined {
    return this.calls.get(id);
  }

  addCall(call: Call): void {
    this.calls.add(call);
    let set = this.callsByContact.get(call.contactId);
    if (!set) this.callsByContact.set(call.contactId, (set = new Set()));
    set.add(call.id);
  }

  /**
   * Totals by outcome, source and currency (docs/api.md, Calls: with a value, revenue is per
   * channel); the source under the calls' own name for it.
   */
  outcomeTotals(): Array<Record<string, unknown> & { outcome: string; calls: number; value: number; currency: string | null }> {
    const field = this.sourceField;
    const rows = new Map<string, { outcome: string; source: unknown; calls: number; value: number; currency: string | null }>();
    for (const call of this.calls.values()) {
      if (call.outcome === null) continue;
      const source = call[field] ?? null;
      const k = `${call.outcome}\u0000${String(source)}\u0000${call.currency ?? ''}`;
      let row = rows.get(k);
      if (!row) rows.set(k, (row = { outcome: call.outcome, source, calls: 0, value: 0, currency: call.currency }));
      row.calls += 1;
      row.value += call.value ?? 0;
    }
    return [...rows.values()].map(({ outcome, source, calls, value, currency }) => ({ outcome, [field]: source, calls, value, currency }));
  }

  snapshot(): StoredState {
    return { contacts: this.allContacts(), calls: this.allCalls() };
  }

  /** Adds a saved state; a SyntaxError when it is not one (a file of something else). */
  load(state: StoredState): void {
    const list = (v: unknown) => v === undefined || (Array.isArray(v) && v.every((x) => typeof x?.id === 'string'));
    if (typeof state !== 'object' || state === null || !list(state.contacts) || !list(state.calls)) {
      throw new SyntaxError('expected {"contacts": [...], "calls": [...]} with an id on each');
    }
    for (const c of state.contacts ?? []) this.addContact(c);
    for (const call of state.calls ?? []) this.addCall(call);
  }
}

const CHANNELS = ['google_ads', 'website', 'referral', 'facebook_ads', 'direct'];
const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Radia', 'Tim'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Hamilton', 'Thompson', 'Perlman', 'Berners-Lee'];

/** Creates `n` calls and their contacts, the same every time (E.164 UK mobile numbers). */
export function seedStore(store: Store, n: number, origin: string): void {
  const field = store.sourceField;
  const base = Date.UTC(2026, 9, 1, 9, 0, 0);
  for (let i = 0; i < n; i++) {
    const phone = `+447400${String(100000 + i).padStart(6, '0')}`;
    const contact = store.createContact({ firstName: FIRST[i % FIRST.length] as string, lastName: LAST[(i * 3) % LAST.length] as string, phone, status: 'lead', tags: ['seed'] });
    const id = `call_${String(i + 1).padStart(5, '0')}`;
    store.addCall({
      id,
      contactId: contact.id,
      from: phone,
      to: '+442079460000',
      direction: i % 4 === 3 ? 'outbound' : 'inbound',
      [field]: CHANNELS[i % CHANNELS.length] as string,
      startedAt: new Date(base + i * 37 * 60_000).toISOString(),
      durationSec: 30 + ((i * 53) % 600),
      outcome: null,
      value: null,
      currency: null,
      recordingUrl: `${origin}/recordings/${id}.mp3`,
    });
  }
}
