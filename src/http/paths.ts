/** Paths under the base URL built from ids: each id is one encoded segment, never a step elsewhere. */
import { UsageError } from '../errors.js';

/** Encodes one id as a single path segment: `../calls` can never reach another endpoint. */
export function segment(id: string): string {
  if (id.trim() === '') throw new UsageError('the id is empty', 'give the id of an existing record');
  // URLs resolve `.` and `..` (even as %2E%2E) as directory steps: such an id would reach another
  // endpoint, so it is refused rather than sent.
  if (id === '.' || id === '..') throw new UsageError(`the id "${id}" cannot be sent as a path segment`, 'give the id of an existing record');
  return encodeURIComponent(id);
}

/** Tagged template for paths: every interpolated value is an encoded segment. */
export function pathOf(strings: TemplateStringsArray, ...ids: Array<string | number>): string {
  return strings.reduce((out, s, i) => out + s + (i < ids.length ? segment(String(ids[i])) : ''), '');
}

/**
 * The URL of a path under the base URL, with its query. The URL parser resolves dot segments,
 * `%2e%2e` among them: a path that resolves out of the base is never sent, whoever built it (the
 * api command checks its own more strictly, decoded).
 */
export function urlUnder(base: URL, path: string, query: Record<string, string | number | undefined> = {}): URL {
  const basePath = base.pathname.replace(/\/+$/, '');
  const url = new URL(base.href);
  const [pathPart, queryPart] = path.split('?', 2) as [string, string | undefined];
  url.pathname = basePath + (pathPart.startsWith('/') ? pathPart : `/${pathPart}`);
  if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) {
    throw new UsageError(`the path ${pathPart} leaves the API base`, 'paths are relative to the base URL (/api/v1)');
  }
  if (queryPart) url.search = queryPart;
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  return url;
}
