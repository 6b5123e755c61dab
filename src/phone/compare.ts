/**
 * Numbers compared by their digits — how a person is found among stored contacts (docs/people.md,
 * "How numbers are compared"): at least as libphonenumber's isNumberMatch, whose public test pairs
 * are the project's table test (test/erasure/number-match.test.ts). Validation is for what callctl creates; finding what exists must not
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
 * A text can be read more than one way, and every reading is compared (a miss is a breach):
 * - a national number that cannot be one of its region's (too long or too short for it: `0044 …` or
 *   `1 286 555 0123` read in the US or GB) is also read as if no region were set;
 * - a text holding several numbers (`+44 7700 900123 / 020 7946 0958`) is each of them;
 * - a `tel:` URI by its parts (its sub-address is no part of the number), a vanity number by the
 *   digits its letters dial, and a text libphonenumber cannot parse by its digits as written.
 * An extension is read as libphonenumber-js reads it (every label it knows: e164.ts). Two numbers
 * with different extensions are different lines (a switchboard's people); an extension on one
 * side only is `near`: named for a person, never taken for the person. Dialling prefixes that
 * reach the same line are taken off before comparing (SAME_LINE): Mexico's old mobile
 * `1`/`044`/`045`/`01`, Argentina's mobile `9`.
 *
 * `compareNumbers` is the one comparison; `NumberIndex` finds the same matches without a scan.
 */
import { type CountryCode, parseIncompletePhoneNumber, parsePhoneNumberWithError } from 'libphonenumber-js/max';
import { preparePhone, splitExtension } from './e164.js';

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
  /** The extension typed after the number: numbers with different ones are different lines. */
  ext: string | undefined;
  /**
   * How the text was read when it was not as a plain number: `letters` — its letters read as the
   * digits they dial (`1-800-FLOWERS`); `digits` — libphonenumber could not parse it, so it is its
   * digits as written, equal only to the same digits.
   */
  read?: 'letters' | 'digits';
  /** `national` with the dialling prefixes that reach the same line taken off (SAME_LINE): what is compared. */
  line: string;
  /** The other readings of the same text (see above): each compared as this one is. */
  others: NumberKey[];
}

/**
 * Prefixes some countries' dialling habits put before a national number that reach the same line:
 * Mexico dropped its mobile `1` (after +52) and `044`/`045`, and its long-distance `01`, in 2019;
 * Argentina's mobiles take a `9` after +54 when dialled from abroad, and are written without it
 * at home. Each applies only before a whole national number (ten digits in both).
 */
const SAME_LINE: Record<string, (national: string) => string> = {
  '52': (n) => n.replace(/^(?:1|0?4[45]|01)(?=\d{10}$)/, ''),
  '54': (n) => n.replace(/^9(?=\d{10}$)/, ''),
};

const lineOf = (cc: string | undefined, national: string) => (cc !== undefined ? (SAME_LINE[cc]?.(national) ?? national) : national);

/**
 * Digits of other scripts (full-width, Arabic-Indic…) and a full-width `+` as ASCII. The invisible
 * format characters a copied number carries are dropped where every reading starts (preparePhone).
 */
function asciiDigits(text: string): string {
  if (!/[^\x00-\x7f]/.test(text)) return text;
  return text.normalize('NFKC').replace(/\p{Nd}/gu, (d) => (d >= '0' && d <= '9' ? d : parseIncompletePhoneNumber(d)));
}

/** How many digits a text holds (of any script). */
export function digitCount(text: string): number {
  return asciiDigits(text).replace(/\D/g, '').length;
}

/** What separates the numbers of a text that holds several. */
const SEVERAL = /\s*[/,;|]\s*|\s+(?:or|and)\s+/i;

/**
 * The numbers of a text, each with the extension typed after it: an extension's label (`,`, `;`)
 * separates no numbers, so only what comes before it is split, and the extension goes with the
 * last; a `tel:` URI is one number.
 */
function partsOf(text: string): Array<{ text: string; ext?: string }> {
  if (/^\s*tel:/i.test(text)) return [{ text }];
  const { main, ext } = splitExtension(text);
  const parts = main.split(SEVERAL).filter((p) => digitCount(p) >= MIN_DIGITS);
  if (parts.length < 2) return [{ text }];
  return parts.map((p, i) => (i === parts.length - 1 && ext !== undefined ? { text: p, ext } : { text: p }));
}

/** Whether a text holds several numbers (`07700 900123 / 020 7946 0958`): no one of them is the whole field. */
export function severalNumbers(text: string): boolean {
  return partsOf(asciiDigits(text)).length > 1;
}

/**
 * Whether a text is written as a phone number (or several): only what numbers are written with
 * once Excel's wrapping, a `tel:` URI's form and an extension are taken off, and at least six digits.
 */
