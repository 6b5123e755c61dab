/**
 * Who a person is among the contacts. The service matches contacts on the phone, but a POST with a
 * national-format phone creates a second contact instead of matching (docs/api.md, Contacts): one
 * person is often `+44 7911 123456` and `07911 123456`. So every stored phone is compared by its
 * digits (src/phone/compare.ts) — a national one read with the region (`--country`, else the
 * profile's `country`), valid or not; e-mails compare without case or surrounding spaces; names
 * without case or accents. The API shows no search: these read every page of contacts, once.
 */
import { allContacts, type ListedContact } from '../api/contacts.js';
import { RuntimeError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { INCOMPLETE } from '../http/paginate.js';
import { toE164 } from '../phone/e164.js';
import { type NumberKey, NumberIndex, numberKey } from '../phone/compare.js';
import { emailKey, emailKeys, emailLook } from './email.js';

export interface StoredContact {
  id: string;
  phone: string | undefined;
  /** The stored phone as a valid E.164 number, when it reads as one (what an import matches). */
  e164: string | undefined;
  /** The stored phone as its digits allow, valid or not (what finding a person compares). */
  number: NumberKey | undefined;
  /** Every address the e-mail field holds, as compared. */
  emails: string[];
  /** For a person to recognise: "Ada Lovelace". Never written to a receipt. */
  name: string;
}

/** The fields of a contact that identify a person, as the API returned it. */
export function storedContact(c: ListedContact, region: string | undefined): StoredContact | undefined {
  if (typeof c.id !== 'string' && typeof c.id !== 'number') return undefined;
  // Field types are not documented: a phone the service returns as a JSON number is still a phone.
  const phone = typeof c.phone === 'string' && c.phone.trim() !== '' ? c.phone.trim() : typeof c.phone === 'number' && Number.isSafeInteger(c.phone) ? String(c.phone) : undefined;
  const read = phone ? toE164(phone, region) : undefined;
  const emails = typeof c.email === 'string' && c.email.trim() !== '' ? emailKeys(c.email) : [];
  const name = [c.firstName, c.lastName].filter((x) => typeof x === 'string' && x !== '').join(' ');
  // Read by its digits only when asked (finding a person): an import's preview needs only e164.
  let number: NumberKey | undefined | null = null;
  return {
    id: String(c.id),
    phone,
    e164: read?.ok ? read.e164 : undefined,
    get number() {
      if (number === null) number = phone ? numberKey(phone, region) : undefined;
      return number;
    },
    emails,
    name,
  };
}

/** A stored phone not in E.164 form (no leading `+`) that is a number: national format, valid or not. */
export function isNational(c: StoredContact): c is StoredContact & { phone: string; number: NumberKey } {
  return c.phone !== undefined && c.number !== undefined && !c.phone.replace(/^[\s(]+/, '').startsWith('+');
}

const collator = new Intl.Collator('und', { sensitivity: 'base', usage: 'search' });
const words = (text: string) => text.split(/[\s,;-]+/).filter((w) => w !== '');
/** How a name is written without its letters' marks where a language spells them out: `Müller` as `Mueller`, `Søren` as `Soeren`. */
const spelledOut = (word: string) =>
  word.normalize('NFC').toLowerCase().replace(/[äæ]/g, 'ae').replace(/[öøœ]/g, 'oe').replace(/ü/g, 'ue').replace(/ß/g, 'ss').replace(/å/g, 'aa');
const sameWord = (a: string, b: string) => collator.compare(a, b) === 0 || collator.compare(spelledOut(a), spelledOut(b)) === 0;

/**
 * A test of a contact's first and last name against a name as a person gives it: every word given
 * is one of the name's words, ignoring case and accents ("zoe muller" finds "Zoë Müller", and
 * "Müller, Zoë"), or spelt out as German and Nordic writers do without them ("zoe mueller"). Undefined when the text holds no word.
 */
export function nameMatcher(text: string): ((c: ListedContact) => boolean) | undefined {
  const wanted = words(text);
  if (wanted.length === 0) return undefined;
  return (c) => {
    const have = words([c.firstName, c.lastName].filter((x) => typeof x === 'string').join(' '));
    return wanted.every((w) => {
      const at = have.findIndex((h) => sameWord(h, w));
      if (at < 0) return false;
      have.splice(at, 1);
      return true;
    });
  };
}

/** Most readings of the contacts when they change while they are read (a person looked for). */
export const LISTINGS = 3;

/**
 * Streams every contact, read as a StoredContact, page by page; the raw object rides along.
 *
 * `whole` (finding a person): pages are counted by position, so a contact erased by someone else
 * while the pages are read moves every later one a place up, and the first of the next page is
 * never seen. When the envelope's total moves during a reading, the contacts are read again (up to
 * LISTINGS times in all) and those not yet seen are yielded, each id once; `changed` is told when
 * they never held still. A reading whose pages end before the total it counts (`incomplete_list`,
 * src/http/paginate.ts) is taken for the same: read again, and after LISTINGS readings the error
 * stands — a list that cannot be shown complete is never taken for the whole. A change that leaves
 * the total as it was (one erased, one created) is not seen; a service that gives no total is read once.
 */
export async function* everyContact(
  client: ApiClient,
  region: string | undefined,
  o: { whole?: boolean; changed?: (readings: number) => void } = {},
): AsyncGenerator<{ stored: StoredContact; raw: ListedContact }> {
  const seen = o.whole ? new Set<string>() : undefined;
  for (let reading = 1; ; reading++) {
    const totals = new Set<number>();
    try {
      for await (const page of allContacts(client, seen ? (env) => env.total !== undefined && totals.add(env.total) : undefined)) {
        for (const raw of page) {
          const stored = storedContact(raw, region);
          if (!stored || seen?.has(stored.id)) continue;
          seen?.add(stored.id);
          yield { stored, raw };
        }
      }
    } catch (err) {
      if (seen === undefined || reading >= LISTINGS || !(err instanceof RuntimeError) || err.code !== INCOMPLETE) throw err;
      continue;
    }
    if (seen === undefined || totals.size <= 1) return;
    if (reading >= LISTINGS) {
      o.changed?.(reading);
      return;
    }
  }
}

/** What a person is told when the contacts never held still while they were read. */
export const changedWhileRead = (readings: number) =>
  `the contacts changed while they were read (${readings} readings): a contact may have been missed (run it again when no one else is changing them)`;

/** One listing of all contacts, indexed by number and by e-mail: for a whole file of requests. */
export class PeopleIndex {
  private readonly byPhone = new NumberIndex<StoredContact>();
  private readonly byEmail = new Map<string, StoredContact[]>();
  /** By how the address looks (emailLook), only for addresses written with other scripts' letters. */
  private readonly byLook = new Map<string, StoredContact[]>();
  private readonly byId = new Map<string, StoredContact>();
  listed = 0;
  /** The contacts never held still while read: a contact may be missing, so finding no one proves nothing. */
  unsettled = false;

  static async load(client: ApiClient, region: string | undefined, warn: (line: string) => void): Promise<PeopleIndex> {
    const index = new PeopleIndex();
    const changed = (n: number) => {
      index.unsettled = true;
      warn(changedWhileRead(n));
    };
    for await (const { stored } of everyContact(client, region, { whole: true, changed })) index.add(stored);
    return index;
  }

  add(c: StoredContact): void {
    this.listed += 1;
    this.byId.set(c.id, c);
    if (c.number) this.byPhone.add(c.number, c);
    for (const email of c.emails) {
      push(this.byEmail, email, c);
      const look = emailLook(email);
      if (look !== email) push(this.byLook, look, c);
    }
  }

  /** Every contact whose number `sameNumber` calls this one. */
  phone(number: NumberKey): StoredContact[] {
    return this.byPhone.find(number);
  }

  email(address: string): StoredContact[] {
    return this.byEmail.get(emailKey(address)) ?? [];
  }

  /** Contacts whose address looks like this one but is written with other letters (not this person's by right). */
  lookalikes(address: string): StoredContact[] {
    const key = emailKey(address);
    const look = emailLook(key);
    return [...(this.byLook.get(look) ?? []), ...(look !== key ? (this.byEmail.get(look) ?? []) : [])].filter((c) => !c.emails.includes(key));
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
