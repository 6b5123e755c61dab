/**
 * `callctl api`'s options, typed and checked before any code loads: a known method, a path that
 * stays under the base URL (decoded and normalised first, docs/network.md), `-f key=value` fields (JSON numbers, booleans and null sent as such),
 * and DELETE only with --confirm — an erasure through the escape hatch is still an erasure.
 */
import { UsageError } from '../../errors.js';
import type { Method } from '../../http/client.js';
import { str, strings } from '../../values.js';

export interface ApiOptions {
  method: Method;
  /** Under the base URL, starting with `/`. */
  path: string;
  /** The query written in the path (`/calls?limit=5`). */
  query: Record<string, string>;
  fields: Record<string, unknown>;
  input: string | undefined;
  paginate: boolean;
}

const METHODS: readonly Method[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

/**
 * Whether a path could step out of the base URL: it is decoded (over and over: `%252e` is `%2e`
 * to a server that decodes twice) before its segments — split at `/` and at `\`, which URLs
 * read as `/` — are checked for `.` and `..`.
 */
function leavesBase(path: string): boolean {
  let decoded = path;
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      break; // a lone `%` (an id like "50%"): what no server can decode further
    }
    if (next === decoded) break;
    decoded = next;
  }
  return /%[0-9a-f]{2}/i.test(decoded) || decoded.split(/[/\\]/).some((s) => s.trim() === '..' || s.trim() === '.');
}

function fieldValue(raw: string): unknown {
  if (raw === 'true' || raw === 'false' || raw === 'null' || /^-?\d+(\.\d+)?$/.test(raw)) return JSON.parse(raw);
  return raw;
}

export function apiOptions(args: string[], opts: Record<string, unknown>): ApiOptions {
  const [rawMethod = '', rawPath = ''] = args;
  const method = rawMethod.toUpperCase() as Method;
  if (!METHODS.includes(method)) throw new UsageError(`unknown method ${rawMethod}`, `use one of ${METHODS.join(', ')}`);
  if (/^[a-z]+:\/\//i.test(rawPath)) throw new UsageError('give a path under the base URL, not a full URL', 'e.g. callctl api GET /contacts');
  const [pathPart = '', queryPart] = rawPath.split('?', 2);
  const path = `/${pathPart.replace(/^\/+/, '')}`;
  if (leavesBase(path)) throw new UsageError(`the path ${rawPath} leaves the API base`, 'paths are relative to the base URL (/api/v1)');
  if (method === 'DELETE' && opts.confirm !== true) {
    throw new UsageError(`DELETE ${path} is irreversible (an erasure through the escape hatch is still an erasure); nothing was sent`, `add --confirm: callctl api DELETE ${path} --confirm`);
  }
  const fields: Record<string, unknown> = {};
  for (const f of strings(opts.field)) {
    const eq = f.indexOf('=');
    if (eq <= 0) throw new UsageError(`-f ${f} is not key=value`);
    fields[f.slice(0, eq)] = fieldValue(f.slice(eq + 1));
  }
  const paginate = opts.paginate === true;
  if (paginate && method !== 'GET') throw new UsageError('--paginate follows the pages of a GET');
  const input = str(opts.input);
  if (input !== undefined && (method === 'GET' || method === 'DELETE')) throw new UsageError(`--input makes no sense with ${method}`);
  return { method, path, query: Object.fromEntries(new URLSearchParams(queryPart ?? '')), fields, input, paginate };
}
