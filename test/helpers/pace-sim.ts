/**
 * A deterministic simulation of one import against a rate-limited server, on a virtual clock:
 * the client is callctl's own PaceGate (pacer, spacing, quota mirror, pauses, burst after a
 * pause, window), the server is the sandbox's own RateLimit in any shape and header form, and the
 * wire is a loopback with a little jitter. Minutes of simulated time run in milliseconds, so the
 * pacing is tuned and proven here, and only confirmed over real HTTP in the benchmark.
 */
import { PaceGate, parseRateLimit, parseRetryAfter, type Limit, type Ticket } from '../../src/pace/index.js';
import { RateLimit, type HeaderStyle, type LimiterShape } from '../../src/sandbox/ratelimit.js';
import { realLimiter, type RealLimiter } from './real-limiters.js';

export interface SimServer {
  shape: LimiterShape;
  /** Requests per second (bucket refill; windows: quota = rate × window). */
  rate: number;
  burst?: number;
  windowMs?: number;
  maxInflight?: number;
  /** Server time per admitted request (ms). */
  latencyMs?: number;
  headers: HeaderStyle;
  /** Answer 429 without Retry-After (a server that says nothing at all). */
  dropRetryAfter?: boolean;
  /**
   * One of the limiters services really run (real-limiters.ts) instead of the sandbox's: `shape`,
   * `rate`, `burst`, `windowMs`, `maxInflight` then describe it for the ideal (idealWall).
   */
  real?: RealLimiter;
}

export interface SimOptions {
  /** Rows to import (default: 30 seconds' worth at the limit). */
  rows?: number;
  seconds?: number;
  concurrency?: number;
  /** --rate. */
  ceiling?: number;
  seed?: number;
  /** One way on the wire: at least `min` ms, plus up to `spread` (default: loopback, 0.1 + 0–0.6). */
  wire?: { min: number; spread: number };
  /** Another client on the same key from `fromMs` into the import, one request each `gapMs`. */
  other?: { fromMs: number; gapMs: number };
  /** The limit an earlier run left (its `snapshot`): this run starts from it. */
  remembered?: Limit;
}

export interface SimResult {
  rows: number;
  wallMs: number;
  /** The least wall time this server allows for these rows. */
  idealMs: number;
  /** idealMs / wallMs. */
  share: number;
  requests: number;
  throttled: number;
  /** throttled / requests. */
  share429: number;
  /** Share of the limit over the last half of the run (the sustained pace). */
  sustained: number;
  /** Whether a window's log still timed the starts at the end (docs/pacing.md rule 7). */
  anchored: boolean;
  /** The pace the pacer held at the end (requests per second). */
  pace: number;
  /** When the import began on the virtual clock (a Unix time in ms: a fixed window's phase). */
  startedAt: number;
  /** What the run knows of the limit at its end (what the memory keeps). */
  snapshot: Limit | undefined;
  /** Share of the limit after the first 20 s (the long import's column), when the run is longer. */
  after20: number;
  /** When each 429 came, in ms from the start, and the pace the gate held just after it (requests per second). */
  at429: number[];
  paceAfter429: number[];
  /** After each 429, how long the gate then held every start (ms; 0: an echo of a pause in force). */
  pauseAfter429: number[];
  /** When the rows admitted over the last 5 s first reached 95 % of the limit (ms from the start). */
  reached95: number | undefined;
}

/** mulberry32: a small seeded random in [0, 1). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The server's throughput in requests per second, for sizing a run. */
export function limitRate(s: SimServer): number {
  return s.shape === 'concurrency' ? ((s.maxInflight ?? 1) * 1000) / (s.latencyMs ?? 1) : s.rate;
}

/** The simulations' event queue: earliest first, in order of scheduling at equal times. */
export class Heap {
  private items: Array<{ t: number; seq: number; fn: () => void }> = [];
  private seq = 0;
  get size(): number {
    return this.items.length;
  }
  push(t: number, fn: () => void): void {
    const a = this.items;
    a.push({ t, seq: this.seq++, fn });
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (less(a[p]!, a[i]!)) break;
      [a[p], a[i]] = [a[i]!, a[p]!];
      i = p;
    }
  }
  /** Runs the events in order, each at its time (`at` sets the clock), until `done` or none is left (bounded). */
  run(done: () => boolean, at: (t: number) => void): void {
    for (let guard = 0; this.size > 0 && !done() && guard < 50_000_000; guard++) {
      const e = this.pop();
      at(e.t);
      e.fn();
    }
  }
  pop(): { t: number; fn: () => void } {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && less(a[l]!, a[m]!)) m = l;
        if (r < a.length && less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
  }
}
const less = (x: { t: number; seq: number }, y: { t: number; seq: number }) => x.t < y.t || (x.t === y.t && x.seq < y.seq);

