/**
 * Phone numbers to E.164 — the form the service matches contacts on (docs/api.md, "Contacts";
 * docs/commands/import.md, "Checking each row"), and so what makes a repeated POST safe. libphonenumber-js/max validates the digit patterns, not
 * only the length. Parsing costs tens of microseconds, so results are cached: lead lists repeat
 * numbers, and a re-run or dry run meets the same ones again.
 */
import { UsageError } from '../errors.js';
import { parsePhoneNumberWithError, type CountryCode, isSupportedCountry } from 'libphonenumber-js/max';

/**
 * `ext` is the extension typed after the number (`ext. 12`, `x12`, `#12`): the API has no field for it.
 * A refusal says why when a region could change it: `invalidFor` the region it is no valid number
 * of, `national` a national number read without a region.
 */
export type PhoneResult = { ok: true; e164: string; ext?: string } | { ok: false; reason: string; invalidFor?: string; national?: true };

/** What a reader of the reason should do when a spreadsheet has eaten digits. */
export const EXCEL_ROUNDED = 'Excel rounded this number: re-export the column as text';

/** Excel's scientific notation of a long number: `4.47911123458E+11`, `4,47911123458E+11`. */
const SCIENTIFIC = /^\+?(\d)(?:[.,](\d+))?E\+?(\d{1,2})$/i;

/**
 * The digits of a number Excel wrote in scientific notation, when every one of them survived:
 * the mantissa then carries exactly as many decimals as the exponent. Fewer decimals mean Excel
 * kept only the first ones (it shows 6 significant digits in General format), so the rest are
 * gone; a trailing zero is indistinguishable from a lost digit, so that is refused too.
 */
export function expandScientific(text: string): { digits: string } | { lost: true } | undefined {
  const m = SCIENTIFIC.exec(text.replace(/\s+/g, ''));
  if (!m) return undefined;
  const decimals = m[2] ?? '';
  const exponent = Number(m[3]);
  if (decimals.length !== exponent) return { lost: true };
  return { digits: `${m[1]}${decimals}` };
}

const CACHE_LIMIT = 10_000;
const cache = new Map<string, PhoneResult>();

/**
 * The region for national-format phones: the flag's, else the profile's — checked, upper-cased.
 * One message for a bad one, wherever a region is given.
 */
export function regionOf(given: string | undefined, profile: string | undefined, flag = '--country'): string | undefined {
  const region = given ?? profile;
  if (region === undefined) return undefined;
  if (!isRegion(region)) throw new UsageError(`${given !== undefined ? flag : 'the profile\'s country'} ${region} is not a region code`, 'use ISO 3166 alpha-2, e.g. GB or US');
  return region.toUpperCase();
}

/** True for an ISO 3166 alpha-2 region libphonenumber knows (case-insensitive). */
export function isRegion(code: string): boolean {
  return /^[A-Za-z]{2}$/.test(code) && isSupportedCountry(code.toUpperCase() as CountryCode);
}

/**
 * Normalises one phone as typed by a person or an export: `+44 20 7946 0958`, `0044 …`,
 * `(020) 7946 0958` with region GB, `+44 (0) 20 …`. Without a region only international input
 * can be read — a national number is then refused, never guessed.
 */
