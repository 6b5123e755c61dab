/**
 * The region each row's phone is read with (docs/commands/import.md, "Countries per row"): the row's own country when the
 * file has a country column — the one of the block its phone or address came from (Outlook's
 * `Business Phone` with `Business Country/Region`), else any filled — and `--country` (or the
 * profile's) for rows without one. A cell that names no country (`Atlantis`) falls back to the
 * default, is counted, and its value is named once in the summary: the phone may still be
 * international, and a national one is then refused with the reason.
 *
 * A number refused for its region is tried in a few likely others — the row's own country, the
 * default, the countries the file names most, US and GB — and as libphonenumber reads its digits
 * as international; where it is valid, the reason says so. Only refused numbers are tried, and after
 * 200 searches that found nothing the rest are not (a file of garbage numbers pays ~200 × 0.2 ms).
 */
import { countryCode, isBlankCountry } from './country.js';
import type { Mapping } from './mapping.js';
import { addressBlockOf, firstValue } from './validate.js';
import { type PhoneResult, validElsewhere, validWithLeadingZero } from '../phone/e164.js';

export interface RowRegion {
  region: string | undefined;
  /** `file`: the row's country cell named it. */
  fromFile: boolean;
  /** The country column that was read (or, when none was filled, the first), for messages. */
  column?: string;
  /** The cell's text, when one was filled. */
  text?: string;
  /** The cell names no country callctl knows. */
  unread?: true;
}

/** Searches that found no other region, after which refused numbers are no longer tried. */
const SEARCHES = 200;
/** Regions tried last, whatever the file: the two national formats lead lists mix most. */
const USUAL = ['US', 'GB'];

export class RowCountries {
  /** Rows whose region came from their country cell. */
  fromFile = 0;
  /** Rows whose country cell named no country. */
  unread = 0;
  /** A few of those cells, for the summary. */
  readonly unreadValues = new Set<string>();
  private readonly seen = new Map<string, number>();
  private fruitless = 0;

  constructor(
    private readonly mapping: Mapping,
    private readonly fallback: string | undefined,
  ) {}

  /** Whether the file has a country column. */
  get any(): boolean {
    return this.mapping.countries.length > 0;
  }

  /**
   * The region of a row (see above), for the phone in column `phoneAt` (else its first phone
   * column that holds one); counts nothing.
   */
  of(cells: string[], phoneAt?: number): RowRegion {
    const m = this.mapping;
    if (m.countries.length === 0) return { region: this.fallback, fromFile: false };
    const cell = (c: { index: number }) => firstValue(cells[c.index] ?? '');
    const filled = (block: string) => m.countries.find((c) => c.block === block && !isBlankCountry(cell(c)));
    phoneAt ??= m.phones.find((c) => firstValue(cells[c.index] ?? '') !== '')?.index;
    const phoneBlock = phoneAt === undefined ? undefined : m.phoneBlocks.get(phoneAt);
    let chosen = phoneBlock === undefined ? undefined : filled(phoneBlock);
    if (!chosen) {
      const address = addressBlockOf(m.addresses, cells);
      if (address !== undefined) chosen = filled(address.name);
    }
    chosen ??= m.countries.find((c) => !isBlankCountry(cell(c)));
    if (!chosen) return { region: this.fallback, fromFile: false, column: (m.countries[0] as { name: string }).name };
    const text = cell(chosen);
    const code = countryCode(text);
    if (code !== undefined) return { region: code, fromFile: true, column: chosen.name, text };
    return { region: this.fallback, fromFile: false, column: chosen.name, text, unread: true };
  }

  /** Counts a checked row's region (once per row, not for rows skipped on --resume). */
  count(r: RowRegion): void {
    if (r.fromFile) {
      this.fromFile += 1;
      this.seen.set(r.region as string, (this.seen.get(r.region as string) ?? 0) + 1);
    } else if (r.unread) {
      this.unread += 1;
      if (this.unreadValues.size < 5) this.unreadValues.add(r.text as string);
    }
  }

  /** The reason a refused phone is refused, saying where it is valid when it is, and what to do. */
  explain(phoneText: string, phone: Extract<PhoneResult, { ok: false }>, r: RowRegion): string {
    const column = r.column ?? 'Country';
    if (phone.national && this.any) {
      if (r.unread) return `phone "${phoneText}" is in national format and its ${column} "${r.text}" is not a country callctl knows (write it as a name or an ISO code, or give --country)`;
      return `phone "${phoneText}" is in national format and the row has no country (fill its ${column}, or give --country)`;
    }
    if (phone.invalidFor === undefined) return phone.reason;
    // Digits alone, invalid, that a 0 before them makes valid: a cell stored as a number lost it.
    const zero = validWithLeadingZero(phoneText, phone.invalidFor);
    const zeroHint = zero && `with a leading 0 it is ${zero.international}: a cell stored as a number drops it (write the 0, or store the column as text)`;
    const found = this.fruitless >= SEARCHES ? undefined : validElsewhere(phoneText, this.candidates(r, phone.invalidFor));
    if (!found) {
      if (!zeroHint) this.fruitless += 1;
      return zeroHint ? `${phone.reason} — ${zeroHint}` : phone.reason;
    }
    const hint = !this.any
      ? `add a Country column or --country ${found.region}`
      : r.fromFile
        ? `its ${column} says "${r.text}"`
        : `fill its ${column} or use --country ${found.region}`;
    return `${phone.reason} — valid as a ${found.region} number ${found.international}: ${hint}${zeroHint ? `; or ${zeroHint}` : ''}`;
  }

  /** The regions worth a try, most likely first, without the one already tried. */
  private candidates(r: RowRegion, tried: string): string[] {
    const top = [...this.seen].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([region]) => region);
    const list = [r.fromFile ? r.region : undefined, this.fallback, ...top, ...USUAL];
    return [...new Set(list.filter((x): x is string => x !== undefined && x !== tried))];
  }
}
