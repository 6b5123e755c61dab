/**
 * When each request may start (docs/pacing.md, rules G1–G5). Pure — given the time, it says how
 * long to wait — so the same code runs under the real limiter (limiter.ts) and the simulations on a
 * virtual clock. What the pace, the window and the cap are, the learner in charge decides: the one
 * without headers (blind-learner.ts) until an answer carries a count, then header-learner.ts.
 */
import { backoffMs } from './backoff.js';
import { BlindLearner } from './blind-learner.js';
import { HeaderLearner } from './header-learner.js';
import { StartLog } from './log.js';
import { QuotaMirror } from './mirror.js';
import type { Anchor, Answer, Learner, Limit, Observation, PaceSettings } from './types.js';
import * as tune from './tuning.js';

/** A request that has started. */
export interface Ticket {
  sentAt: number;
  /** Others in flight when it started. */
  inflightAtSend: number;
  /** Of them, those still at the server when it was sent, where a shared budget knows it (shared-gate.ts): what a cap is read from. */
  atServerAtSend?: number;
  /** Its place in the order of starts (the log's key). */
  seq: number;
  /** Started under a window's log (a 429 then ends the log). */
  anchored: boolean;
  /** With headers: what the mirror expected the server to have for it, before it took one. */
  mirrored?: number | undefined;
}

/**
 * Either the request starts now, or it asks again at `retryAt` — or, with `onFinish`, as soon as a
 * request in flight is answered (a cap on requests in flight is full), `retryAt` at the latest.
 */
export type StartVerdict = { ticket: Ticket } | { retryAt: number; onFinish?: true; cap?: true };

export class PaceGate {
  private readonly blind: BlindLearner;
  private readonly header: HeaderLearner;
  private readonly log = new StartLog();
  private readonly mirror = new QuotaMirror(this.log);
  private readonly ceilingGap: number;
  /** The limiter sends nothing before this (a 429's pause, a spent fixed window). */
  private pausedUntil = 0;
  /** 429 answers seen, and in a row (the back-off's attempt). */
  throttled = 0;
  private consecutive429 = 0;
  private readonly random: () => number;
  private inflight = 0;
  private nextRelease = -Infinity;
  /** Requests that may still go without spacing since the last pause ended. */
  private burstLeft = 0;
  /** The shortest round trip of an admitted request (the mirror's and the log's credit). */
  private roundTripMin = Infinity;
  /** The anchor last checked against the log's history (see StartLog.refutes). */
  private anchorChecked: Anchor | undefined;
  /**
   * G4, B9. After the pause that ended at `from`, at most `cap` requests start until as many as that
   * are admitted: over a real network, the whole pace would otherwise leave before the first answer
   * came back, and every request after the refill would meet a 429. `freed`: of those `sent`,
   * refused or lost — their places are free again.
   */
  private restart = { cap: Infinity, from: Infinity, admitted: 0, sent: 0, freed: 0 };
  /** The limit this run started from (seed), and when its last request went. */
  private seeded: Limit | undefined;
  private lastSentAt: number | undefined;

  constructor(opts: { ceiling?: number | undefined; random?: () => number } = {}) {
    this.random = opts.random ?? Math.random;
    this.blind = new BlindLearner(opts.ceiling);
    this.header = new HeaderLearner(opts.ceiling);
    this.ceilingGap = opts.ceiling !== undefined ? 1000 / opts.ceiling : 0;
  }

  /** The learner in charge: the one with headers once an answer carried a count. */
  private get learner(): Learner {
    return this.header.engaged ? this.header : this.blind;
  }

  /** Starts from a limit remembered from an earlier run (docs/pacing.md, "The memory"). */
  seed(limit: Limit, now: number): void {
    this.seeded = limit;
    this.blind.seed(limit, now);
    this.header.seed(limit);
    this.burstLeft = this.blind.startBurst(now, limit.endedAt);
  }

  /** Starts from a pace found elsewhere (a shared budget's, when Redis goes away or a new leader takes over). */
  seedPace(rate: number): void {
    this.learner.seedPace(rate);
  }

  /** A cap on requests in flight found elsewhere: the last leader's, handed over. */
  capAtMost(n: number, now: number): void {
    if (!this.header.engaged) this.blind.capAtMost(n, now);
  }

  /** What is known of the limit now: what this run learnt, else what it started from. */
  snapshot(now: number): Limit | undefined {
    const s = this.learner.snapshot(now);
    const endedAt = this.lastSentAt ?? this.seeded?.endedAt;
    const ended = endedAt !== undefined ? { endedAt } : {};
    if (s === undefined || (!s.learnt && this.seeded !== undefined)) return this.seeded && { ...this.seeded, ...ended };
    if (!s.learnt) return undefined;
    return { ...s.limit, source: s.limit.headers !== null ? 'headers' : 'learnt', learntAt: now, ...ended };
  }

  /** Requests started and not yet answered. */
  get inflightCount(): number {
    return this.inflight;
  }

