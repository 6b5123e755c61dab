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
  /**
   * The server's quota as we mirror it (header regime): what remained after the latest request the
   * server counted (as far as the answers tell), as of `lowAt`, regained since at the refill; the
   * requests in flight are spent from it. `lowAnsweredAt`: when the answer that set it arrived — a
   * request sent after that was counted after it.
   */
  private low: number | null = null;
  private lowAt = 0;
  private lowAnsweredAt = -Infinity;
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
    if (this.low !== null && this.followGap === undefined) {
      let credits = this.remainingAt(now) - this.inflight;
      // The server said when its quota is whole again (a window's end, a bucket's refill): from
      // then on, a request may go whatever the refill estimate says (the answers tell the rest).
      if (credits < 1 && s.fullAt !== undefined && now >= s.fullAt) {
        this.low = this.inflight + 1;
        this.lowAt = now;
        credits = 1;
      }
      if (credits < 1) {
        // The refill estimate may change meanwhile: ask again within a quarter second.
        const untilCredit = s.refillPerSec > 0 ? ((1 - credits) / s.refillPerSec) * 1000 : 250;
        const untilFull = s.fullAt !== undefined ? s.fullAt - now : Infinity;
        return { retryAt: now + Math.max(1, Math.min(250, untilCredit, untilFull)) };
      }
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
      // A late timer is made up for as far as the pacer allows (catchUp in blind-pace.ts).
      const catchUp = this.followGap === undefined ? (s.catchUp ?? 1) - 1 : 0;
      this.nextRelease = Math.max(this.nextRelease, now - catchUp * gap, resumeAt) + gap;
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
    if (this.pacer.settings().credits !== null && (answer.rateLimit?.remaining !== undefined || answer.status === 429)) {
      this.mirror(ticket, answer.status === 429 ? 0 : (answer.rateLimit?.remaining as number), now);
    }
    return pauseMs;
  }

  /** What the server has left now, as mirrored (header regime). */
  private remainingAt(now: number): number {
    const s = this.pacer.settings();
    return Math.min(s.capacity ?? Infinity, (this.low as number) + (Math.max(0, now - this.lowAt) / 1000) * s.refillPerSec);
  }

  /**
   * An answer's count of what remains, into the mirror. Answers overtake each other on the wire,
   * and so do requests: a count is the newest only when its request was sent after the answer that
   * set the mirror arrived. Otherwise it was in flight beside that one, and the server may have
   * counted either first — each count then differs from the other by at most the requests in
   * flight, and the lower is the later (two requests sent in the same millisecond after a stall,
   * answered out of order, raised the mirror back by one and cost a 429). A count higher by more
   * than that is a new window (or a refill faster than measured); lower by more, it was counted
   * before a reset already seen.
   */
  private mirror(ticket: Ticket, remaining: number, now: number): void {
    const newest = this.low === null || ticket.sentAt >= this.lowAnsweredAt;
    let next = remaining;
    if (!newest) {
      const mirrored = this.remainingAt(now);
      const reorder = ticket.inflightAtSend + this.inflight + 1;
      if (remaining < mirrored - reorder) return;
      if (remaining <= mirrored + reorder) next = Math.min(mirrored, remaining);
    }
    this.low = next;
    this.lowAt = now;
    this.lowAnsweredAt = now;
  }
}
