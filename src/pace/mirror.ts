/**
 * The server's quota as mirrored from its answers' counts (the learner with headers engaged): what
 * remained after the latest request the server counted, as of `lowAt`, regained since at the
 * refill the header learner measures; the requests in flight are spent from it. A request starts
 * only on a credit (docs/pacing.md, "With headers").
 */
import type { StartLog } from './log.js';
import type { PaceSettings } from './types.js';
import * as tune from './tuning.js';

/** What the mirror needs of a started request (gate.ts, Ticket). */
interface Started {
  sentAt: number;
  seq: number;
  inflightAtSend: number;
  /** What the mirror expected the server to have for it, before it took one. */
  mirrored?: number | undefined;
}

export class QuotaMirror {
  /** Null until an answer carried a count. `lowAnsweredAt`: when that answer arrived — a request sent after it was counted after it. */
  private low: number | null = null;
  private lowAt = 0;
  private lowAnsweredAt = -Infinity;
  /** The start whose count set the mirror: those after it are spent from it as they started. */
  private lowSeq = -1;
  /** When the request whose count set the mirror reached the server, as a send time (see creditsAt). */
  private lowSentAt = 0;
  /**
   * The share of a shortest round trip's refill the mirror credits: none at first (the count as of
   * its answer's arrival: what the server surely had), a step more each time an answer shows the
   * server had half a token or more beyond what the mirror expected, halved by each new pause.
   */
  private share = 0;
  private jitterMs = 0;
  private readonly recentTrips: number[] = [];
  /** The server's last "whole again" instant that the mirror was filled at. */
  private wholeAt: number | undefined;

  constructor(private readonly log: StartLog) {}

  get active(): boolean {
    return this.low !== null;
  }

  /**
   * May a request start at `now` on the mirror's credit? Either what it found (`mirrored`), or when
   * to ask again (and `held`: it waited for a credit, not a pause).
   */
  admit(now: number, inflight: number, s: PaceSettings): { mirrored: number } | { retryAt: number; onFinish?: true; held?: true } {
    // A window's quota is spent: the next request waits until a refusal would prove it one.
    // That refusal takes one request, over a short round trip: the rest wait for its answer.
    if (s.holdUntil !== undefined && now < s.holdUntil) return { retryAt: s.holdUntil };
    if (s.holdOne === true && inflight > 0) return { retryAt: now + tune.WINDOW_RECHECK_MS, onFinish: true };
    let credits = this.creditsAt(now, inflight, s);
    // The server said when its quota is whole again (a window's end, a bucket's refill): then the
    // mirror is whole whatever the refill estimate says (the answers tell the rest), once for each
    // such instant — granting one more each time a request asked after it let every waiting
    // request go at once when a pause ended there.
    if (credits < 1 && s.fullAt !== undefined && now >= s.fullAt && s.fullAt !== this.wholeAt) {
      this.wholeAt = s.fullAt;
      this.setLow(Math.max(s.capacity ?? 1, this.remainingAt(now, s)), now);
      credits = this.creditsAt(now, inflight, s);
    }
    // Nothing on its way to tell us more, and no refill to wait for: one request asks (a window
    // whose reset has passed, or a 429 that carried no count) — or the gate would wait for good.
    if (credits < 1 && inflight === 0 && s.refillPerSec <= 0 && (s.fullAt === undefined || now >= s.fullAt)) {
      this.setLow(1, now);
      credits = 1;
    }
    if (credits < 1) {
      // The refill estimate may change meanwhile: ask again within a quarter second.
      const untilCredit = s.refillPerSec > 0 ? ((1 - credits) / s.refillPerSec) * 1000 : 250;
      const untilFull = s.fullAt !== undefined && s.fullAt !== this.wholeAt ? s.fullAt - now : Infinity;
      return { retryAt: now + Math.max(1, Math.min(250, untilCredit, untilFull)), held: true };
    }
    return { mirrored: credits - 1 };
  }

  /** A new pause began: a request sent since the last one (not an echo) halves the share credited. */
  paused(): void {
    this.share = this.share / 2 < tune.SHARE_STEP / 4 ? 0 : this.share / 2;
  }