export function writtenAsNumber(text: string): boolean {
  const ascii = asciiDigits(text.trim());
  if (digitCount(ascii) < MIN_DIGITS) return false;
  return ascii.split(SEVERAL).every((part) => {
    const prepared = preparePhone(part, undefined);
    return 'lost' in prepared || /^[+\d\s()./-]*$/.test(prepared.text);
  });
}

/** Every reading of a key: itself and its others. */
const readingsOf = (key: NumberKey): NumberKey[] => (key.others.length === 0 ? [key] : [key, ...key.others]);

/**
 * A number as its digits allow, or undefined when the text holds fewer than six digits (or
 * Excel rounded it). `region`: the country a number written without a country code is read in.
 */
export function numberKey(input: string, region?: string): NumberKey | undefined {
  const text = asciiDigits(input);
  const whole = readOne(text, region);
  const parts = partsOf(text);
  if (parts.length < 2) return whole;
  // Several numbers: each is a reading, the first shown; the whole text stays one too (`033203/123456`).
  const keys = [...parts.map((p) => readOne(p.text, region, p.ext)), whole].filter((k): k is NumberKey => k !== undefined);
  const [first, ...rest] = keys.flatMap(readingsOf).map((k) => ({ ...k, others: [] }));
  return first === undefined ? undefined : { ...first, others: rest };
}

/** The digits a phone's keypad gives each letter (ITU E.161). */
const KEYPAD: Record<string, string> = Object.fromEntries(
  ['abc', 'def', 'ghi', 'jkl', 'mno', 'pqrs', 'tuv', 'wxyz'].flatMap((letters, i) => [...letters].map((l) => [l, String(i + 2)])),
);
/** Words that label an extension (libphonenumber's, in Latin letters): not a vanity number's letters. */
const EXTENSION_WORD = /^(?:e?xtn?|extension|extensi[oó]n?|anexo|int|x)$/i;

/**
 * A vanity number (`1-800-FLOWERS`, `+1800 siX-Flags`) as the digits its letters dial — where its
 * digits alone are too few to be anyone's number and its letters (after the first digit or `+`,
 * extension labels aside) are three or more, as libphonenumber reads letters. Undefined otherwise:
 * a word beside a whole number (`07700 900123 mobile`) is no part of it.
 */
function dialled(text: string): string | undefined {
  if (!/[a-z]/i.test(text) || digitCount(text) >= MIN_DIGITS) return undefined;
  const start = text.search(/[+\d]/);
  if (start < 0) return undefined;
  const body = text.slice(start);
  const words = body.match(/[a-z]+/gi) ?? [];
  if (words.filter((w) => !EXTENSION_WORD.test(w)).join('').length < 3) return undefined;
  return body.replace(/[a-z]+/gi, (w) => (EXTENSION_WORD.test(w) ? w : [...w.toLowerCase()].map((l) => KEYPAD[l] ?? '').join('')));
}

/**
 * One number's reading, with the no-region one beside it when the region cannot hold it. `ext`:
 * the extension typed after a text of several numbers, for its last one.
 */
