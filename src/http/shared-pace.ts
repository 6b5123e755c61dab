/**
 * One pace for every process sharing a budget through Redis (docs/pacing.md, "One budget, several
 * processes"). Pure: the Redis side (shared-limiter.ts) carries answers and settings; this part
 * learns — so the simulation drives it as it does the single-process pacer.
 *
 * Each process alone sees only its share of what the server admitted, so a pace learnt from its
 * own answers is a third of the limit when three run, and three processes each writing their own
 * pace into one shared spacing overwrite each other. Instead every process publishes its answers,
 * and one of them — the leader, whoever holds the lock — feeds them all into one Pacer, as if one
 * process had sent every request. The pace that Pacer finds is the shared spacing, which every
 * process follows until the leader leaves and another takes over from the pace it left.
 */
import { Pacer } from './pacer.js';
import type { RateLimitInfo } from './ratelimit-headers.js';

/** One answer as it travels between processes. */
export interface SharedAnswer {
  /** When it arrived and when its request was sent (ms since the epoch: one clock for all). */
  at: number;
  sentAt: number;
  status: number;
  retryAfterMs?: number | undefined;
  rateLimit?: RateLimitInfo | undefined;
}

const num = (s: string | undefined): number | undefined => (s === undefined || s === '' ? undefined : Number.isFinite(Number(s)) ? Number(s) : undefined);

/** A compact line for Redis: `at|sentAt|status|retryAfter|limit|remaining|reset|window`. */
export function encodeAnswer(a: SharedAnswer): string {
  const rl = a.rateLimit;
  const f = (v: number | undefined) => (v === undefined ? '' : String(Math.round(v)));
  return [f(a.at), f(a.sentAt), f(a.status), f(a.retryAfterMs), f(rl?.limit), f(rl?.remaining), f(rl?.resetMs), f(rl?.windowMs)].join('|');
}

/** The answer a line holds, or undefined for a line that is not one (another version's, say). */
export function decodeAnswer(line: string): SharedAnswer | undefined {
  const p = line.split('|');
  if (p.length !== 8) return undefined;
  const at = num(p[0]);
  const sentAt = num(p[1]);
  const status = num(p[2]);
  if (at === undefined || sentAt === undefined || status === undefined) return undefined;
  const rateLimit: RateLimitInfo = {};
  const fields = ['limit', 'remaining', 'resetMs', 'windowMs'] as const;
  fields.forEach((k, i) => {
    const v = num(p[4 + i]);
    if (v !== undefined) rateLimit[k] = v;
  });
  return { at, sentAt, status, retryAfterMs: num(p[3]), rateLimit: Object.keys(rateLimit).length > 0 ? rateLimit : undefined };
}

/** The pace may outgrow what is sent by this much (slow start's next doubling and then some). */
const GROWTH_OVER_SENT = 2;
/** With headers and half the quota left, the pace doubles this often. */
const QUOTA_DOUBLING_MS = 250;
/** What is sent is measured over this long. */
const SENT_SPAN_MS = 1000;

export class SharedLearner {
  private readonly pacer: Pacer;
  private readonly ceiling: number;
  /** Send times of the answers fed lately, oldest first. */
  private sent: number[] = [];
  private lastBusy: number | undefined;
  /**
   * What the newest answer said of the key's quota: the requests it leaves by its reset (what
   * remains, or the whole quota once it is spent), and in how long it resets.
   */
  private quota: { left: number; resetMs: number } | undefined;

  /**
   * `seedRate`: the pace the previous leader left (requests per second), if any — taken up where it
   * was, without a new slow start.
   */
  constructor(opts: { ceiling?: number | undefined; seedRate?: number | undefined; random?: () => number }) {
    this.pacer = new Pacer({ ceiling: opts.ceiling, random: opts.random, crossClock: true });
    this.ceiling = opts.ceiling ?? Infinity;
    if (opts.seedRate !== undefined && opts.seedRate > 0) this.pacer.seed(opts.seedRate);
  }

  /** Feeds every process's answers, in the order they arrived. */
  feed(answers: SharedAnswer[]): void {
    for (const a of [...answers].sort((x, y) => x.at - y.at)) {
      this.pacer.onSend(a.sentAt);
      this.sent.push(a.sentAt);
      // In flight is each process's own count: it means nothing summed across them, so a cap on
      // requests in flight is not learnt here (each process's --concurrency still holds).
      this.pacer.observe({ at: a.at, sentAt: a.sentAt, status: a.status, retryAfterMs: a.retryAfterMs, rateLimit: a.rateLimit, inflightOthers: 0, inflightAtSend: 0 });
      const rl = a.rateLimit;
      // (A quota spent comes back whole at its reset: the pause that its 429 called for holds every
      // process until then, and the pace must not have sunk meanwhile — slots booked at a pace of
      // 0.2 a second held three imports for seconds after the quota was whole again.)
      this.quota = rl?.remaining !== undefined && rl.resetMs !== undefined ? { left: rl.remaining > 0 ? rl.remaining : (rl.limit ?? 0), resetMs: rl.resetMs } : undefined;
    }
  }

  /**
   * Requests are waiting somewhere: the pace may grow (slow start, then the probe) — but only so far
   * beyond what every process together actually sends. Answers reach the leader a tick or two late,
   * and the spacing reaches the others a tick later still, so a pace that doubled on every tick
   * would be thousands a second before its first 429 came back (and each 429 after it costs a
   * second's pause to halve it once). As TCP grows its window per acknowledgement, not per tick.
   */
  busy(now: number): void {
    const before = this.pacer.pace;
    const dt = this.lastBusy === undefined ? 0 : Math.min(1000, now - this.lastBusy);
    this.lastBusy = now;
    this.pacer.onBusy(now);
    // With headers, every process follows the shared pace rather than the server's quota: a pace
    // under the limit leaves the quota full, where nothing can be measured — so grow it while it is.
    if (dt > 0) this.pacer.raiseWhileQuotaLeft(2 ** (dt / QUOTA_DOUBLING_MS));
    this.sent.sort((a, b) => a - b);
    const newest = this.sent[this.sent.length - 1];
    if (newest === undefined) return;
    const from = newest - SENT_SPAN_MS;
    let i = 0;
    while (i < this.sent.length && (this.sent[i] as number) < from) i++;
    this.sent = this.sent.slice(i);
    const span = Math.max(100, newest - (this.sent[0] as number));
    const sentRate = (this.sent.length / span) * 1000;
    this.pacer.holdTo(Math.max(before, GROWTH_OVER_SENT * sentRate));
  }

  idle(): void {
    this.lastBusy = undefined;
    this.pacer.onIdle();
  }

  /** Requests per second for all processes together; undefined while nothing is known. */
  get pace(): number | undefined {
    const q = this.quota;
    // Never under what the server says is left, spread over its reset (a second at least: resets
    // come in whole seconds). Every process follows this pace, not the quota, and on a window the
    // refill measured between answers is nil until the window turns: without this floor three
    // imports on a fixed window of 100 a second with draft-6 headers fell to 0.1 % of the limit,
    // with no 429 to lift them — hours for a 30-second import (simulated; over real HTTP it did
    // not end in 200 s).
    const p = q ? Math.max(this.pacer.pace, Math.min(this.ceiling, q.left / Math.max(q.resetMs / 1000, 1))) : this.pacer.pace;
    return Number.isFinite(p) && p > 0 ? p : undefined;
  }
}
