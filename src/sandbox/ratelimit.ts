/**
 * The sandbox's rate limit, in the shapes real APIs use, so that callctl's pacing can be proven
 * against each (docs/commands/sandbox.md, "Rate limit"): a token bucket (the default), fixed windows
 * aligned to the clock, a sliding window, and a cap on requests being answered at once. Each is
 * kept per key, takes the time from its caller (the simulation in test/ drives the same classes
 * on a virtual clock), and says where it stands in one of the published header forms — or in
 * none, to model a service that answers only `429` + `Retry-After`.
 *
 * A 429 costs no token and takes no place in a window: a client that backs off is not punished
 * for asking.
 */

export type LimiterShape = 'bucket' | 'window' | 'sliding' | 'concurrency';
export type HeaderStyle = 'none' | 'draft6' | 'draft8' | 'x';

export const LIMITER_SHAPES: readonly LimiterShape[] = ['bucket', 'window', 'sliding', 'concurrency'];
export const HEADER_STYLES: readonly HeaderStyle[] = ['none', 'draft6', 'draft8', 'x'];

/** The verdict on one request. */
export interface Admission {
  allowed: boolean;
  /** Rate-limit headers (and `retry-after` on a 429), lower-case names. */
  headers: Record<string, string>;
  /** Concurrency cap: call when the admitted request has been answered. */
  release?: () => void;
}

export interface RateLimitOptions {
  shape?: LimiterShape;
  /** Requests per second (bucket refill; window and sliding: quota = rate × window). 0: no limit. */
  rate: number;
  /** Bucket size (default: the rate, at least 1). */
  burst?: number;
  /** Window length for `window` and `sliding` (ms, default 1000). */
  windowMs?: number;
  /** `concurrency`: most requests being answered at once. */
  maxInflight?: number;
  headers?: HeaderStyle;
}

/** Where a key's limit stands, before it is written in a header form. */
interface Standing {
  limit: number;
  remaining: number;
  /** Seconds until the quota is whole again. */
  resetSec: number;
  /** The policy's window in seconds (draft 8's `w`). */
  windowSec: number;
  /** On a 429: seconds to wait. */
  retryAfterSec?: number;
}

interface Shape {
  admit(key: string, now: number): { allowed: boolean; standing: Standing; release?: () => void };
}

class Bucket implements Shape {
  private readonly keys = new Map<string, { tokens: number; at: number }>();
  constructor(
    private readonly rate: number,
    private readonly burst: number,
  ) {}

  admit(key: string, now: number) {
    let b = this.keys.get(key);
    if (!b) this.keys.set(key, (b = { tokens: this.burst, at: now }));
    b.tokens = Math.min(this.burst, b.tokens + (Math.max(0, now - b.at) / 1000) * this.rate);
    b.at = now;
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    const standing: Standing = {
      limit: this.burst,
      remaining: Math.floor(b.tokens),
      resetSec: Math.ceil((this.burst - b.tokens) / this.rate),
      // The policy a bucket publishes: its refill per second.
      windowSec: 1,
    };
    if (!allowed) standing.retryAfterSec = Math.max(1, Math.ceil((1 - b.tokens) / this.rate));
    return { allowed, standing };
  }
}

/** What the fixed and the sliding window share: `quota` requests a `windowMs`, and how a key stands. */
abstract class Windowed implements Shape {
  constructor(
    protected readonly quota: number,
    protected readonly windowMs: number,
  ) {}

  abstract admit(key: string, now: number): { allowed: boolean; standing: Standing };

  /** The verdict when `used` of the quota is taken and it is whole again in `untilSec` seconds. */
  protected verdict(allowed: boolean, used: number, untilSec: number): { allowed: boolean; standing: Standing } {
    const standing: Standing = { limit: this.quota, remaining: this.quota - used, resetSec: untilSec, windowSec: Math.max(1, Math.round(this.windowMs / 1000)) };
    if (!allowed) standing.retryAfterSec = untilSec;
    return { allowed, standing };
  }
}

/** Fixed windows aligned to the clock, each admitting `quota` requests. */
class FixedWindow extends Windowed {
  private readonly keys = new Map<string, { start: number; used: number }>();

  admit(key: string, now: number) {
    const start = Math.floor(now / this.windowMs) * this.windowMs;
    let w = this.keys.get(key);
    if (!w || w.start !== start) this.keys.set(key, (w = { start, used: 0 }));
    const allowed = w.used < this.quota;
    if (allowed) w.used += 1;
    return this.verdict(allowed, w.used, Math.max(1, Math.ceil((start + this.windowMs - now) / 1000)));
  }
}

