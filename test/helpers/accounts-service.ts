/**
 * A contacts service of the tests' own with several accounts behind one base URL, one per secret
 * key, each numbering its contacts 1, 2, 3 — the service the sandbox is not (its ids differ per
 * sandbox, and it has one account). POST matches an existing contact by its E.164 phone (200,
 * fields merged) or creates one (201); GET lists (`{data, pagination: {page, limit, total}}`) and
 * reads one; PATCH and DELETE. Options model what the seed leaves unshown: `createdAt: false` — no
 * creation time on a contact; `lose(n)` — the n-th POST is stored and its answer lost (the
 * connection dropped); `defaults` — fields the service fills itself on a contact it creates.
 */
import { createServer } from 'node:http';
import { listenOnLoopback } from './scripted-server.js';

export type Stored = Record<string, unknown> & { id: string };

export interface AccountsService {
  baseUrl: string;
  /** An account's contacts, by its key. */
  contacts(key: string): Stored[];
  /** POSTs received, all accounts. */
  posts(): number;
}

export async function accountsService(
  t: { after(fn: () => unknown): void },
  keys: string[],
  o: { createdAt?: boolean; lose?: (post: number) => boolean; onPost?: (key: string, body: Record<string, unknown>) => void; defaults?: Record<string, unknown> } = {},
): Promise<AccountsService> {
  const accounts = new Map(keys.map((k) => [k, { contacts: [] as Stored[], next: 0 }]));
  let posts = 0;
  const digits = (p: unknown) => (typeof p === 'string' ? p.replace(/[\s().-]/g, '') : '');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body?: unknown) => {
        const text = body === undefined ? '' : JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      };
      const account = accounts.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!account) return send(401, { error: { message: 'unknown key' } });
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname.replace(/^\/api\/v1/, '');
      const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
      if (path === '/contacts' && req.method === 'GET') {
        const page = Number(url.searchParams.get('page') ?? '1');
        const limit = Math.min(Number(url.searchParams.get('limit') ?? '50'), 100);
        return send(200, { data: account.contacts.slice((page - 1) * limit, page * limit), pagination: { page, limit, total: account.contacts.length } });
      }
      if (path === '/contacts' && req.method === 'POST') {
        posts += 1;
        o.onPost?.((req.headers.authorization ?? '').replace(/^Bearer /, ''), body);
        const phone = digits(body.phone);
        let c = phone.startsWith('+') ? account.contacts.find((x) => digits(x.phone) === phone) : undefined;
        const status = c ? 200 : 201;
        if (c) Object.assign(c, body);
        else account.contacts.push((c = { id: String(++account.next), ...o.defaults, ...body, ...(o.createdAt === false ? {} : { createdAt: new Date().toISOString() }) }));
        if (o.lose?.(posts)) {
          res.destroy();
          return;
        }
        return send(status, c);
      }
      const one = /^\/contacts\/([^/]+)$/.exec(path);
      const at = one ? account.contacts.findIndex((c) => c.id === decodeURIComponent(one[1] as string)) : -1;
      if (!one || at < 0) return send(404, { error: { message: 'not found' } });
      if (req.method === 'DELETE') {
        account.contacts.splice(at, 1);
        return send(204);
      }
      if (req.method === 'PATCH') Object.assign(account.contacts[at] as Stored, body);
      return send(200, account.contacts[at]);
    });
  });
  const port = await listenOnLoopback(t, server);
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    contacts: (key) => accounts.get(key)?.contacts ?? [],
    posts: () => posts,
  };
}
