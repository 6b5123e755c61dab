/**
 * A country cell to the region libphonenumber reads the row's phone with: an ISO 3166 alpha-2
 * code (`GB`, and `UK`, which everyone writes), an alpha-3 code (`USA`, `DEU`), or a name — in
 * English with its common variants (`United States`, `USA`, `U.S.`, `Great Britain`), or the
 * country's own (`Deutschland`, `España`, `Nederland`). Case, accents, spaces and punctuation do
 * not count. Codes and English names come from i18n-iso-countries' data (its codes table and its
 * English names with their alternatives); native names from the ICU data Node carries
 * (`Intl.DisplayNames` in the languages of each region), built only when the English names miss.
 * A name two countries share (`Congo`) is no country.
 */
import codes from 'i18n-iso-countries/codes.json' with { type: 'json' };
import english from 'i18n-iso-countries/langs/en.json' with { type: 'json' };
import { isRegion } from '../phone/e164.js';

/** Informal names of the usual lead lists that neither source lists. */
const EXTRA: Record<string, string> = {
  uk: 'GB', england: 'GB', scotland: 'GB', wales: 'GB', northernireland: 'GB', britain: 'GB', greatbritain: 'GB', unitedkingdomofgreatbritainandnorthernireland: 'GB',
  america: 'US', unitedstatesofamerica: 'US', holland: 'NL',
};
/** Languages whose names for every region are also read (a Swiss list in French says Suisse). */
const MORE_LANGUAGES = ['en', 'fr', 'de', 'es', 'it', 'nl', 'pt'];

/** `Côte d'Ivoire` → `cotedivoire`, `U.S.A.` → `usa`. */
export function countryKey(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

const ALPHA2 = new Set((codes as string[][]).map((c) => c[0] as string));
const ALPHA3 = new Map((codes as string[][]).map((c) => [c[1] as string, c[0] as string]));

/** Names to codes; a name given to two codes maps to null (ambiguous). */
type Names = Map<string, string | null>;

function add(names: Names, name: string, code: string): void {
  const key = countryKey(name);
  if (key === '') return;
  const had = names.get(key);
  if (had === undefined) names.set(key, code);
  else if (had !== code) names.set(key, null);
}

let englishNames: Names | undefined;
function englishMap(): Names {
  if (englishNames) return englishNames;
  const names: Names = new Map();
  for (const [code, value] of Object.entries((english as { countries: Record<string, string | string[]> }).countries)) {
    for (const name of Array.isArray(value) ? value : [value]) add(names, name, code);
  }
  for (const [key, code] of Object.entries(EXTRA)) names.set(key, code);
  return (englishNames = names);
}

let nativeNames: Names | undefined;
/** Every region's name in its own languages and in MORE_LANGUAGES, from ICU (built once, on a miss). */
function nativeMap(): Names {
  if (nativeNames) return nativeNames;
  const names: Names = new Map();
  const displays = new Map<string, Intl.DisplayNames | null>();
  const display = (lang: string) => {
    let d = displays.get(lang);
    if (d === undefined) {
      try {
        d = new Intl.DisplayNames([lang], { type: 'region', fallback: 'none' });
      } catch {
        d = null;
      }
      displays.set(lang, d);
    }
    return d;
  };
  for (const code of ALPHA2) {
    let own: string | undefined;
    try {
      own = new Intl.Locale(`und-${code}`).maximize().language;
    } catch {
      own = undefined;
    }
    for (const lang of own && !MORE_LANGUAGES.includes(own) ? [own, ...MORE_LANGUAGES] : MORE_LANGUAGES) {
      const name = display(lang)?.of(code);
      if (name) add(names, name, code);
    }
  }
  return (nativeNames = names);
}

const cache = new Map<string, string | null>();

/** The region a country cell names (upper-case alpha-2 libphonenumber knows), or undefined. */
export function countryCode(cell: string): string | undefined {
  const text = cell.trim();
  if (text === '') return undefined;
  let hit = cache.get(text);
  if (hit === undefined) {
    hit = lookup(text) ?? null;
    if (cache.size >= 10_000) cache.clear();
    cache.set(text, hit);
  }
  return hit ?? undefined;
}

/** What a spreadsheet writes for "no value": such a cell names no country, and is no error either. */
const BLANK = /^(n\/?a|none|null|unknown|-+|\?+|\.+)$/i;

/** True for a cell that holds nothing: empty, or a spreadsheet's "no value" (`N/A`, `-`, `none`). */
export function isBlankCountry(cell: string): boolean {
  const text = cell.trim();
  return text === '' || BLANK.test(text);
}

function lookup(text: string): string | undefined {
  if (isBlankCountry(text)) return undefined;
  const key = countryKey(text);
  const upper = key.toUpperCase();
  let code: string | null | undefined;
  // Two letters are a code when written as one (`GB`, `U.K.`), never out of `N/A`-like text.
  if (key.length === 2) code = !/^\p{L}\.?\p{L}\.?$/u.test(text) ? undefined : upper === 'UK' ? 'GB' : ALPHA2.has(upper) ? upper : undefined;
  else if (key.length === 3 && ALPHA3.has(upper)) code = ALPHA3.get(upper);
  if (code === undefined) code = englishMap().get(key);
  if (code === undefined) code = nativeMap().get(key);
  return code && isRegion(code) ? code : undefined;
}
