/**
 * What `contacts ls` and `calls ls` share: one page, or pages streamed as they arrive — every page
 * with --all, as many as --max needs, and every page when a local filter is given (the API lists
 * without filters, so the filter runs here, page by page).
 */
import type { Context } from '../context.js';
import { ApiError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { DEFAULT_LIMIT, type PageQuery } from '../http/paginate.js';
import { type Column, createListWriter } from '../output/writers.js';
import type { ListOptions } from './list-options.js';

/** Columns, fixed, or made from the first items listed (the fields the service returned). */
export type Columns<T> = Column[] | ((items: T[]) => Column[]);

/** A list of the API's (src/api/): its items typed, their columns, and what the command keeps. */
export interface ListSpec<T> {
  list(client: ApiClient, q: Omit<PageQuery, 'path' | 'shape'>): AsyncGenerator<T[]>;
  table: Columns<T>;
  csv: Columns<T>;
  /** Keeps the items to show; when given, every page is read. */
  filter?: (item: T) => boolean;
}

export async function runList<T>(ctx: Context, o: ListOptions, spec: ListSpec<T>): Promise<number> {
  const format = ctx.format;
  const { max } = o;
  const filter = spec.filter;
  const every = o.all || max !== undefined || filter !== undefined;
  const client = await ctx.api();
  // Columns made from the items wait for the first ones (a table of nothing has no columns to guess).
  const columns = format === 'csv' ? spec.csv : spec.table;
  let writer = typeof columns === 'function' ? undefined : await createListWriter(ctx.deps.io.stdout, format, columns, ctx);
  const writerFor = async (items: T[]) => (writer ??= await createListWriter(ctx.deps.io.stdout, format, typeof columns === 'function' ? columns(items) : columns, ctx));
  // `--max 5` alone needs one small page, not the default 50.
  const limit = o.limit ?? (max !== undefined && filter === undefined ? Math.min(max, DEFAULT_LIMIT) : undefined);
  const q: Omit<PageQuery, 'path' | 'shape'> = {
    ...(o.page !== undefined ? { page: o.page } : {}),
    ...(limit !== undefined ? { limit } : {}),
  };
  let count = 0;
  let read = 0;
  try {
    for await (const items of spec.list(client, q)) {
      read += items.length;
      let shown = filter ? items.filter(filter) : items;
      if (max !== undefined) shown = shown.slice(0, max - count);
      if (shown.length > 0 || writer) await (await writerFor(shown)).write(shown);
      count += shown.length;
      // Leaving the loop ends the generator: no further page is requested.
      if (!every || (max !== undefined && count >= max)) break;
    }
  } catch (err) {
    if (err instanceof ApiError && err.status === 422 && o.limit !== undefined) {
      const { method, path, status, serverMessage, body, attempts } = err;
      throw new ApiError(err.code, err.message, { method, path, status, serverMessage, body, attempts }, `--limit ${String(o.limit)} is more than the service gives in one page; use --all (or --max N) to read several pages`);
    }
    throw err;
  }
  await (await writerFor([])).end();
  if (format === 'table') {
    const where = every ? (filter ? ` (of ${read} read)` : '') : ` (page ${String(o.page ?? 1)}; --all for every page)`;
    ctx.log.info(`${count} shown${where}`);
  }
  return 0;
}
