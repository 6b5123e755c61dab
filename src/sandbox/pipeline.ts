/**
 * The sandbox's request pipeline, the same for both surfaces: the body limit, then the surface's
 * key (REST: a secret key by bearer, with scopes; the public callback: the widget key by
 * X-Widget-Key — neither takes the other's), then the key's token bucket, then the fault mix,
 * then the endpoint (route, scope, JSON body, the change). Also the `/_sandbox/` controls
 * (stats, outage) that benchmarks use when the sandbox runs as its own process.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Answer, failure, MAX_BODY_BYTES, readBody, send as sendNow } from './http.js';
import type { FaultPlan } from './faults.js';
import type { RateLimit } from './ratelimit.js';
import { callbackRoute, route, type Route, type Scope } from './routes.js';
import type { Store } from './store.js';

export interface Keys {
  secret: string;
  readOnly: string;
  widget: string;
}

export interface SandboxStats {
  /** Requests answered or faulted on the API surfaces (429s included). */
  requests: number;
  /** 429 answers sent. */
  throttled: number;
  /** Requests given a fault. */
  faults: number;
  /** Requests per route name, e.g. `POST /contacts` (429s and faults included). */
  byRoute: Record<string, number>;
}

export interface PipelineOptions {
  store: Store;
  keys: Keys;
  limit: RateLimit;
  /** Every admitted request takes this long to answer (ms). */
  latencyMs: number;
  /** A network's one-way delay (ms): each request reaches the limiter, and each answer leaves, this much later. */
  wireDelayMs: number;
  /** Waits out the wire's delay, the latency and a held reply (index.ts: timers, or a test's own). */
  wait(ms: number): Promise<void>;
  faults: FaultPlan;
  faultDelayMs: number;
  stats: SandboxStats;
  /** Starts an outage (admin endpoint). */
  outage(ms: number, mode: 'refuse' | 'drop'): void;
}

const CALLBACK_PATH = '/api/public/callback';
const REST_PREFIX = '/api/v1/';

/** The scopes of each secret key; the widget key has none (it is not a secret key). */
export function scopesOf(keys: Keys): Map<string, Set<Scope>> {
  return new Map([
    [keys.secret, new Set<Scope>(['contacts:read', 'contacts:write', 'calls:read', 'calls:write'])],
    [keys.readOnly, new Set<Scope>(['contacts:read', 'calls:read'])],
  ]);
}

function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  const m = typeof h === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m?.[1];
}

/** Who is asking: the key and what it may do, or the 401 to answer. */
type Caller = { key: string; scopes: ReadonlySet<Scope> } | { refused: string };

