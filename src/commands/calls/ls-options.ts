/**
 * `callctl calls ls`'s options, typed and checked before any code loads: the shared listing flags,
 * and the filters — `--outcome`, and `--since`/`--until` read as times (docs/commands/contacts.md, "Listing"), the one
 * before the other.
 */
import { UsageError } from '../../errors.js';
import { str } from '../../values.js';
import { type ListOptions, listOptions } from '../list-options.js';

export type CallsLsOptions = ListOptions & {
  outcome: string | undefined;
  /** Epoch milliseconds: calls started at or after. */
  since: number | undefined;
  /** Epoch milliseconds: calls started before. */
  until: number | undefined;
  /** `--contact`: a contact id, or a phone (resolved to its person's contacts as `contacts find --phone`). */
  contact: string | undefined;
  /** `--country`: the region for a national-format `--contact` phone. */
  country: string | undefined;
};

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** A time from `--since`/`--until`: a date alone is that day's start (UTC); `endOfDay` takes the next day's. */
export function parseTime(flag: string, raw: string, endOfDay: boolean): number {
  const text = raw.trim();
  // A date-time without a zone is read as UTC too, so the result never depends on the machine.
  const iso = DATE_ONLY.test(text) ? `${text}T00:00:00Z` : /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text) ? `${text}Z` : text;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(iso) ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(ms)) throw new UsageError(`${flag} ${raw} is not a date`, 'use 2026-10-01 or an ISO 8601 time such as 2026-10-01T09:00:00Z');
  return DATE_ONLY.test(text) && endOfDay ? ms + DAY_MS : ms;
}

export function callsLsOptions(_args: string[], opts: Record<string, unknown>): CallsLsOptions {
  const outcome = typeof opts.outcome === 'string' ? opts.outcome.trim() : undefined;
  const since = typeof opts.since === 'string' ? parseTime('--since', opts.since, false) : undefined;
  const until = typeof opts.until === 'string' ? parseTime('--until', opts.until, true) : undefined;
  if (since !== undefined && until !== undefined && since >= until) throw new UsageError(`--since ${String(opts.since)} is not before --until ${String(opts.until)}`);
  const contact = typeof opts.contact === 'string' ? opts.contact.trim() : undefined;
  if (contact === '') throw new UsageError('--contact is empty', 'give a contact id or a phone');
  const country = str(opts.country);
  if (country !== undefined && contact === undefined) throw new UsageError('--country applies only with --contact <phone>');
  return { ...listOptions(opts), outcome, since, until, contact, country };
}
