/** What `contacts ls` and `calls ls` share: one page, or --all streamed page by page. */
import type { Context } from '../context.js';
import type { ApiClient } from '../http/client.js';
import type { PageQuery } from '../http/paginate.js';
import { type Column, createListWriter } from '../output/writers.js';

export interface ListSpec {
  list(client: ApiClient, q: Omit<PageQuery, 'path'>): AsyncGenerator<unknown[]>;
  table: Column[];
  csv: Column[];
}

export async function runList(ctx: Context, opts: Record<string, unknown>, spec: ListSpec): Promise<number> {
  const format = ctx.format;
  const client = await ctx.api();
  const all = opts.all === true;
  if (opts.max !== undefined && !all) ctx.log.warn('--max only applies with --all; showing one page');
  const writer = await createListWriter(ctx.deps.io.stdout, format, format === 'csv' ? spec.csv : spec.table);
  const q: Omit<PageQuery, 'path'> = {
    ...(opts.page !== undefined ? { page: opts.page as number } : {}),
    ...(opts.limit !== undefined ? { limit: opts.limit as number } : {}),
    ...(all && opts.max !== undefined ? { max: opts.max as number } : {}),
  };
  let count = 0;
  for await (const items of spec.list(client, q)) {
    await writer.write(items);
    count += items.length;
    if (!all) break;
  }
  await writer.end();
  if (format === 'table') ctx.log.info(`${count} shown${all ? '' : ` (page ${String(opts.page ?? 1)}; --all for every page)`}`);
  return 0;
}
