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
import type { RateLimitInfo } from './headers.js';
import type { Limit } from './types.js';

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
  /** Of them, those still at the server when it was sent, where a shared budget knows it (central-gate.ts): what a cap is read from. */
  atServerAtSend?: number;
  /** Its place in the order of starts (the window log's key). */
  seq: number;
  /** Started under a window's log (a 429 then ends the log). */
  anchored: boolean;
  /** Header regime: what the mirror expected the server to have for it, before it took one. */
  mirrored?: number;
}

/**
 * Either the request starts now, or it asks again at `retryAt` — or, with `onFinish`, as soon as a
 * request in flight is answered (a cap on requests in flight is full), `retryAt` at the latest.
 */
export type StartVerdict = { ticket: Ticket } | { retryAt: number; onFinish?: true; cap?: true };

/** Held by a full window, a request asks again this late at the latest (an answer frees it first). */
const WINDOW_RECHECK_MS = 250;
/** Under a window's anchor, a request starts this long after the window's length has passed. */
const ANCHOR_MARGIN_MS = 1;
/** The wire's jitter is read from this many recent round trips. */
const RECENT_TRIPS = 32;
/** The likely mirror projects at most this many starts since the count that set it. */
const LIKELY_STARTS_MAX = 256;
/** What an answer that shows the mirror too low adds to its share of the round trip's refill. */
const SHARE_STEP = 0.05;
/**
 * Under a window's log, a quota's answers are taken as this share of the shortest round trip
 * earlier: the server counted each of them at least its way back before its answer arrived, and a
 * request leaving now reaches the server at least its way there from now — their least sum is
 * about the shortest round trip; half of it is kept in hand for a path whose two ways were never
 * both at their quickest in one request (docs/pacing.md rule 7).
 */
