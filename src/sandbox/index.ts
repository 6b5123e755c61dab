/**
 * `startSandbox()`: the local implementation of the Customer API (docs/commands/sandbox.md) as a module —
 * tests start it on port 0 in their own process, `callctl sandbox` runs it until killed.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FaultPlan } from './faults.js';
import { RateLimit, type HeaderStyle, type LimiterShape } from './ratelimit.js';
import { pipeline, type Keys, type SandboxStats } from './pipeline.js';
import { type Call, type Contact, seedStore, SOURCE_FIELD, Store, type StoredState } from './store.js';

export type { Call, Contact, SandboxStats };

export interface SandboxOptions {
  /** Default 4010; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Requests per second per key (default 20); 0 turns limiting off. */
  rateLimit?: number;
  /** Token-bucket size (default: the rate). */
  burst?: number;
  /** Share of requests that fail (0–1). */
  faults?: number;
  /** How long a held-back reply waits (default 5000 ms). */
  faultDelayMs?: number;
  /** Create this many calls and their contacts. */
  seed?: number;
  /** Load state from this file at start (if it exists), save it at close. */
  dataFile?: string;
  /** The limiter's shape (default `bucket`). */
  limiter?: LimiterShape;
  /** Window length for `window` and `sliding` (ms, default 1000). */
  windowMs?: number;
  /** `concurrency`: most requests being answered at once. */
  maxInflight?: number;
  /** Every admitted request takes this long to answer (ms). */
  latencyMs?: number;
  /** A network's one-way delay (ms): each request reaches the limiter, and each answer leaves, this much later. */
  wireDelayMs?: number;
  /**
   * The rate-limit headers answers carry (default `draft6`); `none` (or false) models a service
   * that says nothing but 429 + Retry-After.
   */
  rateLimitHeaders?: HeaderStyle | boolean;
  random?: () => number;
  /** The limiter's clock in ms (default performance.now): a test moves its own instead of waiting. */
  now?: () => number;
  /** How the wire's delay, the latency and a held reply are waited out (default timers): a test records them instead. */
  wait?: (ms: number) => Promise<void>;
  keys?: Partial<Keys>;
  /** The name of a call's source field (default `channel`); `callctl sandbox` checks it (commands/sandbox/call-fields.ts). */
  callSourceField?: string;
}


export interface Sandbox {
  baseUrl: string;
  origin: string;
  secretKey: string;
  readOnlyKey: string;
  widgetKey: string;
  contacts(): Contact[];
  calls(): Call[];
  stats(): SandboxStats;
  setFaults(share: number): void;
  /** For `ms`, refuse every connection (listener closed) or accept and drop each one. */
  outage(ms: number, mode?: 'refuse' | 'drop'): void;
  close(): Promise<void>;
}

function rateLimitOf(opts: SandboxOptions, rate: number): RateLimit {
  const style = opts.rateLimitHeaders;
  const headers: HeaderStyle = style === false ? 'none' : style === true || style === undefined ? 'draft6' : style;
  return new RateLimit(
    {
      shape: opts.limiter ?? 'bucket',
      rate,
      ...(opts.burst !== undefined ? { burst: opts.burst } : {}),
      ...(opts.windowMs !== undefined ? { windowMs: opts.windowMs } : {}),
      ...(opts.maxInflight !== undefined ? { maxInflight: opts.maxInflight } : {}),
      headers,
    },
    opts.now,
  );
}

/** The default of `wait`: a timer that keeps no process alive (a reply held back after close is dropped). */
const unrefWait = (ms: number) => new Promise<void>((done) => setTimeout(done, ms).unref());

const key = (prefix: string) => `${prefix}${randomBytes(18).toString('hex')}`;

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const host = opts.host ?? '127.0.0.1';
  const rate = opts.rateLimit ?? 20;
  const keys: Keys = { secret: opts.keys?.secret ?? key('sk_live_'), readOnly: opts.keys?.readOnly ?? key('sk_live_'), widget: opts.keys?.widget ?? key('pk_live_') };
  const store = new Store(undefined, opts.callSourceField ?? SOURCE_FIELD);
  if (opts.dataFile) {
    let text: string | undefined;
    try {
      text = readFileSync(opts.dataFile, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (text !== undefined) store.load(JSON.parse(text) as StoredState);
  }
  const stats: SandboxStats = { requests: 0, throttled: 0, faults: 0, byRoute: {} };
  const faults = new FaultPlan(opts.faults ?? 0, opts.random ?? Math.random);
  const sockets = new Set<Socket>();
  let dropping = false;
  let outageTimer: NodeJS.Timeout | undefined;
  let closed = false;

  const server: Server = createServer({ keepAliveTimeout: 30_000 });
  server.on('connection', (socket: Socket) => {
    if (dropping) return void socket.destroy();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const listen = (port: number) =>
    new Promise<void>((ready, fail) => {
      server.once('error', fail);
      server.listen(port, host, () => {
        server.off('error', fail);
        ready();
      });
    });

  // A new outage replaces the one under way (drop after refuse listens again; refuse after drop
  // stops dropping), and its end always leaves the sandbox listening and serving.
  const relisten = () => {
    if (!closed && !server.listening) void listen(port).catch(() => undefined);
  };
  function outage(ms: number, mode: 'refuse' | 'drop' = 'refuse'): void {
    if (closed) return;
    clearTimeout(outageTimer);
    for (const s of sockets) s.destroy();
    dropping = mode === 'drop';
    if (dropping) relisten();
    else if (server.listening) server.close();
    outageTimer = setTimeout(() => {
      dropping = false;
      relisten();
    }, ms);
  }

  server.on(
    'request',
    pipeline({ store, keys, limit: rateLimitOf(opts, rate), latencyMs: opts.latencyMs ?? 0, wireDelayMs: opts.wireDelayMs ?? 0, wait: opts.wait ?? unrefWait, faults, faultDelayMs: opts.faultDelayMs ?? 5000, stats, outage }),
  );
  await listen(opts.port ?? 4010);
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (opts.seed) seedStore(store, opts.seed, origin);

  return {
    baseUrl: `${origin}/api/v1`,
    origin,
    secretKey: keys.secret,
    readOnlyKey: keys.readOnly,
    widgetKey: keys.widget,
    contacts: () => store.allContacts(),
    calls: () => store.allCalls(),
    stats: () => structuredClone(stats),
    setFaults: (share) => void (faults.share = share),
    outage,
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(outageTimer);
      try {
        if (opts.dataFile) {
          writeFileSync(`${opts.dataFile}.tmp`, JSON.stringify(store.snapshot()));
          renameSync(`${opts.dataFile}.tmp`, opts.dataFile);
        }
      } finally {
        for (const s of sockets) s.destroy();
        if (server.listening) await new Promise((done) => server.close(() => done(undefined)));
      }
    },
  };
}
