/** `callctl calls ls`: one page, or pages streamed; `--outcome`/`--since`/`--until` filter while paging. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { CALL_CSV, CALL_TABLE, listCalls } from '../../api/calls.js';
import { runList } from '../list.js';

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

function callFilter(opts: Record<string, unknown>): ((item: unknown) => boolean) | undefined {
  const outcome = typeof opts.outcome === 'string' ? opts.outcome.trim() : undefined;
  const since = typeof opts.since === 'string' ? parseTime('--since', opts.since, false) : undefined;
  const until = typeof opts.until === 'string' ? parseTime('--until', opts.until, true) : undefined;
  if (since !== undefined && until !== undefined && since >= until) throw new UsageError(`--since ${String(opts.since)} is not before --until ${String(opts.until)}`);
  if (outcome === undefined && since === undefined && until === undefined) return undefined;
  return (item) => {
    const c = item as { outcome?: unknown; startedAt?: unknown };
    if (outcome !== undefined && c.outcome !== outcome) return false;
    if (since === undefined && until === undefined) return true;
    const at = typeof c.startedAt === 'string' ? Date.parse(c.startedAt) : Number.NaN;
    if (Number.isNaN(at)) return false;
    return (since === undefined || at >= since) && (until === undefined || at < until);
  };
}

export function run(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<number> {
  const filter = callFilter(opts);
  return runList(ctx, opts, { list: listCalls, table: CALL_TABLE, csv: CALL_CSV, ...(filter ? { filter } : {}) });
}