/** At most `quota` admitted requests in any `windowMs` (a sliding log). */
class SlidingWindow extends Windowed {
  private readonly keys = new Map<string, { times: Float64Array; head: number; size: number }>();

  admit(key: string, now: number) {
    let log = this.keys.get(key);
    if (!log) this.keys.set(key, (log = { times: new Float64Array(this.quota), head: 0, size: 0 }));
    while (log.size > 0 && (log.times[log.head] as number) <= now - this.windowMs) {
      log.head = (log.head + 1) % this.quota;
      log.size -= 1;
    }
    const allowed = log.size < this.quota;
    if (allowed) {
      log.times[(log.head + log.size) % this.quota] = now;
      log.size += 1;
    }
    const oldest = log.size > 0 ? (log.times[log.head] as number) : now;
    return this.verdict(allowed, log.size, Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)));
  }
}

/** At most `max` requests being answered at once; over it, 429 with `Retry-After: 1`. */
class ConcurrencyCap implements Shape {
  private readonly inflight = new Map<string, number>();
  constructor(private readonly max: number) {}

  admit(key: string, now: number) {
    void now;
    const n = this.inflight.get(key) ?? 0;
    const allowed = n < this.max;
    if (!allowed) return { allowed, standing: { limit: this.max, remaining: 0, resetSec: 1, windowSec: 1, retryAfterSec: 1 } };
    this.inflight.set(key, n + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.inflight.set(key, (this.inflight.get(key) ?? 1) - 1);
    };
    return { allowed, standing: { limit: this.max, remaining: this.max - n - 1, resetSec: 0, windowSec: 1 }, release };
  }
}

/** Writes a standing in one published form. `nowMs` is wall time, for a Unix-time reset. */
function headersFor(style: HeaderStyle, s: Standing, policyLimit: number, nowMs: number): Record<string, string> {
  const h: Record<string, string> = {};
  switch (style) {
    case 'none':
      break;
    case 'draft6':
      h['ratelimit-limit'] = String(s.limit);
      h['ratelimit-remaining'] = String(s.remaining);
      h['ratelimit-reset'] = String(s.resetSec);
      break;
    case 'draft8':
      h['ratelimit-policy'] = `"default";q=${policyLimit};w=${s.windowSec}`;
      h.ratelimit = `"default";r=${s.remaining};t=${s.resetSec}`;
      break;
    case 'x':
      h['x-ratelimit-limit'] = String(s.limit);
      h['x-ratelimit-remaining'] = String(s.remaining);
      h['x-ratelimit-reset'] = String(Math.ceil(nowMs / 1000) + s.resetSec);
      break;
  }
  if (s.retryAfterSec !== undefined) h['retry-after'] = String(s.retryAfterSec);
  return h;
}

/** One rate limit for the whole sandbox, per key, in the chosen shape and header form. */
export class RateLimit {
  private readonly shape: Shape | undefined;
  private readonly style: HeaderStyle;
  private readonly policyLimit: number;

  constructor(
    o: RateLimitOptions,
    private readonly now: () => number = () => performance.now(),
    private readonly wallNow: () => number = () => Date.now(),
  ) {
    this.style = o.headers ?? 'draft6';
    const shape = o.shape ?? 'bucket';
    const windowMs = o.windowMs ?? 1000;
    const quota = Math.max(1, Math.round((o.rate * windowMs) / 1000));
    this.policyLimit = shape === 'bucket' ? Math.max(1, Math.round(o.rate)) : shape === 'concurrency' ? (o.maxInflight ?? 1) : quota;
    if (shape === 'concurrency') this.shape = new ConcurrencyCap(Math.max(1, o.maxInflight ?? 1));
    else if (o.rate <= 0) this.shape = undefined;
    else if (shape === 'bucket') this.shape = new Bucket(o.rate, o.burst ?? Math.max(1, Math.round(o.rate)));
    else if (shape === 'window') this.shape = new FixedWindow(quota, windowMs);
    else this.shape = new SlidingWindow(quota, windowMs);
  }

  get enabled(): boolean {
    return this.shape !== undefined;
  }

  /** Decides on one request by `key` now. */
  admit(key: string): Admission {
    if (!this.shape) return { allowed: true, headers: {} };
    const v = this.shape.admit(key, this.now());
    // A cap on requests in flight has no quota over time to publish: only Retry-After on a 429.
    const style = this.shape instanceof ConcurrencyCap ? 'none' : this.style;
    const out: Admission = { allowed: v.allowed, headers: headersFor(style, v.standing, this.policyLimit, this.wallNow()) };
    if (v.release) out.release = v.release;
    return out;
  }
}
