/**
 * The one way to page through a list (docs/people.md, "Reading a list whole"). The API documents
 * `page`, `limit` (default 50, maximum not shown) and a `data` list, and says nothing of the
 * envelope's other fields, so a list ends at an empty page, at a page shorter than a page size the
 * service shows it applies, or where an envelope — under any of the usual names — says there is no
 * more or counts no more. A page that is not a list is not the API's answer (the client retries it
 * as a fault); a list that never ends — more pages than its own total, a page sent again while the
 * envelope says there is more, or MAX_PAGES — and a list whose pages end before its envelope's
 * claim stop with an error, never as if they were complete.
 */
import { ApiError, RuntimeError } from '../errors.js';
import type { AnswerShape } from './answer.js';
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
  /** Most pages read before the list is taken to be endless (default MAX_PAGES). */
  maxPages?: number;
  /** What a page must be to count as the API's (default LIST_PAGE: any list). */
  shape?: AnswerShape;
  /** Told each page's envelope as it arrives (a total that moves says the list changed while read). */
  onPage?: (env: Envelope) => void;
}

export const DEFAULT_LIMIT = 50;
/**
 * Most pages of one list: two million contacts at 100 a page. A list past it is taken to be
 * endless (a service whose `hasMore` never turns false) and reading stops with an error.
 */
export const MAX_PAGES = 20_000;

/**
 * The items of a list answer: the body itself when it is an array, else its `data` (or the one
 * array it holds); undefined when it is no list at all (`{}`, an error, a page of HTML).
 */
export function listItems(body: unknown): unknown[] | undefined {
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    if (Array.isArray(b.data)) return b.data;
    const arrays = Object.values(b).filter(Array.isArray);
    if (arrays.length === 1) return arrays[0] as unknown[];
  }
  return undefined;
}

/** The items of a list answer, or none. */
export function itemsOf(body: unknown): unknown[] {
  return listItems(body) ?? [];
}

/** GET of a list: an envelope with a `data` list (docs/api.md), or the forms paging tolerates. */
export const LIST_PAGE: AnswerShape = { what: 'a list (an envelope with a data array)', names: 'collection', accepts: (b) => listItems(b) !== undefined };

function num(v: unknown): number | undefined {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

/** Paging facts found in an envelope, whatever it calls them. */
export interface Envelope {
  limit?: number;
  more?: boolean;
  /** Items in the whole list, when the envelope says. */
  total?: number;
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
    const total = num(c.total ?? c.totalCount ?? c.total_count);
    if (env.total === undefined && total !== undefined && total >= 0) env.total = total;
    if (env.more === undefined) {
      const limitKnown = limit ?? env.limit;
      const current = num(c.page ?? c.currentPage ?? c.current_page) ?? page;
      if (total !== undefined && limitKnown !== undefined) env.more = current * limitKnown < total;
    }
  }
  return env;
}

/**
 * Yields the items of each page in order, fetching the next page only when asked for it.
 *
 * The page size is what the service shows it applies (docs/people.md): the limit its envelope
 * echoes, or the limit asked once a page of that size came back. A page shorter than that ends the
 * list; a short page whose size is not known to be the one applied (a service that caps `limit`
 * without saying so) does not — the next pages are asked at the size the service gave, from where
 * it ended, until a page comes back empty. Nothing ends while the envelope says there is more
 * (`hasMore`, pages, `next`) or counts more (`total`); a list whose pages end before what its
 * envelope claims cannot be shown complete, and stops with an error (`incomplete_list`).
 */
