/**
 * Phone numbers to E.164 — the form the service matches contacts on (seed §2, §4 rule 1), and
 * so what makes a repeated POST safe. libphonenumber-js/max validates the digit patterns, not
 * only the length. Parsing costs tens of microseconds, so results are cached: lead lists repeat
 * numbers, and a re-run or dry run meets the same ones again.
 */
import { parsePhoneNumberWithError, type CountryCode, isSupportedCountry } from 'libphonenumber-js/max';

export type PhoneResult = { ok: true; e164: string } | { ok: false; reason: string };

const CACHE_LIMIT = 10_000;
const cache = new Map<string, PhoneResult>();

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

function parse(input: string, region: string | undefined): PhoneResult {
  let text = input.trim();
  if (text === '') return { ok: false, reason: 'phone is empty' };
  // Spreadsheets turn +44… into 44… or ="+44…"; a leading 00 is the international prefix in most regions.
  text = text.replace(/^="?|"$/g, '');
  const country = region ? (region.toUpperCase() as CountryCode) : undefined;
  // With a region libphonenumber knows its international prefix; without one, 00 is the usual one.
  const compact = text.replace(/[\s().-]/g, '');
  if (!country && /^00[1-9]/.test(compact)) text = `+${compact.slice(2)}`;
  if (!text.startsWith('+') && !country) {
    return { ok: false, reason: `phone "${input.trim()}" is in national format and no region is set (use --country)` };
  }
  try {
    const number = parsePhoneNumberWithError(text, country ? { defaultCountry: country } : undefined);
    if (!number.isValid()) return { ok: false, reason: `phone "${input.trim()}" is not a valid number${country ? ` for ${country}` : ''}` };
    return { ok: true, e164: number.number };
  } catch {
    return { ok: false, reason: `phone "${input.trim()}" is not a phone number` };
  }
}
