/**
 * What a person gives to find someone (`find --phone`, `rm --phone`, a request file's lines,
 * `calls ls --contact`): an e-mail, a phone or an id. A phone is read by its digits
 * (src/phone/compare.ts), never refused for being invalid — only for holding too few digits to
 * identify anyone — and one line each says how it was read.
 */
import { isEmail } from '../api/fields.js';
import { UsageError } from '../errors.js';
import { emailKeys } from './email.js';
import { digitCount, MIN_DIGITS, type NumberKey, numberKey, severalNumbers, writtenAsNumber } from '../phone/compare.js';

/**
 * What a bare value stands for: an e-mail when it is written as one, a phone when it holds only
 * what a phone is written with (`+`, digits, spaces, `()`, `.`, `/`, `-`, an extension, several
 * numbers) and at least six digits, and anything else an id, taken as given.
 */
export function askedKind(text: string): 'email' | 'phone' | 'id' {
  const t = text.trim();
  const emails = emailKeys(t);
  return isEmail(t) || (emails.length > 0 && emails.every(isEmail)) ? 'email' : writtenAsNumber(t) ? 'phone' : 'id';
}

/** A phone of a request, read by its digits; too few digits to identify anyone is exit 2. `line`: as named (`12`, `Leads!12`). */
export function phoneOf(text: string, line: number | string | undefined, region: string | undefined): NumberKey {
  const key = numberKey(text, region);
  if (key) return key;
  const at = line === undefined ? '' : `line ${line}: `;
  const digits = digitCount(text);
  throw new UsageError(`${at}phone "${text.trim()}" has ${digits < MIN_DIGITS ? `${digits} digit${digits === 1 ? '' : 's'}, too few to identify anyone` : 'digits Excel rounded away'}`, `give the whole number, at least ${MIN_DIGITS} digits${line === undefined ? '' : '; nothing was sent'}`);
}

/** `line` as named: a workbook's with its sheet (`Leads!12`, source/open.ts lineName). */
type Asked = { line: number | string; text: string; numbers?: NumberKey[] | undefined };

/**
 * The one line each that says how phones were read: numbers libphonenumber calls invalid are
 * still searched, by their digits; numbers without a country code and no region, by their
 * national digits; a text libphonenumber cannot parse, by its digits as written; a vanity
 * number, by the digits its letters dial. None when every phone is a valid number with its
 * country code. `typed`: one
 * phone given on the command line, named in the line; else the lines of the file are.
 */
export function phoneNotes(requests: Asked[], region: string | undefined, typed: boolean): string[] {
  const lines = (rs: Asked[]) => {
    const shown = rs.slice(0, 8).map((r) => r.line).join(', ');
    return `${rs.length === 1 ? 'line' : 'lines'} ${shown}${rs.length > 8 ? ` and ${rs.length - 8} more` : ''}`;
  };
  const single = typed && requests.length === 1;
  const notes: string[] = [];
  const readings = (r: Asked) => (r.numbers ?? []).flatMap((n) => [n, ...n.others]);
  const unparsed = requests.filter((r) => readings(r).some((n) => n.read === 'digits'));
  const letters = requests.filter((r) => readings(r).some((n) => n.read === 'letters'));
  const invalid = requests.filter((r) => r.numbers?.some((n) => n.e164 !== undefined && !n.valid && n.read !== 'digits'));
  const national = region === undefined ? requests.filter((r) => r.numbers?.some((n) => n.e164 === undefined && n.read !== 'digits')) : [];
  if (invalid.length > 0) {
    const n = invalid[0]?.numbers?.find((k) => k.e164 !== undefined && !k.valid) as NumberKey;
    const read = n.text.replace(/^[\s(]+/, '').startsWith('+') ? '' : ` for ${region}`;
    const as = n.text.replace(/[^+\d]/g, '') === n.e164 ? '' : ` as ${n.e164}`;
    // Read in a region that has no number of its length, it is searched as written without one too.
    const also = read !== '' && n.others.length > 0 && !severalNumbers(invalid[0]?.text ?? '') ? `, and as written without a region (no ${region} number has its length)` : '';
    notes.push(single ? `phone "${invalid[0]?.text}" is not a valid number${read}: searched by its digits${as}${also}` : `${lines(invalid)}: ${invalid.length === 1 ? 'not a valid number: searched by its digits' : 'not valid numbers: searched by their digits'}`);
  }
  if (unparsed.length > 0) {
    const what = 'libphonenumber cannot parse it: searched by its digits as written, which only the same digits match';
    notes.push(single ? `phone "${unparsed[0]?.text}" — ${what}` : `${lines(unparsed)}: ${what.replace(/\bit\b/g, 'them').replace('its digits', 'their digits')}`);
  }
  if (letters.length > 0) {
    const n = readings(letters[0] as Asked).find((k) => k.read === 'letters') as NumberKey;
    notes.push(single ? `phone "${letters[0]?.text}" has letters: searched by the digits they dial (${n.e164 ?? n.national})` : `${lines(letters)}: letters read as the digits they dial`);
  }
  if (national.length > 0) {
    const what = 'no country code and no region set: compared by national digits (give --country to read them)';
    notes.push(single ? `phone "${national[0]?.text}" has ${what.replace('them', 'it')}` : `${lines(national)}: ${what}`);
  }
  return notes;
}