/** Returns the request handler of a sandbox. */
export function pipeline(o: PipelineOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const secretScopes = scopesOf(o.keys);
  const callback = callbackRoute(o.store);
  const noScopes: ReadonlySet<Scope> = new Set();
  const count = (name: string) => {
    o.stats.requests += 1;
    o.stats.byRoute[name] = (o.stats.byRoute[name] ?? 0) + 1;
  };

  // Every answer — a 429 too — crosses the wire back (`--wire-delay`).
  const send = (res: ServerResponse, answer: Answer, extra?: Record<string, string>): void => {
    if (o.wireDelayMs > 0) void o.wait(o.wireDelayMs).then(() => sendNow(res, answer, extra));
    else sendNow(res, answer, extra);
  };

  return (req, res) => {
    void handle(req, res).catch((err: unknown) => {
      send(res, failure(500, 'internal', `sandbox error: ${(err as Error).message}`));
    });
  };

  function restCaller(req: IncomingMessage): Caller {
    const key = bearer(req);
    if (key === undefined) {
      return { refused: req.headers['x-widget-key'] !== undefined ? 'the widget key is not accepted here: use a secret key (Authorization: Bearer sk_live_…)' : 'missing Authorization: Bearer <secret key>' };
    }
    const scopes = secretScopes.get(key);
    if (scopes) return { key, scopes };
    return { refused: key === o.keys.widget ? 'a widget key is not accepted here: use a secret key' : 'unknown API key' };
  }

  function widgetCaller(req: IncomingMessage): Caller {
    const widget = req.headers['x-widget-key'];
    if (widget === o.keys.widget) return { key: widget, scopes: noScopes };
    const secret = bearer(req) !== undefined || (typeof widget === 'string' && secretScopes.has(widget));
    return { refused: secret ? 'a secret key is not accepted here: the callback takes the widget key (X-Widget-Key)' : 'missing or unknown X-Widget-Key' };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const method = req.method ?? 'GET';
    const path = url.pathname;
    if (path.startsWith('/_sandbox/')) return admin(method, url, res);

    const isCallback = path === CALLBACK_PATH;
    if (!isCallback && !path.startsWith(REST_PREFIX)) return send(res, failure(404, 'not_found', `no such path ${path}`));

    // Split before decoding: an encoded "/" stays inside its segment.
    let segments: string[] = [];
    if (!isCallback) {
      try {
        segments = path.slice(REST_PREFIX.length).split('/').map(decodeURIComponent);
      } catch {
        return send(res, failure(404, 'not_found', 'malformed path'));
      }
    }
    const r: Route | undefined = isCallback ? (method === 'POST' ? callback : undefined) : route(o.store, method, segments);
    count(r?.name ?? `${method} ${path}`);

    const raw = await readBody(req);
    if (raw === undefined) {
      // Stop reading: answer at once and close, rather than take in the rest of a huge body.
      res.once('finish', () => req.socket.destroy());
      return send(res, failure(413, 'body_too_large', `the body is over ${MAX_BODY_BYTES / 1024} KiB`), { connection: 'close' });
    }

    if (o.wireDelayMs > 0) await o.wait(o.wireDelayMs);
    const caller = isCallback ? widgetCaller(req) : restCaller(req);
    if ('refused' in caller) return send(res, failure(401, 'unauthorized', caller.refused));

    const verdict = o.limit.admit(caller.key);
    const headers = verdict.headers;
    if (!verdict.allowed) {
      o.stats.throttled += 1;
      return send(res, failure(429, 'rate_limited', 'too many requests: slow down'), headers);
    }
    // A concurrency cap counts the request until its answer is out (or the client is gone).
    if (verdict.release) {
      res.once('close', verdict.release);
      res.once('finish', verdict.release);
    }
    if (o.latencyMs > 0) await o.wait(o.latencyMs);

    // Everything after the gate is the endpoint's: route, scope, body, then the change itself.
    const answer = (): Answer => {
      if (!r) return failure(404, 'not_found', `no such endpoint ${method} ${path}`);
      if (r.scope && !caller.scopes.has(r.scope)) return failure(403, 'forbidden', `this key lacks the scope ${r.scope}`);
      let body: unknown;
      if (raw.length > 0) {
        if (!/^application\/json\b/i.test(String(req.headers['content-type'] ?? ''))) return failure(415, 'unsupported_media_type', 'send the body as Content-Type: application/json');
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          return failure(400, 'malformed_json', 'the body is not valid JSON');
        }
      }
      return r.handle({ method, segments, query: url.searchParams, body });
    };

    const fault = o.faults.next();
    if (!fault) return send(res, answer(), headers);
    o.stats.faults += 1;
    // On a write, a fault may strike after the change was made: the client cannot tell.
    const applied = r?.write && fault.afterApply ? answer() : undefined;
    switch (fault.kind) {
      case 'error500':
        return send(res, failure(500, 'internal', 'simulated server error'), headers);
      case 'error503':
        return send(res, failure(503, 'unavailable', 'simulated outage, try again'), headers);
      case 'drop':
        req.socket.destroy();
        return;
      case 'delay':
        void o.wait(o.faultDelayMs).then(() => send(res, applied ?? answer(), headers));
        return;
    }
  }

  function admin(method: string, url: URL, res: ServerResponse): void {
    if (method === 'GET' && url.pathname === '/_sandbox/stats') {
      return send(res, { status: 200, body: { ...o.stats, contacts: o.store.contactCount(), calls: o.store.callCount() } });
    }
    if (method === 'POST' && url.pathname === '/_sandbox/outage') {
      const ms = Number(url.searchParams.get('ms'));
      const mode = url.searchParams.get('mode') ?? 'refuse';
      if (!Number.isFinite(ms) || ms <= 0 || ms > 600_000 || (mode !== 'refuse' && mode !== 'drop')) {
        return send(res, failure(422, 'invalid_field', 'give ms (1–600000) and mode refuse|drop'));
      }
      send(res, { status: 202, body: { outage: { ms, mode } } });
      res.on('finish', () => o.outage(ms, mode));
      return;
    }
    send(res, failure(404, 'not_found', 'unknown sandbox control'));
  }
}