  /** Most requests in flight the limit allows (Infinity: only --concurrency binds). */
  get window(): number {
    return this.learner.window ?? Infinity;
  }

  /** When the limiter may send again (ms). */
  get resumeAt(): number {
    return this.pausedUntil;
  }

  /** The pace in requests per second the learner holds (Infinity: unpaced). */
  get pace(): number {
    return this.learner.pace;
  }

  /** The pace the limiter keeps to now, for progress (Infinity: none). */
  get spacing(): number {
    const s = this.learner.settings();
    return s.credits !== null ? s.refillPerSec : s.minTimeMs > 0 ? 1000 / s.minTimeMs : Infinity;
  }

  /** A recognised window's quota and length, kept to by the log. */
  anchor(): Anchor | undefined {
    return this.learner.anchor();
  }

  /** Requests that may go at once when a pause ends. */
  burstAfter(): number {
    return this.learner.burstAfter?.() ?? 0;
  }

  /**
   * May a request start at `now`? Either it starts (a ticket), or it asks again at `retryAt`.
   * `busy`: other requests are waiting for the pace too (so the pace may grow). Only the next slot
   * is ever decided, with the pace of the moment: a pace that grows is felt at once.
   */
  start(now: number, busy: boolean): StartVerdict {
    const learner = this.learner;
    // A request the spacing holds back is waiting for the pace too, even alone (paging).
    if (busy || now < this.nextRelease) learner.onBusy?.(now);
    else learner.onIdle?.();
    const resumeAt = this.pausedUntil;
    if (now < resumeAt) return { retryAt: resumeAt };
    // A recognised window: its log alone times the starts, and a whole quota goes at once at each
    // window's start — unless what the server admitted before refutes it.
    let anchor = learner.anchor();
    if (anchor !== undefined && (anchor.quota !== this.anchorChecked?.quota || anchor.windowMs !== this.anchorChecked.windowMs)) {
      this.anchorChecked = anchor;
      if (this.log.refutes(anchor)) {
        learner.anchorMissed();
        anchor = undefined;
      }
    }
    if (anchor !== undefined) {
      // A quota's answers came back a way back after the server counted them, and a request leaving
      // now reaches it a way there later: part of the shortest round trip is credited.
      const timedFrom = this.log.timedFrom(this.log.seq - anchor.quota);
      if (timedFrom === null) return { retryAt: now + tune.WINDOW_RECHECK_MS, onFinish: true };
      const from = timedFrom === undefined ? undefined : timedFrom - (Number.isFinite(this.roundTripMin) ? tune.TRIP_CREDIT * this.roundTripMin : 0);
      if (from !== undefined && now < from + anchor.windowMs + tune.ANCHOR_MARGIN_MS) return { retryAt: from + anchor.windowMs + tune.ANCHOR_MARGIN_MS };
    } else if (now < this.nextRelease) return { retryAt: this.nextRelease };
    // A cap on requests in flight, once found, holds every request — also those that were already
    // waiting here when it was found (bottleneck's own cap counts them as running).
    if (this.inflight >= this.window) return { retryAt: now + tune.WINDOW_RECHECK_MS, onFinish: true, ...(anchor === undefined ? { cap: true as const } : {}) };
    // (Held, one of them is still on its way — fewer than the cap are admitted, and the rest are not
    // freed — so an answer will free a place or lift the cap.)
    if (this.restart.sent - this.restart.freed >= this.restart.cap) return { retryAt: now + tune.WINDOW_RECHECK_MS, onFinish: true };
    const s = learner.settings();
    let mirrored: number | undefined;
    if (this.mirror.active && anchor === undefined) {
      const v = this.mirror.admit(now, this.inflight, s);
      if ('held' in v) this.header.mirrorHeld(now);
      if ('retryAt' in v) return { retryAt: v.retryAt, ...(v.onFinish ? { onFinish: true as const } : {}) };
      mirrored = v.mirrored;
    }
    return { ticket: this.commit(now, anchor !== undefined, s, mirrored, resumeAt) };
  }

  /**
   * A request that started without asking, in the place of one just answered (shared-gate.ts,
   * follow-ons: a cap on requests in flight was full, so the place passed straight on).
   */
  startNow(now: number): Ticket {
    this.learner.onBusy?.(now);
    return this.commit(now, false, this.learner.settings(), undefined, this.pausedUntil);
  }

