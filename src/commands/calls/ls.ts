/** `callctl calls ls`: one page, or pages streamed; `--outcome`/`--since`/`--until` filter while paging. */
import type { Context } from '../../context.js';
import { CALL_CSV, CALL_TABLE, listCalls } from '../../api/calls.js';
import { runList } from '../list.js';
import type { CallsLsOptions } from './ls-options.js';

/** Keeps the calls with the outcome, started in [since, until); a call without a start time has none. */
function callFilter({ outcome, since, until }: CallsLsOptions): ((item: unknown) => boolean) | undefined {
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

export function run(ctx: Context, o: CallsLsOptions): Promise<number> {
  const filter = callFilter(o);
  return runList(ctx, o, { list: listCalls, table: CALL_TABLE, csv: CALL_CSV, ...(filter ? { filter } : {}) });
}