const TRIP_CREDIT = 0.5;
/** The window log keeps at least this many answers (and twice the quota). */
const LOG_KEEP = 4096;

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
  /** The start whose count set the mirror: those after it are spent from it as they started. */
  private lowSeq = -1;
  /** When the request whose count set the mirror reached the server, as a send time (see creditsAt). */
  private lowSentAt = 0;
  /** The shortest round trip of an admitted request (the mirror's and the window log's credit). */
  private roundTripMin = Infinity;
  /**
   * The share of a shortest round trip's refill the mirror credits: none at first (the count as of
   * its answer's arrival: what the server surely had), a step more each time an answer shows the
   * server had half a token or more beyond what the mirror expected, halved by each new pause.
   */
  private share = 0;
  private jitterMs = 0;
  private readonly recentTrips: number[] = [];
  /** The server's last "whole again" instant that the mirror was filled at (header regime). */
  private wholeAt: number | undefined;
  private readonly ceilingGap: number;
  /**
   * The window log: when each recent request was answered, in the order they started (NaN while in
   * flight), `logBase` being the first one's place. `scanSeq`/`scanMax`: every request before
   * `scanSeq` is answered, the latest of them at `scanMax`.
   */
  private log: number[] = [];
  /** When each request of the log started, and whether the server admitted it. */
  private logSent: number[] = [];
  private logAdmitted: boolean[] = [];
  private logBase = 0;
  /** The anchor last checked against the log's history (see refutes), and whether it held. */
  private anchorChecked: { quota: number; windowMs: number } | undefined;
  private seq = 0;
  /**
   * After a pause, at most this many requests start until as many as that are admitted
   * (blind-pace.ts, restartCap): over a real network, the whole pace would otherwise leave before
   * the first answer came back, and every request after the refill would meet a 429.
   */
  private restartCap = Infinity;
  private restartFrom = Infinity;
  private restartAdmitted = 0;
  private restartSent = 0;
  /** Of those started, refused or lost: their places are free again. */
  private restartFreed = 0;
  private scanSeq = 0;
  private scanMax = -Infinity;
  /** A window's log counts the starts from this one on: a pause that began it said where the window ends. */
  private logFrom = 0;

  constructor(opts: PacerOptions = {}) {
    this.pacer = new Pacer(opts);
    this.ceilingGap = opts.ceiling !== undefined ? 1000 / opts.ceiling : 0;
  }

  /** The limit this run started from (seed), and when its last request went. */
  private seeded: Limit | undefined;
  private lastSentAt: number | undefined;

  /** Starts from a limit remembered from an earlier run (docs/pacing.md, "The memory"). */
  seed(limit: Limit, now: number): void {
    this.seeded = limit;
    this.pacer.seedLimit(limit, now);
    this.burstLeft = this.pacer.startBurst(now, limit.endedAt);
  }

  /** What is known of the limit now: what this run learnt, else what it started from. */
  snapshot(now: number): Limit | undefined {
    const s = this.pacer.snapshot(now);
    const endedAt = this.lastSentAt ?? this.seeded?.endedAt;
    const ended = endedAt !== undefined ? { endedAt } : {};
    if (s === undefined || (!s.learnt && this.seeded !== undefined)) return this.seeded && { ...this.seeded, ...ended };
    if (!s.learnt) return undefined;
    return { ...s.limit, source: s.limit.headers !== null ? 'headers' : 'learnt', learntAt: now, ...ended };
  }

  private endRestart(): void {
    this.restartCap = Infinity;
    this.restartFrom = Infinity;
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
    // A recognised window: its log alone times the starts, and a whole quota goes at once at each
    // window's start (docs/pacing.md rule 7; blind-pace.ts, anchor).
    let anchor = this.pacer.anchor();
    if (anchor !== undefined && (anchor.quota !== this.anchorChecked?.quota || anchor.windowMs !== this.anchorChecked.windowMs)) {
      this.anchorChecked = anchor;
      if (this.refutes(anchor)) {
        this.pacer.anchorMissed();
        anchor = undefined;
      }
    }
    if (anchor !== undefined) {
      const timedFrom = this.seq - anchor.quota < this.logFrom ? undefined : this.timedFrom(this.seq - anchor.quota);
      if (timedFrom === null) return { retryAt: now + WINDOW_RECHECK_MS, onFinish: true };
      const from = timedFrom === undefined ? undefined : timedFrom - (Number.isFinite(this.roundTripMin) ? TRIP_CREDIT * this.roundTripMin : 0);
      if (from !== undefined && now < from + anchor.windowMs + ANCHOR_MARGIN_MS) return { retryAt: from + anchor.windowMs + ANCHOR_MARGIN_MS };
    } else if (now < this.nextRelease) return { retryAt: this.nextRelease };
    // A cap on requests in flight, once found, holds every request — also those that were already
    // waiting here when it was found (bottleneck's own cap counts them as running).
    if (this.inflight >= this.pacer.window) return { retryAt: now + WINDOW_RECHECK_MS, onFinish: true, ...(anchor === undefined ? { cap: true as const } : {}) };
    // (Held, one of them is still on its way — fewer than the cap are admitted, and the rest are not
    // freed — so an answer will free a place or lift the cap.)
    if (this.restartSent - this.restartFreed >= this.restartCap) return { retryAt: now + WINDOW_RECHECK_MS, onFinish: true };
    const s = this.pacer.settings();
    let mirrored: number | undefined;
    if (this.low !== null && anchor === undefined) {
      // A window's quota is spent: the next request waits until a refusal would prove it one.
      // That refusal takes one request, over a short round trip: the rest wait for its answer.
      if (s.holdUntil !== undefined && now < s.holdUntil) return { retryAt: s.holdUntil };
      if (s.holdOne === true && this.inflight > 0) return { retryAt: now + WINDOW_RECHECK_MS, onFinish: true };
      let credits = this.creditsAt(now);
      // The server said when its quota is whole again (a window's end, a bucket's refill): then
      // the mirror is whole whatever the refill estimate says (the answers tell the rest). Once
      // for each such instant: granting one more each time a request asked after it (as this
      // once did) let every waiting request go at once when a pause ended there — a
      // bucket of one met three 429s for each request admitted, and each 429's pause ended on
      // the next such instant (docs/pacing.md, "With headers").
      if (credits < 1 && s.fullAt !== undefined && now >= s.fullAt && s.fullAt !== this.wholeAt) {
        this.wholeAt = s.fullAt;
        this.setLow(Math.max(s.capacity ?? 1, this.remainingAt(now)), now);
        credits = this.creditsAt(now);
      }
      // Nothing on its way to tell us more, and no refill to wait for: one request asks (a window
      // whose reset has passed, or a 429 that carried no count) — or the gate would wait for good.
      if (credits < 1 && this.inflight === 0 && s.refillPerSec <= 0 && (s.fullAt === undefined || now >= s.fullAt)) {
        this.setLow(1, now);
        credits = 1;
      }
      if (credits < 1) {
        // The refill estimate may change meanwhile: ask again within a quarter second.
        const untilCredit = s.refillPerSec > 0 ? ((1 - credits) / s.refillPerSec) * 1000 : 250;
        this.pacer.mirrorHeld(now);
        const untilFull = s.fullAt !== undefined && s.fullAt !== this.wholeAt ? s.fullAt - now : Infinity;
        return { retryAt: now + Math.max(1, Math.min(250, untilCredit, untilFull)) };
      }
      mirrored = credits - 1;
    }
    return { ticket: this.commit(now, anchor !== undefined, s, mirrored, resumeAt) };
  }

  /**
   * A request that started without asking, in the place of one just answered (central-gate.ts,
   * follow-ons: a cap on requests in flight was full, so the place passed straight on).
   */
  startNow(now: number): Ticket {
    this.pacer.onBusy(now);
    return this.commit(now, false, this.pacer.settings(), undefined, this.pacer.resumeAt);
  }

  /** A request starts at `now`: the spacing moves on, and it is counted in flight. */
  private commit(now: number, anchored: boolean, s: ReturnType<Pacer['settings']>, mirrored: number | undefined, resumeAt: number): Ticket {
    // Following the server's quota, credits space the requests; otherwise the pace does: never
    // two starts closer than a gap, even after a stall or a late timer — a bucket of one refills
    // no faster for our being late. (Time lost to late timers is won back by the pacer, which
    // measures what was admitted and probes up.)
    const gap = anchored ? this.ceilingGap : s.credits === null ? s.minTimeMs : 0;
    if (anchored) {
      this.nextRelease = Math.max(this.nextRelease, now - gap) + gap;
    } else if (this.burstLeft > 0) {
      this.burstLeft -= 1;
      // The burst's last request goes now, and the pace takes over a gap after it.
      this.nextRelease = this.burstLeft > 0 ? now : now + gap;
    } else {
      // A late timer is made up for as far as the pacer allows (catchUp in blind-pace.ts).
      const catchUp = (s.catchUp ?? 1) - 1;
      this.nextRelease = Math.max(this.nextRelease, now - catchUp * gap, resumeAt) + gap;
    }
    const ticket: Ticket = { sentAt: now, inflightAtSend: this.inflight, seq: this.seq, anchored, mirrored };
    this.lastSentAt = now;
    this.logStart(now);
    this.inflight += 1;
    if (now >= this.restartFrom) this.restartSent += 1;
    this.pacer.onSend(now);
    return ticket;
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
      inflightAtSend: ticket.atServerAtSend ?? ticket.inflightAtSend,
      // (Shared, the leader's own count is an upper bound; alone, the count is exact.)
      inflightBound: ticket.atServerAtSend !== undefined ? ticket.inflightAtSend : undefined,
    };
    const admitted = answer.status !== 429 && answer.status !== 0;
    this.logAnswer(ticket.seq, now, admitted);
    if (admitted) this.roundTripMin = Math.min(this.roundTripMin, now - ticket.sentAt);
    const before = this.pacer.resumeAt;
    const anchoredBefore = this.pacer.anchor() !== undefined;
    const pauseMs = this.pacer.observe(obs);
    // A 429 under a window's anchor (not an echo of a pause already called for): the window was
    // longer than measured, or its quota is not all ours.
    if (answer.status === 429 && ticket.anchored && ticket.sentAt >= before) this.pacer.anchorMissed();
    // A new pause: a window's quota, once recognised, may go at once when it ends; until a request
    // sent after it is admitted, no more go than the pause can have refilled.
    if (this.pacer.resumeAt > before) {
      if (!anchoredBefore && this.pacer.anchor() !== undefined) this.logFrom = this.seq;
      // (Not for an echo: requests in flight together meet the one congestion, once.)
      if (ticket.sentAt >= before) this.share = this.share / 2 < SHARE_STEP / 4 ? 0 : this.share / 2;
      this.burstLeft = this.pacer.burstAfter();
      this.restartCap = Math.max(this.burstLeft, this.pacer.restartCap());
      this.restartFrom = this.pacer.resumeAt;
      this.restartAdmitted = 0;
      this.restartSent = 0;
      this.restartFreed = 0;
    } else if (ticket.sentAt >= this.restartFrom) {
      // One that never reached the server frees its place (a dead network must not hold the rest
      // for good); as many admitted as the cap let go, the span goes past what the pause refilled.
      // (A 429 that called for no new pause — a Retry-After of 0 — frees its place too.)
      if (answer.status === 0 || answer.status === 429) this.restartFreed += 1;
      else if (++this.restartAdmitted >= this.restartCap) this.endRestart();
    }
    if (this.pacer.settings().credits !== null && (answer.rateLimit?.remaining !== undefined || answer.status === 429)) {
      if (admitted) this.noteJitter(now - ticket.sentAt);
      this.mirror(ticket, answer.status === 429 ? 0 : (answer.rateLimit?.remaining as number), now);
    }
    return pauseMs;
  }

  /** A request starts: its place in the window log, unanswered yet. */
  private logStart(now: number): void {
    this.seq += 1;
    this.log.push(NaN);
    this.logSent.push(now);
    this.logAdmitted.push(false);
    const keep = Math.max(LOG_KEEP, 2 * (this.pacer.anchor()?.quota ?? 0));
    if (this.log.length <= 2 * keep) return;
    // Drop the older half; what the scan has not passed yet is folded into it first.
    const drop = this.log.length - keep;
    for (let q = Math.max(this.scanSeq, this.logBase); q < this.logBase + drop; q += 1) {
      const t = this.log[q - this.logBase] as number;
      if (!Number.isNaN(t)) this.scanMax = Math.max(this.scanMax, t);
    }
    this.scanSeq = Math.max(this.scanSeq, this.logBase + drop);
    this.log = this.log.slice(drop);
    this.logSent = this.logSent.slice(drop);
    this.logAdmitted = this.logAdmitted.slice(drop);
    this.logBase += drop;
  }

  private logAnswer(seq: number, now: number, admitted: boolean): void {
    const i = seq - this.logBase;
    if (i < 0 || i >= this.log.length) return;
    this.log[i] = now;
    this.logAdmitted[i] = admitted;
  }

  /**
   * Whether what the server admitted before refutes a window of this quota and length: a sliding
   * window admits at most a quota within any window's length, a fixed one at most two (the end of
   * one window and the start of the next). More is a bucket's refill (a small bucket's quick spans after
   * pauses look like a window's: its size, each count once), and the log would hold it to a
   * fraction of its rate with no 429 ever to say so.
   */
  private refutes(anchor: { quota: number; windowMs: number }): boolean {
    const sends: number[] = [];
    let rtt = 0;
    for (let i = 0; i < this.log.length; i++) {
      if (!this.logAdmitted[i]) continue;
      sends.push(this.logSent[i] as number);
      rtt = Math.max(rtt, (this.log[i] as number) - (this.logSent[i] as number));
    }
    sends.sort((a, b) => a - b);
    // Requests sent within a window's length less the longest round trip reached the server
    // within a window's length, in whatever order.
    const within = anchor.windowMs - rtt;
    for (let lo = 0, hi = 0; hi < sends.length && within > 0; hi++) {
      while ((sends[hi] as number) - (sends[lo] as number) >= within) lo += 1;
      if (hi - lo + 1 > 2 * anchor.quota) return true;
    }
    return false;
  }

  /**
   * The latest answer among the requests up to the `upTo`-th start: undefined when there is none
   * (fewer starts than a quota), null while one of them is still in flight.
   */
  private timedFrom(upTo: number): number | undefined | null {
    if (upTo < 0) return undefined;
    while (this.scanSeq <= upTo) {
      const i = this.scanSeq - this.logBase;
      const t = i >= 0 ? (this.log[i] as number) : -Infinity;
      if (Number.isNaN(t)) return null;
      this.scanMax = Math.max(this.scanMax, t);
      this.scanSeq += 1;
    }
    return this.scanMax;
  }

  /** An admitted round trip with a count: the spread of the last few over the shortest is the jitter. */
  private noteJitter(ms: number): void {
    this.recentTrips.push(ms);
    if (this.recentTrips.length > RECENT_TRIPS) this.recentTrips.shift();
    this.jitterMs = Math.max(...this.recentTrips) - this.roundTripMin;
  }

  /** The mirror holds `level` now, every request in flight still to be spent from it. */
  private setLow(level: number, now: number): void {
    this.low = level;
    this.lowAt = now;
    this.lowSentAt = now;
    this.lowSeq = this.seq - 1;
  }

  /**
   * What a request starting now finds on the server, as mirrored (docs/pacing.md, "With headers").
   * Surely: the count as of its answer's arrival, every request in flight spent at once. Likely:
   * the count was taken when its request reached the server, a one-way trip after it left, and a
   * request leaving now arrives a one-way trip from now — so it runs on send times: the count as of
   * a shortest round trip before its answer arrived, each later start spending one as it left, the
   * refill between them up to the capacity, less the wire's jitter for the request about to leave;
   * requests in flight that started before it may have been counted after it, and are spent last.
   * (Surely alone, the refill over the round trip was never credited: a bucket of 3 refilling 150
   * a second, 60–70 ms away with 4 in flight, ran at 50 % of what 4 in flight allow.) The mirror
   * credits `share` of what likely adds; with nothing counted for a long run of starts (answers
   * without a count), surely alone.
   */
  private creditsAt(now: number): number {
    const s = this.pacer.settings();
    const cap = s.capacity ?? Infinity;
    // What the server surely has: the count as of its answer's arrival, every request in flight spent.
    const surely = this.remainingAt(now) - this.inflight;
    if (this.share <= 0 || this.seq - this.lowSeq > LIKELY_STARTS_MAX) return surely;
    let level = this.low as number;
    let t = this.lowSentAt;
    let older = this.inflight;
    for (let q = Math.max(this.lowSeq + 1, this.logBase); q < this.seq; q++) {
      const i = q - this.logBase;
      const sent = this.logSent[i] as number;
      // One that left before the count's moment is spent after the refill: the least it can leave.
      if (sent <= this.lowSentAt) continue;
      if (Number.isNaN(this.log[i])) older -= 1;
      level = Math.min(cap, level + ((sent - t) / 1000) * s.refillPerSec) - 1;
      t = sent;
    }
    // A request that leaves now may arrive sooner after the others than they left, by the wire's jitter.
    const likely = Math.min(cap, level + (Math.max(0, now - t - this.jitterMs) / 1000) * s.refillPerSec) - older;
    return surely + this.share * Math.max(0, likely - surely);
  }

  /** What the server has left now, as mirrored, before the requests in flight (header regime). */
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
      // Counted after it, perhaps: those in flight when it started, and every one started since —
      // answered already or not (four sent in the same millisecond, answered with 2, 0, 1 and 3
      // left: the 3 came last with nothing left in flight, was read as a refill, and the request
      // it let go met a 429).
      const reorder = ticket.inflightAtSend + (this.seq - ticket.seq - 1) + 1;
      // (Against the count itself, not what the refill estimate added since: a count one lower,
      // reordered, read as stale once a fraction of a token had been added, and the request it
      // let go met a 429 — a bucket of 3 refilling 300 a second held 4 % of the limit.)
      if (remaining < (this.low as number) - reorder) return;
      if (remaining <= mirrored + reorder) next = Math.min(mirrored, remaining);
    }
    // The server had more for this request than the mirror expected, half a token or more: the
    // mirror, not the server, held the requests back — it may credit more of the round trip's refill.
    if (ticket.mirrored !== undefined && remaining >= ticket.mirrored + 0.5) this.share = Math.min(1, this.share + SHARE_STEP);
    if (newest) {
      this.low = next;
      this.lowAt = now;
      this.lowSentAt = Math.max(ticket.sentAt, now - (Number.isFinite(this.roundTripMin) ? this.roundTripMin : 0));
      this.lowSeq = ticket.seq;
    } else this.setLow(next, now);
    this.lowAnsweredAt = now;
  }
}
