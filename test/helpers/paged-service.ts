/**
 * A service of the tests' own that pages its lists the ways real services do, none of them the
 * sandbox's: one server, its mode in the path — `/m/<form>/<cap>/<run>/api/v1/…` — so one process
 * serves every paging form and cap, and every run its own data (a run that erases changes only its
 * own). `cap`: the most items a page holds whatever `limit` asks, said nowhere but where the form
 * echoes the limit applied. Forms:
 * - `echo`: `{data, pagination: {page, limit}}` — the limit applied, nothing else;
 * - `hasMore`: `{data, pagination: {page, hasMore}}`;
 * - `total`: `{data, pagination: {page, total}}`;
 * - `bare`: `{data}` only;
 * - `askedOffset`: bare, and page N starts at (N − 1) × the limit *asked* (a service that counts
 *   its pages by what was asked and then cuts the page short: a reader asking more than it gives
 *   skips what falls between).
 * Lists: contacts and calls, made per run by `data(run)`; GET, POST and DELETE of a contact by id.
 */
import { createServer, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './scripted-server.js';

export type Form = 'echo' | 'hasMore' | 'total' | 'bare' | 'askedOffset';
export const FORMS: Form[] = ['echo', 'hasMore', 'total', 'bare'];
export const CAPS = [10, 20, 50, 100];

type Item = Record<string, unknown> & { id: string };
export interface RunData {
  contacts: Item[];
  calls: Item[];
}

export interface PagedService {
  /** The base URL of one run of a mode. */
  baseUrl(form: Form, cap: number, run: string): string;
  /** A run's data as the service holds it now. */
  data(form: Form, cap: number, run: string): RunData;
  /** Every request a run received: method and path with its query. */
  hits(form: Form, cap: number, run: string): string[];
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Starts the service on 127.0.0.1; closed when the test ends. `make` builds a run's data when it is first asked for. */
export async function pagedService(t: { after(fn: () => unknown): void }, make: () => RunData): Promise<PagedService> {
  const runs = new Map<string, { data: RunData; hits: string[] }>();
  const runOf = (key: string) => {
    let r = runs.get(key);
    if (r === undefined) runs.set(key, (r = { data: make(), hits: [] }));
    return r;
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const m = /^\/m\/(\w+)\/(\d+)\/([\w-]+)\/api\/v1(\/.*)$/.exec(url.pathname);
      if (!m) return send(res, 404, { error: { code: 'not_found', message: 'no such mode' } });
      const [, form, capText, run, path] = m as unknown as [string, Form, string, string, string];
      const cap = Number(capText);
      const r = runOf(`${form}/${cap}/${run}`);
      r.hits.push(`${req.method} ${path}${url.search}`);
      const list = path === '/contacts' ? r.data.contacts : path === '/calls' ? r.data.calls : undefined;
      if (list !== undefined && req.method === 'GET') {
        const page = Number(url.searchParams.get('page') ?? '1');
        const asked = Number(url.searchParams.get('limit') ?? '50');
        const applied = Math.min(asked, cap);
        const from = (page - 1) * (form === 'askedOffset' ? asked : applied);
        const data = list.slice(from, from + applied);
        const pagination = form === 'echo' ? { page, limit: applied } : form === 'hasMore' ? { page, hasMore: from + applied < list.length } : form === 'total' ? { page, total: list.length } : undefined;
        return send(res, 200, pagination ? { data, pagination } : { data });
      }
      const one = /^\/contacts\/([^/]+)$/.exec(path);
      if (one) {
        const at = r.data.contacts.findIndex((c) => c.id === decodeURIComponent(one[1] as string));
        if (at < 0) return send(res, 404, { error: { code: 'not_found', message: 'no such contact' } });
        if (req.method === 'DELETE') {
          r.data.contacts.splice(at, 1);
          return send(res, 204);
        }
        return send(res, 200, r.data.contacts[at]);
      }
      send(res, 404, { error: { code: 'not_found', message: `no route ${req.method} ${path}` } });
    });
  });
  const port = await listenOnLoopback(t, server);
  return {
    baseUrl: (form, cap, run) => `http://127.0.0.1:${port}/m/${form}/${cap}/${run}/api/v1`,
    data: (form, cap, run) => runOf(`${form}/${cap}/${run}`).data,
    hits: (form, cap, run) => runOf(`${form}/${cap}/${run}`).hits,
  };
}