export function toE164(input: string, region?: string): PhoneResult {
  const key = `${region ?? ''}|${input}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const result = parse(input, region);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, result);
  return result;
}

/**
 * A result as one string, to cross to and from a worker thread cheaply (phone-worker.ts): the E.164
 * number (`+…`, digits only), `;` and the extension if there is one, or `!` and the reason.
 */
export function encodePhoneResult(r: PhoneResult): string {
  if (!r.ok) return r.invalidFor !== undefined ? `?${r.invalidFor}${r.reason}` : r.national ? `~${r.reason}` : `!${r.reason}`;
  return r.ext !== undefined ? `${r.e164};${r.ext}` : r.e164;
}

/** The result `encodePhoneResult` wrote, as `toE164` returns it. */
export function decodePhoneResult(s: string): PhoneResult {
  const first = s.charCodeAt(0);
  if (first === 33 /* ! */) return { ok: false, reason: s.slice(1) };
  if (first === 63 /* ? */) return { ok: false, reason: s.slice(3), invalidFor: s.slice(1, 3) };
  if (first === 126 /* ~ */) return { ok: false, reason: s.slice(1), national: true };
  const at = s.indexOf(';');
  return at === -1 ? { ok: true, e164: s } : { ok: true, e164: s.slice(0, at), ext: s.slice(at + 1) };
}

/**
 * `toE164` without its cache: for the dry run's worker thread, which meets each number once (a
 * repeat is a duplicate) and whose heap a cache of ten thousand results only churns.
 */
export function toE164Uncached(input: string, region?: string): PhoneResult {
  return parse(input, region);
}

/** The text a number is read from, the extension typed after it, and whether it came from a `tel:` URI. */
export type PreparedPhone = { text: string; ext?: string; uri?: true } | { lost: true };

/** Characters a number without an extension is written with: a text of only these has none (no parse needed). */
const PLAIN_NUMBER = /^[+\d\s().\-/]*$/;

/**
 * The extension at the end of a number, read as libphonenumber-js reads it — every label it knows
 * (`ext`, `extn`, `extension`, `x`, `#`, `~`, `int`, `anexo`, `доб`, `,,`, `,`, `;`, their full-width
 * forms, and `- 503#`). Its reading of an extension does not depend on the country, so the text is
 * given a country calling code it does not use (the number itself is read elsewhere); `main` is the
 * text before the extension's label.
 */
