/**
 * `callctl calls summary [--by <field>]`: every call, every page (streamed: memory grows with the
 * groups, not the calls), totalled per outcome — the totals the outcome writeback feeds. `--by` a
 * field no call has is exit 2 naming the fields they have (nothing is assumed of a call's fields).
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { allCalls } from '../../api/calls.js';
import { createListWriter } from '../../output/writers.js';
import { formatTotals, OutcomeTotals } from '../../writeback/totals.js';
import type { CallsSummaryOptions } from './options.js';

export async function run(ctx: Context, { by }: CallsSummaryOptions): Promise<number> {
  const format = ctx.format;
  const client = await ctx.api();
  const totals = new OutcomeTotals(by);
  let calls = 0;
  // The fields the calls have, for --by: the service's names are not shown (docs/api.md).
  const fields = new Set<string>();
  let found = by === undefined;
  for await (const page of allCalls(client)) {
    for (const call of page) {
      totals.add(call);
      if (!found && by !== undefined) {
        if (Object.hasOwn(call, by)) found = true;
        else for (const k of Object.keys(call)) fields.add(k);
      }
    }
    calls += page.length;
  }
  if (!found && calls > 0) {
    throw new UsageError(`no call has a field "${by}"`, `the calls' fields: ${[...fields].join(', ')}`);
  }
  if (!found) ctx.log.warn(`there are no calls: whether they have a field "${by}" cannot be told`);
  const rows = totals.rows();
  if (format === 'json' || format === 'ndjson') {
    // The --by field is named as the operator named it.
    const out = rows.map((r) => ({ outcome: r.outcome, ...(by !== undefined ? { [by]: r.by } : {}), calls: r.calls, totals: r.totals }));
    ctx.deps.io.stdout.write(format === 'json' ? `${JSON.stringify(out, null, 2)}\n` : out.map((o) => `${JSON.stringify(o)}\n`).join(''));
  } else {
    const columns = [{ key: 'outcome', header: 'Outcome' }, ...(by !== undefined ? [{ key: 'by', header: by }] : []), { key: 'calls', header: 'Calls' }, { key: 'totals', header: 'Value' }];
    const writer = await createListWriter(ctx.deps.io.stdout, format, columns, ctx);
    await writer.write(rows.map((r) => ({ ...r, totals: formatTotals(r.totals) })));
    await writer.end();
  }
  ctx.log.info(`${calls} call${calls === 1 ? '' : 's'} in ${rows.length} group${rows.length === 1 ? '' : 's'}`);
  return 0;
}