function readOne(input: string, region: string | undefined, extAfter?: string): NumberKey | undefined {
  const vanity = dialled(input);
  const prepared = preparePhone(vanity ?? input, region);
  if ('lost' in prepared) return undefined;
  const { text } = prepared;
  const ext = prepared.ext ?? extAfter;
  const digits = text.replace(/\D/g, '');
  if (digits.length < MIN_DIGITS) return undefined;
  const international = text.replace(/^[\s(]+/, '').startsWith('+');
  const how = vanity !== undefined ? { read: 'letters' as const } : {};
  const plain = (e164: string | undefined, unparsed: boolean): NumberKey => ({ e164, cc: undefined, national: digits, valid: false, text, ext, line: digits, others: [], ...(unparsed ? { read: 'digits' as const } : how) });
  if (!international && !region) return plain(undefined, false);
  try {
    const n = parsePhoneNumberWithError(text, region ? { defaultCountry: region.toUpperCase() as CountryCode } : undefined);
    const cc = n.countryCallingCode;
    const key: NumberKey = { e164: `+${cc}${n.nationalNumber}`, cc, national: n.nationalNumber, valid: n.isValid(), text, ext, line: lineOf(cc, n.nationalNumber), others: [], ...how };
    if (international || n.isPossible()) return key;
    // No number of the region has this length: it was written some other way (`0044 …` in the US,
    // `1 286 555 0123` in GB). Read as without a region too; a country code found that way leads.
    const other = readOne(input, undefined, extAfter);
    if (other === undefined) return key;
    return other.e164 !== undefined ? { ...other, others: [key] } : { ...key, others: [other] };
  } catch {
    // A country code libphonenumber does not know (+999…), or text it cannot read: the digits as
    // written stand, equal only to the same digits.
    return plain(international ? `+${digits}` : undefined, true);
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

/** The form two readings with a country code are compared by: `+`, country code, line. */
const lineKey = (key: NumberKey) => (key.cc !== undefined ? `+${key.cc}${key.line}` : key.e164);

/**
 * One reading against another: `same` — the same number, and the same extension or none on either;
 * `near` — the same number with an extension on one side only (a switchboard and one of its
 * lines: libphonenumber's SHORT_NSN_MATCH), not taken for the person; undefined — another number,
 * or another extension (libphonenumber's NO_MATCH).
 */
function compareReading(a: NumberKey, b: NumberKey): 'same' | 'near' | undefined {
  if (a.ext !== undefined && b.ext !== undefined && a.ext !== b.ext) return undefined;
  const digits =
    a.e164 !== undefined && b.e164 !== undefined
      ? lineKey(a) === lineKey(b)
      : a.e164 !== undefined
        ? a.cc !== undefined && lineIn(b, a.cc) === a.line
        : b.e164 !== undefined
          ? b.cc !== undefined && lineIn(a, b.cc) === b.line
          : trunkless(a.national) === trunkless(b.national);
  if (!digits) return undefined;
  return (a.ext === undefined) === (b.ext === undefined) ? 'same' : 'near';
}

/** A number without a country code read as a line of country code `cc`. */
function lineIn(key: NumberKey, cc: string): string | undefined {
  const national = nationalIn(key, cc);
  return national === undefined ? undefined : lineOf(cc, national);
}

/**
 * The one comparison (docs/people.md, "How numbers are compared"): `same` when any reading of one
 * is the same number as any reading of the other, extensions alike; else `near` when one is with
 * an extension on one side only; else undefined.
 */
export function compareNumbers(a: NumberKey, b: NumberKey): 'same' | 'near' | undefined {
  if (a.others.length === 0 && b.others.length === 0) return compareReading(a, b);
  let near = false;
  for (const x of readingsOf(a)) {
    for (const y of readingsOf(b)) {
      const c = compareReading(x, y);
      if (c === 'same') return 'same';
      if (c === 'near') near = true;
    }
  }
  return near ? 'near' : undefined;
}

/** Are these the same number, as far as their digits tell (compareNumbers says `same`)? */
export function sameNumber(a: NumberKey, b: NumberKey): boolean {
  return compareNumbers(a, b) === 'same';
}

/**
 * Items by number, for many look-ups over one listing. `match` returns exactly the items whose
 * number `compareNumbers` calls the same, and those it calls near: the maps (by each reading)
 * only narrow down the candidates (an extension is no part of their keys).
 */
export class NumberIndex<T> {
  private readonly byLine = new Map<string, Entry<T>[]>();
  private readonly byTrunkless = new Map<string, Entry<T>[]>();
  /** Country codes of the readings that have one: a reading without one is read in each. */
  private readonly codes = new Set<string>();
  /** Per country code, the readings without one read as its lines (built on first use). */
  private readonly inCode = new Map<string, Map<string, Entry<T>[]>>();

  add(key: NumberKey, item: T): void {
    for (const reading of readingsOf(key)) {
      const entry = { key, reading, item };
      const line = lineKey(reading);
      if (line !== undefined) {
        push(this.byLine, line, entry);
        if (reading.cc !== undefined) this.codes.add(reading.cc);
      } else {
        push(this.byTrunkless, trunkless(reading.national), entry);
        this.inCode.clear();
      }
    }
  }

  /** The items with this number (`same`), and those with it and an extension on one side only (`near`). */
  match(key: NumberKey): { same: T[]; near: T[] } {
    const candidates: Entry<T>[] = [];
    for (const reading of readingsOf(key)) {
      const line = lineKey(reading);
      if (line !== undefined) {
        candidates.push(...(this.byLine.get(line) ?? []));
        if (reading.cc !== undefined) candidates.push(...(this.linesIn(reading.cc).get(reading.line) ?? []));
      } else {
        for (const cc of this.codes) {
          const other = lineIn(reading, cc);
          if (other !== undefined) candidates.push(...(this.byLine.get(`+${cc}${other}`) ?? []));
        }
        candidates.push(...(this.byTrunkless.get(trunkless(reading.national)) ?? []));
      }
    }
    const same: T[] = [];
    const near: T[] = [];
    for (const c of candidates) {
      if (same.includes(c.item)) continue;
      const how = compareNumbers(key, c.key);
      if (how === 'same') same.push(c.item);
      else if (how === 'near' && !near.includes(c.item)) near.push(c.item);
    }
    return { same, near: near.filter((item) => !same.includes(item)) };
  }

  /** The items with this number (compareNumbers: `same`). */
  find(key: NumberKey): T[] {
    return this.match(key).same;
  }

  private linesIn(cc: string): Map<string, Entry<T>[]> {
    let map = this.inCode.get(cc);
    if (map === undefined) {
      map = new Map();
      for (const list of this.byTrunkless.values()) {
        for (const entry of list) {
          const line = lineIn(entry.reading, cc);
          if (line !== undefined) push(map, line, entry);
        }
      }
      this.inCode.set(cc, map);
    }
    return map;
  }
}

type Entry<T> = { key: NumberKey; reading: NumberKey; item: T };

function push<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
