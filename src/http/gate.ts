/**
 * When each request may start: the pacer's decisions turned into start times. Pure — it is given
 * the time and says how long to wait — so the same code runs under the real limiter (limiter.ts,
 * which sleeps) and under the simulation in test/ (a virtual clock).
 *
 * Three things hold a request back: a 429 pause (nobody starts until it ends, and a slot booked
 * before a pause began is void), the spacing of the pace (slots one gap apart, booked in order so
 * that a late timer does not slow the pace down), and — when the server publishes its quota — a
 * mirror of that quota (a credit per request, regained at the measured refill).
 */
import { Pacer, type Observation, type PacerOptions } from './pacer.js';
import type { RateLimitInfo } from './ratelimit-headers.js';

/** What the gate needs to know of an answer. */
export interface Answer {
  status: number;
  rateLimit?: RateLimitInfo | undefined;
  retryAfterMs?: number | undefined;
}

/** A request that has started. */
export interface Ticket {
  sentAt: number;
  /** Others in flight when it started. */
  inflightAtSend: number;
}

/**
 * Either the request starts now, or it asks again at `retryAt` — or, with `onFinish`, as soon as a
 * request in flight is answered (a cap on requests in flight is full), `retryAt` at the latest.
 */
export type StartVerdict = { ticket: Ticket } | { retryAt: number; onFinish?: true };

/** Held by a full window, a request asks again this late at the latest (an answer frees it first). */
const WINDOW_RECHECK_MS = 250;

export class PaceGate {
  readonly pacer: Pacer;
  private inflight = 0;
  private nextRelease = -Infinity;
  /** Requests that may still go without spacing since the last pause ended. */
  private burstLeft = 0;
  /** The server's quota as we mirror it (header regime): credits now, as of `creditsAt`. */
  private credits: number | null = null;
  private creditsAt = 0;
  private creditsSentAt = -Infinity;
  /** A shared budget's spacing (shared-pace.ts), kept in Redis instead of this process's own pace. */
  private followGap: number | undefined;
  private readonly ceilingGap: number;

  constructor(opts: PacerOptions = {}) {
    this.pacer = new Pacer(opts);
    this.ceilingGap = opts.ceiling !== undefined ? 1000 / opts.ceiling : 0;
  }

  /**
   * Follows a pace learnt from every process's answers (a budget shared through Redis, which spaces
   * the starts): this process's own pace, quota mirror, burst and window say nothing of the whole,
   * so they rest, and only --rate and the pauses hold here. `undefined` goes back to this process's
   * own pace, seeded with the shared one.
   */
  follow(gapMs: number | undefined): void {
    if (gapMs === undefined && this.followGap !== undefined) this.pacer.seed(1000 / this.followGap);
    this.followGap = gapMs;
    if (gapMs !== undefined) this.burstLeft = 0;
  }

  /** Whether the gate follows a shared pace. */
  get following(): boolean {
    return this.followGap !== undefined;
  }

  /** Requests started and not yet answered. */
  get inflightCount(): number {
    return this.inflight;
  }

  /**
   * May a request start at `now`? Either it starts (a ticket), or it asks again at `retryAt`.
   * `busy`: other requests are waiting for the pace too (so the pace may grow). Only the next slot
   * is ever decided, with the pace of the moment: a pace that grows is felt at once.
   */
  start(now: number, busy: boolean): StartVerdict {
    // A request the spacing holds back is waiting for the pace too, even alone (paging).
    if (busy || now < this.nextRelease) this.pacer.onBusy(now);
    else this.pacer.onIdle();
    const resumeAt = this.pacer.resumeAt;
    if (now < resumeAt) return { retryAt: resumeAt };
    if (now < this.nextRelease) return { retryAt: this.nextRelease };
    // A cap on requests in flight, once found, holds every request — also those that were already
    // waiting here when it was found (bottleneck's own cap counts them as running).
    if (this.followGap === undefined && this.inflight >= this.pacer.window) return { retryAt: now + WINDOW_RECHECK_MS, onFinish: true };
    const s = this.pacer.settings();
    if (this.credits !== null && this.followGap === undefined) {
      const capacity = s.capacity ?? Infinity;
      this.credits = Math.min(capacity, this.credits + (Math.max(0, now - this.creditsAt) / 1000) * s.refillPerSec);
      this.creditsAt = now;
      // The server said when its quota is whole again (a window's end, a bucket's refill): from
      // then on, at least one request may go whatever the refill estimate says.
      if (s.fullAt !== undefined && now >= s.fullAt) this.credits = Math.max(this.credits, 1);
      if (this.credits < 1) {
        // The refill estimate may change meanwhile: ask again within a quarter second.
        const untilCredit = s.refillPerSec > 0 ? ((1 - this.credits) / s.refillPerSec) * 1000 : 250;
        const untilFull = s.fullAt !== undefined ? s.fullAt - now : Infinity;
        return { retryAt: now + Math.max(1, Math.min(250, untilCredit, untilFull)) };
      }
      this.credits -= 1;
    }
    // Following the server's quota, credits space the requests; otherwise the pace does: never
    // two starts closer than a gap, even after a stall or a late timer — a bucket of one refills
    // no faster for our being late. (Time lost to late timers is won back by the pacer, which
    // measures what was admitted and probes up.)
    const gap = this.followGap !== undefined ? this.ceilingGap : s.credits === null ? s.minTimeMs : 0;
    if (this.burstLeft > 0) {
      this.burstLeft -= 1;
      this.nextRelease = now;
    } else {
      this.nextRelease = Math.max(this.nextRelease, now, resumeAt) + gap;
    }
    const ticket = { sentAt: now, inflightAtSend: this.inflight };
    this.inflight += 1;
    this.pacer.onSend(now);
    return { ticket };
  }

  /** A started request was answered (or failed: status 0). Returns the pause it calls for (ms). */
  finish(ticket: Ticket, answer: Answer, now: number): number {
    this.inflight -= 1;
    const obs: Observation = {
      at: now,
      sentAt: ticket.sentAt,
      status: answer.status,
      rateLimit: answer.rateLimit,
      retryAfterMs: answer.retryAfterMs,
      inflightOthers: this.inflight,
      inflightAtSend: ticket.inflightAtSend,
    };
    const before = this.pacer.resumeAt;
    const pauseMs = this.pacer.observe(obs);
    // A new pause: a window's quota, once recognised, may go at once when it ends.
    if (this.pacer.resumeAt > before && this.followGap === undefined) this.burstLeft = this.pacer.burstAfter();
    // The server's count of what remains always replaces our mirror.
    const credits = this.pacer.settings().credits;
    if (credits !== null && ticket.sentAt >= this.creditsSentAt && (answer.rateLimit?.remaining !== undefined || answer.status === 429)) {
      this.creditsSentAt = ticket.sentAt;
      this.credits = credits;
      this.creditsAt = now;
    }
    return pauseMs;
  }
}