export function splitExtension(text: string): { main: string; ext?: string } {
  if (PLAIN_NUMBER.test(text) || text.length > 250) return { main: text };
  let ext: string | undefined;
  try {
    ext = parsePhoneNumberWithError(text.replace(/^[^+\d]*\+/, ''), { defaultCallingCode: '1' }).ext;
  } catch {
    ext = undefined;
  }
  if (ext === undefined || !/^\d+$/.test(ext)) return { main: text };
  // The extension's digits are the text's last ones (only a `#` and what is not a digit may follow),
  // and its label holds no digit: the number ends at the last digit before them.
  const end = text.replace(/[^\d#]+$/, '').replace(/#$/, '');
  if (!end.endsWith(ext)) return { main: text };
  return { main: end.slice(0, -ext.length).replace(/\D+$/, ''), ext };
}

/**
 * A `tel:` URI (RFC 3966) as a number to read: `tel:+64-3-331-6005;ext=1235`, `tel:331-6005;
 * phone-context=+64-3` (the context is the number's start), `tel:03-331-6005;isub=1234;
 * phone-context=abc.nz` (a domain: the number is local, its country unsaid; a sub-address is no part
 * of the number). Undefined for a text that is no `tel:` URI.
 */
function telUri(text: string): { text: string; ext?: string } | undefined {
  const m = /^tel:([^;]*)((?:;.*)?)$/i.exec(text);
  if (!m) return undefined;
  const params = new Map<string, string>();
  for (const p of (m[2] ?? '').split(';').slice(1)) {
    const at = p.indexOf('=');
    const name = (at < 0 ? p : p.slice(0, at)).trim().toLowerCase();
    if (name !== '' && !params.has(name)) params.set(name, at < 0 ? '' : p.slice(at + 1).trim());
  }
  // Values are percent-encoded (`%2B64` is `+64`); a malformed one is taken as written.
  const decoded = (v: string | undefined) => {
    try {
      return v === undefined ? undefined : decodeURIComponent(v);
    } catch {
      return v;
    }
  };
  const context = decoded(params.get('phone-context')) ?? '';
  const local = (m[1] ?? '').trim();
  const number = context.startsWith('+') && !local.startsWith('+') ? `${context}${local}` : local;
  const ext = decoded(params.get('ext'));
  return ext !== undefined && /^\d+$/.test(ext) ? { text: number, ext } : { text: number };
}

/**
 * What a number is read from, as typed by a person or an export: Excel's `="…"` wrapper and
 * scientific notation undone, a `tel:` URI read, an extension cut off, a leading `00` taken as `+`
 * when no region says what its international prefix is. `lost`: Excel rounded the number, its
 * digits are gone.
 */
export function preparePhone(input: string, region: string | undefined): PreparedPhone {
  // Spreadsheets turn +44… into 44… or ="+44…"; a leading 00 is the international prefix in most regions.
  // A number copied from a contact card or a web page carries invisible format characters (direction
  // marks around it, a zero-width space): before a + they hide that the number is international.
  // Full-width forms (a Japanese or Chinese keyboard's ＋４４, its ideographic space) are read as
  // the ASCII ones: libphonenumber reads full-width digits, but not a full-width + as international.
  let text = input.replace(/\p{Cf}/gu, '');
  if (/[\uff01-\uff5e\u3000]/.test(text)) text = text.normalize('NFKC');
  text = text.trim().replace(/^="?|"$/g, '');
  const scientific = expandScientific(text);
  if (scientific !== undefined) {
    if ('lost' in scientific) return { lost: true };
    text = scientific.digits;
  }
  const uri = telUri(text);
  let ext: string | undefined;
  if (uri !== undefined) {
    text = uri.text;
    ext = uri.ext;
  }
  if (ext === undefined) {
    const split = splitExtension(text);
    text = split.main;
    ext = split.ext;
  }
  // With a region libphonenumber knows its international prefix; without one, 00 is the usual one.
  const compact = text.replace(/[\s().-]/g, '');
  if (!region && /^00[1-9]/.test(compact)) text = `+${compact.slice(2)}`;
  return { text, ...(ext !== undefined ? { ext } : {}), ...(uri !== undefined ? { uri: true as const } : {}) };
}

function parse(input: string, region: string | undefined): PhoneResult {
  if (input.trim() === '') return { ok: false, reason: 'phone is empty' };
  const prepared = preparePhone(input, region);
  if ('lost' in prepared) return { ok: false, reason: `phone "${input.trim()}": ${EXCEL_ROUNDED}` };
  const { text, ext } = prepared;
  const country = region ? (region.toUpperCase() as CountryCode) : undefined;
  // International when a + comes before any digit (`+44…`, `Mobile: +44…`, as libphonenumber reads it).
  if (!/^[^\d+]*\+/.test(text) && !country) {
    return { ok: false, reason: `phone "${input.trim()}" is in national format and no region is set (use --country)`, national: true };
  }
  try {
    const number = parsePhoneNumberWithError(text, country ? { defaultCountry: country } : undefined);
    if (!number.isValid()) return country ? { ok: false, reason: `phone "${input.trim()}" is not a valid number for ${country}`, invalidFor: country } : { ok: false, reason: `phone "${input.trim()}" is not a valid number` };
    return ext !== undefined ? { ok: true, e164: number.number, ext } : { ok: true, e164: number.number };
  } catch {
    return { ok: false, reason: `phone "${input.trim()}" is not a phone number` };
  }
}

/**
 * Where a number that is no valid number of its region is one: the first of `regions` it is valid
 * in, else its digits read as international (`1 312 201 1005` → +1…) — libphonenumber's own
 * reading. The number as E.164 and written the international way (`+1 312 201 1005`). Each try is
 * one parse: callers keep the list short, and ask only for numbers already refused.
 */
export function validElsewhere(input: string, regions: readonly string[]): { region: string; e164: string; international: string } | undefined {
  const text = splitExtension(input.trim().replace(/^="?|"$/g, '')).main;
  const tryParse = (t: string, region: string | undefined) => {
    try {
      const n = parsePhoneNumberWithError(t, region ? { defaultCountry: region as CountryCode } : undefined);
      return n.isValid() && n.country !== undefined ? { region: n.country, e164: n.number, international: n.formatInternational() } : undefined;
    } catch {
      return undefined;
    }
  };
  for (const region of regions) {
    const found = tryParse(text, region);
    if (found) return found;
  }
  const digits = text.replace(/[\s().-]/g, '');
  return /^[1-9]\d{7,14}$/.test(digits) ? tryParse(`+${digits}`, undefined) : undefined;
}

/**
 * A number a spreadsheet stored as a number has lost its leading 0 (Italy's 06…, a national
 * number anywhere): the digits with a 0 before them, when that is a valid number of `region`.
 */
export function validWithLeadingZero(input: string, region: string): { e164: string; international: string } | undefined {
  const digits = input.trim();
  if (!/^[1-9]\d{5,14}$/.test(digits)) return undefined;
  try {
    const n = parsePhoneNumberWithError(`0${digits}`, { defaultCountry: region as CountryCode });
    return n.isValid() && n.country === region ? { e164: n.number, international: n.formatInternational() } : undefined;
  } catch {
    return undefined;
  }
}
