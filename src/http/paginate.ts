/**
 * The one way to page through a list. The API documents `page`, `limit` and a `data` list, and
 * says nothing of the envelope's other fields, so paging stops at whichever comes first: an empty
 * page, a page shorter than the limit, or an envelope — under any of the usual names — saying
 * there is no more.
 */
import { ApiError } from '../errors.js';
import type { ApiClient } from './client.js';

export interface PageQuery {
  path: string;
  /** First page (default 1). */
  page?: number;
  /** Items per page (default 50, the API's default). */
  limit?: number;
  /** Stop after this many items. */
  max?: number;
  /** Extra query parameters. */
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
}

export const DEFAULT_LIMIT = 50;

/** The items of a list answer: the body itself when it is an array, else its `data` (or the one array it holds). */
export function itemsOf(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    if (Array.isArray(b.data)) return b.data;
    const arrays = Object.values(b).filter(Array.isArray);
    if (arrays.length === 1) return arrays[0] as unknown[];
  }
  return [];
}

function num(v: unknown): number | undefined {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** Paging facts found in an envelope, whatever it calls them. */
export interface Envelope {
  limit?: number;
  more?: boolean;
}

/** Reads the envelope of page `page`: `pagination`, `meta`, `page_info` or the top level. */
export function envelopeOf(body: unknown, page: number): Envelope {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  const b = body as Record<string, unknown>;
  const candidates = [b.pagination, b.meta, b.page_info, b.pageInfo, b.paging, b].filter(
    (c): c is Record<string, unknown> => !!c && typeof c === 'object' && !Array.isArray(c),
  );
  const env: Envelope = {};
  for (const c of candidates) {
    const limit = num(c.limit ?? c.per_page ?? c.perPage ?? c.pageSize ?? c.page_size);
    if (env.limit === undefined && limit !== undefined && limit > 0) env.limit = limit;
    for (const key of ['hasMore', 'has_more', 'hasNextPage', 'has_next_page', 'more']) {
      if (typeof c[key] === 'boolean' && env.more === undefined) env.more = c[key] as boolean;
    }
    if (env.more === undefined) {
      const pages = num(c.totalPages ?? c.total_pages ?? c.pageCount ?? c.page_count ?? c.lastPage ?? c.last_page);
      const current = num(c.page ?? c.currentPage ?? c.current_page) ?? page;
      if (pages !== undefined) env.more = current < pages;
    }
    if (env.more === undefined) {
      for (const key of ['next', 'nextPage', 'next_page', 'nextUrl', 'next_url']) {
        if (key in c && c[key] === null) env.more = false;
      }
    }
    if (env.more === undefined) {
      const total = num(c.total ?? c.totalCount ?? c.total_count);
      const limitKnown = limit ?? env.limit;
      const current = num(c.page ?? c.currentPage ?? c.current_page) ?? page;
      if (total !== undefined && limitKnown !== undefined) env.more = current * limitKnown < total;
    }
  }
  return env;
}

/** Yields the items of each page in order, fetching the next page only when asked for it. */
export async function* pages(client: ApiClient, q: PageQuery): AsyncGenerator<unknown[]> {
  const limit = q.limit ?? DEFAULT_LIMIT;
  let page = q.page ?? 1;
  let left = q.max ?? Infinity;
  let previousFirst: string | undefined;

  while (left > 0) {
    const res = await client.request({ method: 'GET', path: q.path, query: { ...q.query, page, limit }, ...(q.signal ? { signal: q.signal } : {}) });
    const items = itemsOf(res.body);
    if (items.length === 0) return;
    // A server that ignores `page` would hand the same page back forever.
    const first = JSON.stringify(items[0]);
    if (first === previousFirst) return;
    previousFirst = first;

    const taken = items.length > left ? items.slice(0, left) : items;
    left -= taken.length;
    yield taken;

    const env = envelopeOf(res.body, page);
    if (env.more === false) return;
    if (items.length < (env.limit ?? limit)) return;
    page += 1;
  }
}

/** Largest page tried when reading a whole list; the API does not say its maximum. */
const LARGE_PAGE = 100;

/**
 * Every item of a list, in pages as large as the service takes: 100 a page, or the API's default
 * of 50 when it refuses 100 (422 on the first page) — the maximum `limit` is not documented.
 */
export async function* allItems(client: ApiClient, path: string, signal?: AbortSignal): AsyncGenerator<unknown[]> {
  let limit = LARGE_PAGE;
  try {
    const first = await client.request({ method: 'GET', path, query: { page: 1, limit }, ...(signal ? { signal } : {}) });
    const items = itemsOf(first.body);
    if (items.length === 0) return;
    yield items;
    const env = envelopeOf(first.body, 1);
    if (env.more === false || items.length < (env.limit ?? limit)) return;
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    limit = DEFAULT_LIMIT;
    yield* pages(client, { path, limit, ...(signal ? { signal } : {}) });
    return;
  }
  yield* pages(client, { path, limit, page: 2, ...(signal ? { signal } : {}) });
}
