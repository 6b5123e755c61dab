/**
 * Numbers compared by their digits — how a person is found among stored contacts (docs/cli.md,
 * "How numbers are compared"). Validation is for what callctl creates; finding what exists must not
 * depend on libphonenumber's metadata calling a number valid (new ranges, numbers valid when they
 * were entered, Ofcom's drama range, a typo that still identifies a person). So a number is read
 * as far as its digits allow:
 *
 * - with a country code (typed `+…` or `00…`, or a national number read with a region): the
 *   E.164-like form `+` country code + national significant number, trunk prefix dropped — valid
 *   or not;
 * - without one (a national number and no region): its national digits, which equal another
 *   number's when they read as that number's national significant number in its country (the
 *   country's own trunk prefix rule: `07700 900123` in +44, `(286) 555-0123` or `1 286 555 0123`
 *   in +1, `447700900123` with the `+` lost), or, between two such, without leading zeros.
 *
 * `sameNumber` is the one comparison; `NumberIndex` finds the same matches without a scan.
 */
import { type CountryCode, parsePhoneNumberWithError } from 'libphonenumber-js/max';
import { preparePhone } from './e164.js';

/** Fewer digits than this identify no one: such a text is refused as a search. */
export const MIN_DIGITS = 6;

export interface NumberKey {
  /** `+` country code + national significant number, valid or not; undefined without a country code. */
  e164: string | undefined;
  /** The country calling code, when known. */
  cc: string | undefined;
  /** With a country code, the national significant number; without, the digits as written. */
  national: string;
  /** True when libphonenumber's metadata calls the number valid. */
  valid: boolean;
  /** The text read (Excel's wrapping and an extension taken off), to read it in another country. */
  text: string;
}

/** How many digits a text holds. */
export function digitCount(text: string): number {
  return text.replace(/\D/g, '').length;
}

/**
 * A number as its digits allow, or undefined when the text holds fewer than six digits (or
 * Excel rounded it). `region`: the country a number written without a country code is read in.
 */
export function numberKey(input: string, region?: string): NumberKey | undefined {
  const prepared = preparePhone(input, region);
  if ('lost' in prepared) return undefined;
  const { text } = prepared;
  const digits = text.replace(/\D/g, '');
  if (digits.length < MIN_DIGITS) return undefined;
  const international = text.replace(/^[\s(]+/, '').startsWith('+');
  if (!international && !region) return { e164: undefined, cc: undefined, national: digits, valid: false, text };
  try {
    const n = parsePhoneNumberWithError(text, region ? { defaultCountry: region.toUpperCase() as CountryCode } : undefined);
    return { e164: `+${n.countryCallingCode}${n.nationalNumber}`, cc: n.countryCallingCode, national: n.nationalNumber, valid: n.isValid(), text };
  } catch {
    // A country code libphonenumber does not know (+999…), or text it cannot read: the digits stand.
    return international ? { e164: `+${digits}`, cc: undefined, national: digits, valid: false, text } : { e164: undefined, cc: undefined, national: digits, valid: false, text };
  }
}

const CACHE_LIMIT = 20_000;
const inCountry = new Map<string, string | undefined>();

/** A number without a country code read as a national number of country code `cc`. */
export function nationalIn(key: NumberKey, cc: string): string | undefined {
  const k = `${cc}|${key.text}`;
  if (inCountry.has(k)) return inCountry.get(k);
  let national: string | undefined;
  try {
    national = parsePhoneNumberWithError(key.text, { defaultCallingCode: cc }).nationalNumber;
  } catch {
    national = undefined;
  }
  if (inCountry.size >= CACHE_LIMIT) inCountry.clear();
  inCountry.set(k, national);
  return national;
}

const trunkless = (digits: string) => digits.replace(/^0+/, '');

/** The one comparison: are these the same number, as far as their digits tell? */
export function sameNumber(a: NumberKey, b: NumberKey): boolean {
  if (a.e164 !== undefined && b.e164 !== undefined) return a.e164 === b.e164;
  if (a.e164 !== undefined) return a.cc !== undefined && nationalIn(b, a.cc) === a.national;
  if (b.e164 !== undefined) return b.cc !== undefined && nationalIn(a, b.cc) === b.national;
  return trunkless(a.national) === trunkless(b.national);
}

/**
 * Items by number, for many look-ups over one listing. `find` returns exactly the items whose
 * number `sameNumber` calls equal: the maps only narrow down the candidates.
 */
export class NumberIndex<T> {
  private readonly byE164 = new Map<string, Array<{ key: NumberKey; item: T }>>();
  private readonly byTrunkless = new Map<string, Array<{ key: NumberKey; item: T }>>();
  /** Country codes of the numbers that have one: a number without one is read in each. */
  private readonly codes = new Set<string>();
  /** Per country code, the numbers without one read as its national numbers (built on first use). */
  private readonly inCode = new Map<string, Map<string, Array<{ key: NumberKey; item: T }>>>();

  add(key: NumberKey, item: T): void {
    const entry = { key, item };
    if (key.e164 !== undefined) {
      push(this.byE164, key.e164, entry);
      if (key.cc !== undefined) this.codes.add(key.cc);
    } else {
      push(this.byTrunkless, trunkless(key.national), entry);
      this.inCode.clear();
    }
  }

  find(key: NumberKey): T[] {
    const candidates: Array<{ key: NumberKey; item: T }> = [];
    if (key.e164 !== undefined) {
      candidates.push(...(this.byE164.get(key.e164) ?? []));
      if (key.cc !== undefined) candidates.push(...(this.nationalsIn(key.cc).get(key.national) ?? []));
    } else {
      for (const cc of this.codes) {
        const national = nationalIn(key, cc);
        if (national !== undefined) candidates.push(...(this.byE164.get(`+${cc}${national}`) ?? []));
      }
      candidates.push(...(this.byTrunkless.get(trunkless(key.national)) ?? []));
    }
    const out: T[] = [];
    for (const c of candidates) if (sameNumber(key, c.key) && !out.includes(c.item)) out.push(c.item);
    return out;
  }

  private nationalsIn(cc: string): Map<string, Array<{ key: NumberKey; item: T }>> {
    let map = this.inCode.get(cc);
    if (map === undefined) {
      map = new Map();
      for (const list of this.byTrunkless.values()) {
        for (const entry of list) {
          const national = nationalIn(entry.key, cc);
          if (national !== undefined) push(map, national, entry);
        }
      }
      this.inCode.set(cc, map);
    }
    return map;
  }
}

function push<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