/** The server's limiter: the sandbox's own classes, or one a service really runs (real-limiters.ts). */
export function serverLimit(server: SimServer, now: () => number): { admit(): import('../../src/sandbox/ratelimit.js').Admission } {
  if (server.real !== undefined) {
    const real = realLimiter(server.real);
    return { admit: () => real.admit(now(), now()) };
  }
  const limit = new RateLimit({ shape: server.shape, rate: server.rate, burst: server.burst, windowMs: server.windowMs, maxInflight: server.maxInflight, headers: server.headers }, now, now);
  return { admit: () => limit.admit('key') };
}

/** Runs one import of `rows` against `server` and measures it. */
export function simulate(server: SimServer, opts: SimOptions = {}): SimResult {
  const random = seeded(opts.seed ?? 1);
  const R = limitRate(server);
  // Windows: at least three windows' worth, or the whole import fits in the first one.
  const quota = server.shape === 'window' || server.shape === 'sliding' ? Math.round((server.rate * (server.windowMs ?? 1000)) / 1000) : 0;
  const rows = opts.rows ?? Math.max(Math.round((opts.seconds ?? 30) * R), 3 * quota);
  const concurrency = opts.concurrency ?? 4;
  const latency = server.latencyMs ?? 0;
  // A virtual wall clock (a Unix time, for X-RateLimit-Reset) starting at a random window phase.
  const t0 = 1_700_000_000_000 + Math.floor(random() * 60_000);
  let now = t0;
  const limit = serverLimit(server, () => now);
  const gate = new PaceGate({ ceiling: opts.ceiling, random });
  if (opts.remembered) gate.seed({ ...opts.remembered, endedAt: t0 - 3_600_000 }, t0);
  const events = new Heap();
  // A loaded machine stalls the client's event loop now and then (GC, other processes): nothing
  // on the client runs during a stall, and what was due runs when it ends, all at once.
  const stalls: Array<[number, number]> = [];
  for (let at = t0 + random() * 3000; at < t0 + 3_600_000; at += 1000 + random() * 9000) stalls.push([at, at + 10 + random() * 50]);
  let stallIndex = 0;
  const client = (t: number) => {
    while (stallIndex < stalls.length && (stalls[stallIndex] as [number, number])[1] <= t) stallIndex += 1;
    for (let i = stallIndex; i < stalls.length && (stalls[i] as [number, number])[0] <= t; i++) if (t < (stalls[i] as [number, number])[1]) return (stalls[i] as [number, number])[1];
    return t;
  };
  // Loopback with a little jitter each way.
  const wire = () => (opts.wire?.min ?? 0.1) + random() * (opts.wire?.spread ?? 0.6);

  let left = rows;
  let waiting = 0;
  const answerWaiters: Array<() => void> = [];
  let active = 0;
  let done = 0;
  let requests = 0;
  let throttled = 0;
  let halfAt = 0;
  let doneAt20 = -1;
  const doneTimes: number[] = [];
  let recentFrom = 0;
  let reached95: number | undefined;
  const at429: number[] = [];
  const paceAfter429: number[] = [];
  const pauseAfter429: number[] = [];
  let end = Number.NaN;

  const dispatch = () => {
    while (active < Math.min(concurrency, gate.window) && left > 0) {
      left -= 1;
      active += 1;
      attempt();
    }
  };
  // As limiter.ts asks: the pace is the bottleneck when this request was held by the gate already,
  // or others are held there (not when requests wait for a place in flight: --concurrency).
  const attempt = (held = false) => {
    const v = gate.start(now, held || waiting > 0);
    if ('retryAt' in v) {
      waiting += 1;
      let woken = false;
      const wake = () => {
        if (woken) return;
        woken = true;
        waiting -= 1;
        attempt(true);
      };
      // Held by a full window: the next answer frees it (as limiter.ts wakes it), or the timer.
      if (v.onFinish) answerWaiters.push(wake);
      // A timer fires late on a busy machine: by a millisecond or two, and now and then by 15.
      events.push(client(v.retryAt + random() * 2), wake);
      return;
    }
    send(v.ticket);
  };
  const send = (ticket: Ticket) => {
    requests += 1;
    events.push(now + wire(), () => {
      const verdict = limit.admit();
      const serverTime = verdict.allowed ? latency : 0;
      events.push(now + serverTime, () => {
        verdict.release?.();
        const status = verdict.allowed ? 200 : 429;
        if (server.dropRetryAfter) delete verdict.headers['retry-after'];
        events.push(client(now + wire()), () => answer(ticket, status, verdict.headers));
      });
    });
  };
  const answer = (ticket: Ticket, status: number, headers: Record<string, string>) => {
    active -= 1;
    if (process.env.SIM_TRACE === '2') console.log(`t=${((now - t0) / 1000).toFixed(4)} sent=${((ticket.sentAt - t0) / 1000).toFixed(4)} ${status} ${JSON.stringify(headers)} active=${active}`);
    gate.finish(ticket, { status, rateLimit: parseRateLimit(headers, now), retryAfterMs: parseRetryAfter(headers['retry-after'], now) }, now);
    for (const wake of answerWaiters.splice(0)) events.push(now, wake);
    if (status === 429) {
      if (process.env.SIM_TRACE) console.log(`t=${((now - t0) / 1000).toFixed(3)} 429 done=${done} pace=${gate.pace.toFixed(1)} window=${gate.window} burst=${gate.burstAfter()} anchor=${JSON.stringify(gate.anchor())} resume+${(gate.resumeAt - now).toFixed(0)}`);
      throttled += 1;
      at429.push(now - t0);
      pauseAfter429.push(Math.max(0, gate.resumeAt - now));
      paceAfter429.push(gate.pace);
      left += 1;
    } else {
      done += 1;
      if (process.env.SIM_TRACE && done % Math.round(R) === 0) console.log(`t=${((now - t0) / 1000).toFixed(3)} done=${done} pace=${gate.pace.toFixed(1)}`);
      if (done === Math.ceil(rows / 2)) halfAt = now;
      if (doneAt20 < 0 && now - t0 >= 20_000) doneAt20 = done;
      doneTimes.push(now - t0);
      while ((doneTimes[recentFrom] as number) < now - t0 - 5000) recentFrom += 1;
      if (reached95 === undefined && now - t0 >= 5000 && doneTimes.length - recentFrom >= 0.95 * R * 5) reached95 = now - t0;
      if (done === rows) end = now;
    }
    dispatch();
  };

  if (opts.other) {
    const { fromMs, gapMs } = opts.other;
    const other = () => {
      limit.admit();
      if (done < rows) events.push(now + gapMs, other);
    };
    events.push(t0 + fromMs, other);
  }
  dispatch();
  events.run(() => done >= rows, (t) => (now = t));
  const wallMs = end - t0;
  // Over a wire, each request holds its place in flight for a round trip: 8 in flight 60 ms away
  // send at most 8 in 120 ms, whatever the limit.
  const idealMs = idealWall(server, rows, concurrency, t0, opts.wire ? 2 * (opts.wire.min + opts.wire.spread / 2) : undefined);
  const secondHalf = rows - Math.ceil(rows / 2);
  const sustained = secondHalf / ((end - halfAt) / 1000) / R;
  // After 20 s: the least time the limit allows for the rows done after 20 s (the ideal's time to
  // all rows less its time to those done by then), over the time they took. A window's ideal moves
  // a quota at a time: counted from the first row of a quota done after 20 s, and only with three
  // quotas or more after it (NaN otherwise).
  const wireMs = opts.wire ? 2 * (opts.wire.min + opts.wire.spread / 2) : undefined;
  const from = doneAt20 < 0 ? -1 : quota > 0 ? Math.ceil((doneAt20 - 1) / quota) * quota + 1 : doneAt20;
  const after20 = from < 0 || rows - from < 3 * quota ? Number.NaN : (idealMs - idealWall(server, from, concurrency, t0, wireMs)) / (end - t0 - (doneTimes[from - 1] as number));
  return { rows, wallMs, idealMs, share: idealMs / wallMs, requests, throttled, share429: throttled / requests, sustained, anchored: gate.anchor() !== undefined, pace: gate.pace, startedAt: t0, snapshot: gate.snapshot(now), after20, at429, paceAfter429, pauseAfter429, reached95 };
}