export async function* pages(client: ApiClient, q: PageQuery): AsyncGenerator<unknown[]> {
  const first = q.page ?? 1;
  let limit = q.limit ?? DEFAULT_LIMIT;
  let page = first;
  let left = q.max ?? Infinity;
  let previousFirst: string | undefined;
  let said: Envelope = {};
  let read = 0;
  /** The largest page the service has given: a limit up to it is one it applies. */
  let largest = 0;
  const maxPages = q.maxPages ?? MAX_PAGES;

  for (let pagesRead = 0; left > 0; pagesRead++) {
    if (pagesRead >= maxPages) throw endless(q.path, `after ${maxPages.toLocaleString('en-US')} pages (${read.toLocaleString('en-US')} items) it still says there is more`);
    const res = await client.request({ method: 'GET', path: q.path, query: { ...q.query, page, limit }, shape: q.shape ?? LIST_PAGE, ...(q.signal ? { signal: q.signal } : {}) });
    const items = itemsOf(res.body);
    const env = envelopeOf(res.body, page);
    q.onPage?.(env);
    // Items the envelope counts, when they can be compared with those read (a reading from page 1).
    const counted = (e: Envelope) => (first === 1 ? e.total : undefined);
    if (items.length === 0) {
      // The end — unless the envelope (this page's, else the last one's) still says there is more.
      const claim = env.more !== undefined || env.total !== undefined ? env : said;
      const total = counted(claim);
      if (claim.more === true || (total !== undefined && read < total)) throw incomplete(q.path, total !== undefined && read < total ? `it counts ${total.toLocaleString('en-US')} items, but its pages ended after ${read.toLocaleString('en-US')}` : `page ${page} is empty, and it says there is more`);
      return;
    }
    // A server that ignores `page` would hand the same page back forever: without an envelope that
    // is the end of what it has; one that said there was more is a list without end, and one that
    // counts more than was read cannot be shown complete (as an empty page, above).
    const head = JSON.stringify(items[0]);
    if (head === previousFirst) {
      if (said.more === true) throw endless(q.path, `page ${page} is page ${page - 1} again, and the service said there was more`);
      const total = counted(said);
      if (total !== undefined && read < total) throw incomplete(q.path, `it counts ${total.toLocaleString('en-US')} items, but page ${page} is page ${page - 1} again after ${read.toLocaleString('en-US')}`);
      return;
    }
    previousFirst = head;
    read += items.length;
    largest = Math.max(largest, items.length);

    const taken = items.length > left ? items.slice(0, left) : items;
    left -= taken.length;
    yield taken;

    said = env;
    if (env.more === false) return;
    const total = counted(env);
    if (total !== undefined && read >= total) {
      if (env.more === true) throw endless(q.path, `${read.toLocaleString('en-US')} items read of the ${total.toLocaleString('en-US')} it counts, and it still says there is more`);
      return;
    }
    // The page size the service applies: the one it says, else the one asked once a page that large came back.
    const applied = env.limit ?? (largest >= limit ? limit : undefined);
    const more = env.more === true || total !== undefined;
    if (!more && applied !== undefined && items.length < applied) return;
    // On at the size the service applies, or gave when it did not say: a page of the size it gives
    // is one it cannot cap again, so page N holds what it should whether the service counts its
    // pages by the limit asked or by the one applied.
    const size = applied ?? items.length;
    if (size !== limit && first === 1 && read % size === 0) {
      limit = size;
      page = read / size + 1;
    } else page += 1;
  }
}

/** A list that does not end: reading stops, and says so — never as if the list were complete. */
function endless(path: string, why: string): RuntimeError {
  return new RuntimeError('endless_list', `stopped reading ${path}: ${why}`, 'the list looks endless, so the rest was not read: try --max N, or ask the service about its paging');
}

/** A list whose pages end before what its envelope claims: it cannot be shown complete, and nothing is concluded from it. */
export const INCOMPLETE = 'incomplete_list';
function incomplete(path: string, why: string): RuntimeError {
  return new RuntimeError(INCOMPLETE, `${path} could not be read whole: ${why}`, 'nothing was concluded from a list read in part: run it again (if the list was changing, when it is not), or ask the service about its paging');
}

/** Largest page tried when reading a whole list; the API does not say its maximum. */
const LARGE_PAGE = 100;

/**
 * Every item of a list — the one reader of whole lists (find, rm, dupes, the import's preview,
 * `calls summary`, `calls ls --contact`…). It asks 100 a page, and keeps 100 only where the answer
 * shows it was taken (pages: echoed, or a full page); a service that caps it is read at the size
 * it gives; one that refuses 100 (422 on the first page) at the API's default of 50.
 */
export async function* allItems(client: ApiClient, path: string, o: { signal?: AbortSignal | undefined; shape?: AnswerShape; onPage?: (env: Envelope) => void } = {}): AsyncGenerator<unknown[]> {
  const q = { path, ...(o.signal ? { signal: o.signal } : {}), ...(o.shape ? { shape: o.shape } : {}), ...(o.onPage ? { onPage: o.onPage } : {}) };
  let read = false;
  try {
    for await (const items of pages(client, { ...q, limit: LARGE_PAGE })) {
      read = true;
      yield items;
    }
  } catch (err) {
    if (read || !(err instanceof ApiError) || err.status !== 422) throw err;
    yield* pages(client, { ...q, limit: DEFAULT_LIMIT });
  }
}
