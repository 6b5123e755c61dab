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
import { MIN_DIGITS, type NumberKey, NumberIndex, numberKey } from '../phone/compare.js';
import { emailKey, emailKeys, emailLook } from './email.js';

export interface StoredContact {
  id: string;
  /** The stored phone as text, for a person to read: its numbers joined by ` / ` when it holds several. */
  phone: string | undefined;
  /** Whether the service stored the phone as text (not a number, a list or an object): what `dupes --fix` may rewrite. */
  phoneIsText: boolean;
  /** Every stored number that reads as a valid E.164 one (what an import matches); `e164` is the first. */
  e164s: string[];
  e164: string | undefined;
  /** The stored numbers as their digits allow, valid or not, as one key of several readings (what finding a person compares). */
  number: NumberKey | undefined;
  /** The phone field holds something, and not all of it reads as a number (named, never passed over in silence). */
  unreadable: boolean;
  /** Every address the e-mail field holds, as compared. */
  emails: string[];
  /** For a person to recognise: "Ada Lovelace". Never written to a receipt. */
  name: string;
}

/** The fields of an object holding a phone that hold its number (the service's shape is not shown). */
const NUMBER_FIELDS = ['number', 'phone', 'phoneNumber', 'phone_number', 'value', 'e164', 'international', 'national', 'raw'];
/** How deep a phone's lists and objects are read (a number in a list of objects is two down). */
const PHONE_DEPTH = 3;

/**
 * The texts of a phone field in any shape the service returns it (docs/people.md): a string, a
 * JSON number, a list of them, an object with a number field (`{"number": …}`), lists of those.
 * `unread`: some part of it is none of these (an object without a number field, a fraction, true).
 */
export function phoneTexts(value: unknown): { texts: string[]; unread: boolean } {
  const texts: string[] = [];
  let unread = false;
  const visit = (v: unknown, depth: number) => {
    if (v === undefined || v === null) return;
    if (typeof v === 'string') {
      if (v.trim() !== '') texts.push(v.trim());
    } else if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) texts.push(String(v));
    else if (Array.isArray(v) && depth < PHONE_DEPTH) for (const x of v) visit(x, depth + 1);
    else if (v !== null && typeof v === 'object' && !Array.isArray(v) && depth < PHONE_DEPTH) {
      const o = v as Record<string, unknown>;
      const fields = NUMBER_FIELDS.filter((f) => typeof o[f] === 'string' || typeof o[f] === 'number');
      if (fields.length === 0) unread = true;
      for (const f of fields) visit(o[f], depth + 1);
    } else unread = true;
  };
  visit(value, 0);
  return { texts: [...new Set(texts)], unread };
}

const PLAIN = /^[+\d\s().\-/]*$/;
const digitsIn = (t: string) => t.replace(/\D/g, '').length;

/** Several numbers' keys as one: the first, every other reading beside it. */
function oneKey(keys: NumberKey[]): NumberKey | undefined {
  const [first, ...rest] = keys;
  if (first === undefined || rest.length === 0) return first;
  const readings = [first, ...rest].flatMap((k) => [k, ...k.others]).map((k) => ({ ...k, others: [] }));
  return { ...(readings[0] as NumberKey), others: readings.slice(1) };
}

/** The fields of a contact that identify a person, as the API returned it. */
export function storedContact(c: ListedContact, region: string | undefined): StoredContact | undefined {
  if (typeof c.id !== 'string' && typeof c.id !== 'number') return undefined;
  // Field types are not documented: a phone may come as a JSON number, a list, an object.
  const { texts, unread } = phoneTexts(c.phone);
  const e164s: string[] = [];
  for (const t of texts) {
    const r = toE164(t, region);
    if (r.ok && !e164s.includes(r.e164)) e164s.push(r.e164);
  }
  const emails = typeof c.email === 'string' && c.email.trim() !== '' ? emailKeys(c.email) : [];
  const name = [c.firstName, c.lastName].filter((x) => typeof x === 'string' && x !== '').join(' ');
  // Digits and what numbers are written with, six digits or more, is always a number: no parse.
  const unreadable = unread || texts.some((t) => !(PLAIN.test(t) && digitsIn(t) >= MIN_DIGITS) && numberKey(t, region) === undefined);
  // Read by its digits only when asked (finding a person): an import's preview needs only e164.
  let number: NumberKey | undefined | null = null;
  return {
    id: String(c.id),
    phone: texts.length === 0 ? undefined : texts.length === 1 ? texts[0] : texts.join(' / '),
    phoneIsText: typeof c.phone === 'string',
    e164s,
    e164: e164s[0],
    get number() {
      if (number === null) number = oneKey(texts.map((t) => numberKey(t, region)).filter((k): k is NumberKey => k !== undefined));
      return number;
    },
    unreadable,
    emails,
    name,
  };
}

/**
 * The one line naming the contacts with the number asked for and an extension on one side only —
 * a switchboard and one of its lines (docs/people.md): not taken for the person, named for a
 * person to check. `what`: what was not done with them.
 */
export function nearLine(ids: string[], what: string): string {
  const shown = ids.slice(0, 10).join(', ');
  const more = ids.length > 10 ? ` and ${ids.length - 10} more` : '';
  return `${ids.length === 1 ? `contact ${shown}${more} has` : `contacts ${shown}${more} have`} this number with an extension where the other has none (another line of the same switchboard?): ${what} (check, and use the id if it is this person)`;
}

/**
 * The one line naming the contacts whose phone cannot be read as a number (phoneTexts, or text with
 * too few digits): what cannot be read is not compared, and a person is told which contacts —
 * never passed over in silence.
 */
export function unreadableLine(ids: string[]): string | undefined {
  if (ids.length === 0) return undefined;
  const shown = ids.slice(0, 10).join(', ');
  return `${ids.length} contact${ids.length === 1 ? ' has a phone' : 's have phones'} callctl cannot read as a number, not compared: ${shown}${ids.length > 10 ? ` and ${ids.length - 10} more` : ''} (see callctl contacts get <id>)`;
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
  /** Contacts whose phone cannot be read as a number (unreadableLine). */
  readonly unreadable: string[] = [];

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
    if (c.unreadable) this.unreadable.push(c.id);
    for (const email of c.emails) {
      push(this.byEmail, email, c);
      const look = emailLook(email);
      if (look !== email) push(this.byLook, look, c);
    }
  }

  /** Every contact whose number `compareNumbers` calls this one (`same`). */
  phone(number: NumberKey): StoredContact[] {
    return this.byPhone.find(number);
  }

  /** The contacts with this number and an extension on one side only: not this person by right, named for a person to check. */
  near(number: NumberKey): StoredContact[] {
    return this.byPhone.match(number).near;
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