/**
 * The least wall time the server allows for `rows` requests started at `t0`, with `concurrency` in
 * flight each holding its place for the server's time and `wireMs` on the way there and back.
 */
export function idealWall(s: SimServer, rows: number, concurrency: number, t0: number, wireMs = 0.5): number {
  const latency = s.latencyMs ?? 0;
  const clientBound = (rows * (latency + wireMs)) / concurrency;
  let serverBound: number;
  switch (s.shape) {
    case 'bucket': {
      const burst = s.burst ?? Math.max(1, Math.round(s.rate));
      serverBound = (Math.max(0, rows - burst) / s.rate) * 1000;
      break;
    }
    case 'window': {
      const W = s.windowMs ?? 1000;
      const quota = Math.max(1, Math.round((s.rate * W) / 1000));
      const extra = Math.ceil(rows / quota) - 1;
      serverBound = extra <= 0 ? 0 : W - (t0 % W) + (extra - 1) * W;
      break;
    }
    case 'sliding': {
      const W = s.windowMs ?? 1000;
      const quota = Math.max(1, Math.round((s.rate * W) / 1000));
      serverBound = Math.floor((rows - 1) / quota) * W;
      break;
    }
    case 'concurrency':
      serverBound = (rows * latency) / (s.maxInflight ?? 1);
      break;
  }
  return Math.max(clientBound, serverBound);
}