  /** A request starts at `now`: the spacing moves on, and it is counted in flight. */
  private commit(now: number, anchored: boolean, s: PaceSettings, mirrored: number | undefined, resumeAt: number): Ticket {
    // Following the server's quota (a window's log, the mirror's credits), only --rate spaces the
    // requests; otherwise the pace does: never two starts closer than a gap, even after a stall or
    // a late timer — a bucket of one refills no faster for our being late (time lost is won back by
    // the learner, which probes up).
    const gap = anchored || s.credits !== null ? this.ceilingGap : s.minTimeMs;
    if (anchored) {
      this.nextRelease = Math.max(this.nextRelease, now - gap) + gap;
    } else if (this.burstLeft > 0) {
      this.burstLeft -= 1;
      // The burst's last request goes now, and the pace takes over a gap after it; --rate holds
      // a burst too.
      this.nextRelease = this.burstLeft > 0 ? now + this.ceilingGap : now + gap;
    } else {
      // A late timer is made up for as far as the learner allows (catchUp).
      const catchUp = (s.catchUp ?? 1) - 1;
      this.nextRelease = Math.max(this.nextRelease, now - catchUp * gap, resumeAt) + gap;
    }
    const ticket: Ticket = { sentAt: now, inflightAtSend: this.inflight, seq: this.log.seq, anchored, mirrored };
    this.lastSentAt = now;
    this.log.start(now, this.learner.anchor()?.quota ?? 0);
    this.inflight += 1;
    if (now >= this.restart.from) this.restart.sent += 1;
    this.learner.onSend?.(now);
    return ticket;
  }

  /** A started request was answered (or failed: status 0). Returns the pause it calls for (ms). */
  finish(ticket: Ticket, answer: Answer, now: number): number {
    this.inflight -= 1;
    const o: Observation = {
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
    this.log.answer(ticket.seq, now, admitted);
    if (admitted) this.roundTripMin = Math.min(this.roundTripMin, now - ticket.sentAt);
    const before = this.pausedUntil;
    const anchoredBefore = this.learner.anchor() !== undefined;
    // Every count is read (the first engages the learner with headers); then the learner in charge learns.
    this.header.read(o);
    // A 429 pauses every start for its Retry-After, else for the back-off.
    // The refusals of one burst count once: only a request sent after the last pause ended (not
    // an echo) raises the back-off, and an echo that says nothing calls for no more pause.
    const refused = answer.status === 429;
    const echo = ticket.sentAt < this.pausedUntil;
    if (refused && !echo) this.consecutive429 += 1;
    else if (admitted) this.consecutive429 = 0;
    let waitMs = 0;
    if (refused && answer.retryAfterMs !== undefined) waitMs = answer.retryAfterMs;
    else if (refused && !this.header.engaged) waitMs = this.blind.silentPause(o);
    else if (refused && !echo) waitMs = backoffMs(this.consecutive429, tune.PAUSE_BACKOFF_BASE_MS, tune.PAUSE_BACKOFF_CAP_MS, this.random);
    this.learner.observe(o, waitMs, this.pausedUntil);
    if (refused) {
      this.throttled += 1;
      this.pausedUntil = Math.max(this.pausedUntil, now + waitMs);
    }
    const learner = this.learner;
    // B10. A window measured from refusals that said nothing, recognised as the probe that ended
    // them was admitted: its log counts from that probe (the refused ones before it were the last
    // window's).
    if (admitted && !anchoredBefore && learner === this.blind && this.blind.measuredSilently() && learner.anchor() !== undefined && this.log.from < ticket.seq) this.log.from = ticket.seq;
    // A 429 under a window's anchor (not an echo of a pause already called for): the window was
    // longer than measured, or its quota is not all ours.
    if (answer.status === 429 && ticket.anchored && ticket.sentAt >= before) learner.anchorMissed();
    if (this.pausedUntil > before) {
      // A remembered window confirmed: its log starts from this pause, which said where the window
      // ends (its quota went at the run's start, wherever in a window that was).
      if (this.seeded !== undefined && this.log.from === 0 && !anchoredBefore && learner.anchor() !== undefined) this.log.from = this.log.seq;
      // (Not for an echo: requests in flight together meet the one congestion, once.)
      if (ticket.sentAt >= before) this.mirror.paused();
      // A window's quota, once recognised, may go at once when it ends; until a request sent after
      // it is admitted, no more go than the pause can have refilled.
      this.burstLeft = this.burstAfter();
      // (Refusals that say nothing: one probe goes alone, and the rest once it is admitted.)
      const cap = learner.probing?.() === true ? 1 : Math.max(this.burstLeft, learner.restartCap?.() ?? Infinity);
      this.restart = { cap, from: this.pausedUntil, admitted: 0, sent: 0, freed: 0 };
    } else if (ticket.sentAt >= this.restart.from) {
      // One that never reached the server frees its place (a dead network must not hold the rest
      // for good); as many admitted as the cap let go, the span goes past what the pause refilled.
      // (A 429 that called for no new pause — a Retry-After of 0 — frees its place too.)
      if (answer.status === 0 || answer.status === 429) this.restart.freed += 1;
      else if (++this.restart.admitted >= this.restart.cap) this.restart = { ...this.restart, cap: Infinity, from: Infinity };
    }
    const s = learner.settings();
    if (s.credits !== null && (answer.rateLimit?.remaining !== undefined || answer.status === 429)) {
      if (admitted) this.mirror.noteJitter(now - ticket.sentAt, this.roundTripMin);
      this.mirror.read(ticket, answer.status === 429 ? 0 : (answer.rateLimit?.remaining as number), now, s, this.roundTripMin);
    }
    return waitMs;
  }
}