  /** An admitted round trip with a count: the spread of the last few over the shortest is the jitter. */
  noteJitter(ms: number, roundTripMin: number): void {
    this.recentTrips.push(ms);
    if (this.recentTrips.length > tune.RECENT_TRIPS) this.recentTrips.shift();
    this.jitterMs = Math.max(...this.recentTrips) - roundTripMin;
  }

  /** The mirror holds `level` now, every request in flight still to be spent from it. */
  private setLow(level: number, now: number): void {
    this.low = level;
    this.lowAt = now;
    this.lowSentAt = now;
    this.lowSeq = this.log.seq - 1;
  }

  /**
   * What a request starting now finds on the server, as mirrored. Surely: the count as of its
   * answer's arrival, every request in flight spent at once. Likely: the count was taken when its
   * request reached the server, a one-way trip after it left, and a request leaving now arrives a
   * one-way trip from now — so it runs on send times: the count as of a shortest round trip before
   * its answer arrived, each later start spending one as it left, the refill between them up to the
   * capacity, less the wire's jitter for the request about to leave; requests in flight that started
   * before it may have been counted after it, and are spent last. The mirror credits `share` of
   * what likely adds; with nothing counted for a long run of starts (answers without a count),
   * surely alone.
   */
  private creditsAt(now: number, inflight: number, s: PaceSettings): number {
    const cap = s.capacity ?? Infinity;
    const surely = this.remainingAt(now, s) - inflight;
    if (this.share <= 0 || this.log.seq - this.lowSeq > tune.LIKELY_STARTS_MAX) return surely;
    let level = this.low as number;
    let t = this.lowSentAt;
    let older = inflight;
    for (let q = Math.max(this.lowSeq + 1, this.log.base); q < this.log.seq; q++) {
      const sent = this.log.sentAt(q);
      // One that left before the count's moment is spent after the refill: the least it can leave.
      if (sent <= this.lowSentAt) continue;
      if (this.log.inFlight(q)) older -= 1;
      level = Math.min(cap, level + ((sent - t) / 1000) * s.refillPerSec) - 1;
      t = sent;
    }
    const likely = Math.min(cap, level + (Math.max(0, now - t - this.jitterMs) / 1000) * s.refillPerSec) - older;
    return surely + this.share * Math.max(0, likely - surely);
  }

  /** What the server has left now, as mirrored, before the requests in flight. */
  private remainingAt(now: number, s: PaceSettings): number {
    return Math.min(s.capacity ?? Infinity, (this.low as number) + (Math.max(0, now - this.lowAt) / 1000) * s.refillPerSec);
  }

  /**
   * An answer's count of what remains (0 for a 429), into the mirror. Answers overtake each other on
   * the wire, and so do requests: a count is the newest only when its request was sent after the
   * answer that set the mirror arrived. Otherwise it was in flight beside that one, and the server
   * may have counted either first — each count then differs from the other by at most the requests
   * in flight and those started since, and the lower is the later. A count higher by more than that
   * is a new window (or a refill faster than measured); lower by more, it was counted before a reset
   * already seen.
   */
  read(ticket: Started, remaining: number, now: number, s: PaceSettings, roundTripMin: number): void {
    const newest = this.low === null || ticket.sentAt >= this.lowAnsweredAt;
    let next = remaining;
    if (!newest) {
      const mirrored = this.remainingAt(now, s);
      const reorder = ticket.inflightAtSend + (this.log.seq - ticket.seq - 1) + 1;
      // (Against the count itself, not what the refill estimate added since.)
      if (remaining < (this.low as number) - reorder) return;
      if (remaining <= mirrored + reorder) next = Math.min(mirrored, remaining);
    }
    // The server had more for this request than the mirror expected, half a token or more: the
    // mirror, not the server, held the requests back — it may credit more of the round trip's refill.
    if (ticket.mirrored !== undefined && remaining >= ticket.mirrored + 0.5) this.share = Math.min(1, this.share + tune.SHARE_STEP);
    if (newest) {
      this.low = next;
      this.lowAt = now;
      this.lowSentAt = Math.max(ticket.sentAt, now - (Number.isFinite(roundTripMin) ? roundTripMin : 0));
      this.lowSeq = ticket.seq;
    } else this.setLow(next, now);
    this.lowAnsweredAt = now;
  }
}
