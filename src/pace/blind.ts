/**
 * The pace when the server publishes nothing about its limit but `429` + `Retry-After` — the
 * likeliest real case (docs/api.md: the limit's values and headers are unknown). Pure: given the
 * time and the answers, it decides a rate, a burst to spend after a pause, and a cap on requests
 * in flight; test/http/pace-sim.test.ts drives it against every limiter shape on a virtual clock.
 *
 * What a 429 teaches. Sending is split into spans: from the start (or the end of a pause) to the
 * request that met the next 429. Each 429 costs a whole second or more (Retry-After is honoured,
 * never cut short), so the design spends as few as it can:
 * - slow start doubles the pace until the first 429; that pace is above the limit (a bucket only
 *   drains while it is), by up to a few doublings with a large burst — the next span starts at half;
 * - a short span (under two seconds) was mostly what the pause refilled and says little of the
 *   rate, except that the pace that met it was too fast: the next pace lies between what the last
 *   cycle of span and pause achieved and that pace;
 * - a long span drained only the little a pause refills: its admitted rate is the limit's, and two
 *   spans after pauses give a bucket's rate and burst exactly (fit). The pace then holds just
 *   under it and probes up slowly enough that the next 429 is rare;
 * - and every span, short or long, bounds a token bucket's rate from both sides (bucketBounds):
 *   once those bounds agree within 5 %, a small bucket is held under the least of them — three
 *   429s in all, where the spans alone needed four to eight.
 * Measured per limiter shape in BENCHMARKS.md, beside the simulation's figures.
 *
 * A concurrency cap is a limit too: a 429 that came while more requests were in flight than any
 * admitted one ever had, at a rate no higher than was admitted before, shrinks the window of
 * requests in flight (to what was admitted) instead of the rate; it grows back by one after a
 * quiet stretch, as TCP grows its window.
 */

import type { Limit } from './types.js';

export interface BlindAnswer {
  /** When the answer arrived, and when its request was sent (ms). */
  at: number;
  sentAt: number;
  status: number;
  retryAfterMs?: number | undefined;
  /** Other requests in flight when this one was sent. */
  inflightAtSend: number;
  /**
   * Sharing a budget (central-gate.ts): the leader's own count of them, from each grant to its
   * answer's arrival there — never fewer than the server had, where `inflightAtSend` is a closer
   * estimate that may fall short.
   */
  inflightBound?: number | undefined;
}

interface Admit {
  sentAt: number;
  rtt: number;
}

interface Span {
  /** The pause before it (Infinity for the first: the limit was whole). */
  pauseMs: number;
  /** How long it lasted and how many of its requests were admitted. */
  T: number;
  A: number;
  /** The pace it began at, whether that was slow start's, and the pace that met its 429. */
  fromRate: number;
  slow: boolean;
  pace: number;
  /** Every request sent in it, in order (ms), the refused one's send, and how far a request's arrival may stray from its send (ms). */
  sends: number[];
  refusedAt: number;
  jitterMs: number;
  /** The longest round trip of its admitted answers (no request took longer one way), and its sends that failed in transport. */
  rttMaxMs: number;
  /** The shortest round trip of its admitted answers (Infinity: none). */
  rttMinMs: number;
  /** Its admitted requests: when each was sent and its round trip (ms), as their answers came. */
  admits: Admit[];
  /** The refused request's round trip (ms). */
  refusedRttMs: number;
  /**
   * Admitted requests sent after the refused one, within its jitter, whose answers came after its
   * 429: on the wire they may have overtaken it (a window's count, not a bucket's — see quotaCount).
   */
  overtook: number;
  failed: number;
  /** The pause its 429 called for (ms). */
  retryAfterMs: number;
  /** Whether the 429 that ended it said when to come back (Retry-After). */
  retryAfterKnown: boolean;
}

const INITIAL_RATE = 10;
const MIN_RATE = 0.1;
/** Slow start doubles the pace this often while requests wait for it. */
const DOUBLING_MS = 100;
/** After the first 429 (one span: only bounds), sit at this share of the span's upper bound. */
const FIRST_SHARE = 0.5;
/** …after a short span, with nothing better known. */
const SHORT_SHARE = 0.7;
/** A pace set at a bucket's least refill regrows fast up to this share of the pace that met the 429. */
const REGROW_SHARE = 0.5;
/** Spans whose admitted counts are within this share of the least met a window's quota. */
const WINDOW_SAME = 0.02;
/** …but under this count, only equal counts are a window's. */
const EXACT_QUOTA = 10;
/** This many spans after pauses that admitted exactly one count are a window, whatever bucket fits. */
const SAME_SPANS = 3;
/** The probe stays under this share of the pace that last met a 429… */
const UNDER_TOO_FAST = 0.97;
/** …which relaxes upward this share per second without a 429. */
const RELAX_PER_SEC = 0.0005;
/** A long span's limit is read from the rate admitted over its last seconds. */
const RECENT_MS = 2000;
/** A long span's pace within this share of the pace at its refused send is steady (recentFrom). */
const RAMP_SHARE = 0.9;
/** The shortest window a ramping span's recent admitted rate is read over: this long (ms), and this many gaps. */
const RAMP_MIN_MS = 500;
const RAMP_MIN_SENDS = 4;
/** A span this long drained little of what the pause refilled: its admitted rate is the limit's. */
const LONG_SPAN_MS = 1500;
/** Until solved, probe up this share of the pace per second… */
const PROBE_UNSOLVED = 0.03;
/** …once solved, hold at this share of the solved rate and probe this slowly. */
const HOLD = 0.985;
const PROBE_SOLVED = 0.001;
/** Two spans fit a bucket (see fit) when their lengths differ by this much… */
const FIT_MIN_SPREAD_MS = 1000;
/** …and their pauses by no more than this. */
const FIT_SAME_PAUSE_MS = 100;
/** A bucket whose burst is under this share of what a pause would refill is paced by the fit… */
const SMALL_BURST = 0.5;
/** …at this share of its rate, probing up this share of it per second (+1.2 % a minute). */
const HOLD_FIT = 0.99;
/** A remembered rate is started from at this share of it (a bucket of one or two: SEED_UNDER_SMALL, as jitter alone empties it). */
const SEED_UNDER = 0.99;
const SEED_UNDER_SMALL = 0.97;
/**
 * A minute without a 429 (QUIET_AFTER_MS), the probe and its relaxing ceiling double their speed
 * each QUIET_DOUBLING_MS, up to QUIET_MAX times: a limit raised since is found within minutes.
 */
const QUIET_AFTER_MS = 60_000;
const QUIET_DOUBLING_MS = 20_000;
const QUIET_MAX = 256;
const PROBE_FIT = 0.0002;
/**
 * From this pace up, timers (whole milliseconds, and late) cannot space requests by themselves:
 * one late start may be made up for even before the bucket is measured. A limit this fast that
 * allows no two requests closer than its gap would refuse any client on a real network.
 */
const FAST_RATE = 100;
/** At most this many requests go back to back to make up for late timers. */
const CATCH_UP_MAX = 16;
/** A quiet stretch this long (no 429) lets a shrunk window grow by one. */
const WINDOW_GROW_MS = 60_000;
/** Shared, a cap this new is still lowered by a 429 granted with fewer in flight (learn()). */
const WINDOW_NEW_MS = 10_000;
/** A refusal's round trip this share of an admitted one's is a wire's: a cap's window then spans it. */
const WIRE_SHARE = 0.1;
/** …and an admission's round trip longer than a refusal's by this share of it is its service time. */
const SERVICE_SHARE = 0.2;
/** A 429 this soon after the window grew takes the growth back. */
const WINDOW_PROBE_MS = 10_000;
/** A span's send times are kept up to this many; a longer one is left out of the bounds (their cost). */
const SPAN_SENDS_MAX = 5_000;
/** The bucket's bounds are sought over rates this far apart (a share), up to 1.5× the pace that met the 429… */
const BOUNDS_STEP = 0.001;
/** …and the bound from above first coarsely, from the top down. */
const BOUNDS_COARSE = 0.02;
/** Equal counts are a bucket's, not a window's, when a bucket would need this share of the pace as refill. */
const BUCKET_NOT_WINDOW = 0.4;
/** …or, for a quota under BURST_MIN_QUOTA, when one that fits would refill this share of it in a window's length. */
const BUCKET_REFILLS_QUOTA = 0.75;
/**
 * …or when the fastest bucket that fits (the bound from above, or the search's ceiling when the
 * spans give none) would refill more than this many quotas in a window's length: read as the
 * window, the log would hold it under its rate with no 429 to say so. (At 1.25, small windows were
 * read a span or more later: a fixed window of 5 per second over 5 ms fell from 94 to 74 %.)
 */
const BUCKET_OUTRUNS_QUOTA = 3;
/**
 * A window whose log missed keeps its quota sent at once (one 429 in Q requests) only from this
 * quota up; from it up, too, equal counts are a window even when a bucket fits them (rule 5).
 */
const BURST_MIN_QUOTA = 50;
/** Of what a measured bucket's pause refilled, this share goes at once when the pause ends. */
const REFILL_SHARE = 0.9;
/** Rates that fit the spans, all within this factor of the least, are the rate (see bucketBounds). */
const BOUNDS_TIGHT = 1.05;
/** A round trip longer than the shortest by more than this says nothing more of when its request arrived. */
const WIRE_SLACK_MAX_MS = 50;
/** …and the shortest round trip seen may be a little over the wire's least: arrivals may be this much later. */
const WIRE_SLACK_MS = 3;
/** A fixed window is read from the phase of this many spans at least (judgeFixedGrid)… */
const GRID_SPANS = 3;
/** …this many for a quota under BURST_MIN_QUOTA… */
const GRID_SPANS_SMALL = 4;
/** …and only if the quotas that fit at every phase lie within this share of the least. */
const GRID_SPREAD = 0.05;
/** A span's windows before its refused request's are checked back this far (their cost, at a 429). */
const GRID_WINDOWS_BACK = 16;
/** Back-off for a 429 without Retry-After: exponential with jitter, capped. */
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 30_000;

export class BlindPace {
  /** Requests per second the spacing keeps to. */
  rate: number;
  /** Most requests in flight (Infinity: only --concurrency binds). */
  window = Infinity;
  private slowStart: boolean;
  /** After a pace read as a bucket's least refill, it regrows by doubling each second up to this. */
  private regrowTo = 0;
  private lastGrowthAt: number | undefined;
  private readonly ceiling: number;

  private spanStart: number | undefined;
  private spanFromRate = 0;
  private spanSlow = true;
  private spanAdmitted = 0;
  private spanMaxInflight = 0;
  /**
   * The most requests in flight any admitted request had at its send, since a cap was last cut: a
   * 429 with no more than that in flight is no cap's. (Over a real network the count grows with
   * the pace times the round trip: a span after a pause admits its first few with few in flight,
   * and the bucket's 429 after them then came with more — on a 40-ms wire, read as a cap of 7,
   * then 4, each setting the pace free.)
   */
  private admittedInflightMax = 0;
  /** What the span that met the last (non-echo) 429 admitted. */
  private lastSpanAdmitted = Infinity;
  /**
   * That span as learned, and when it began: an admitted answer to a request it sent before the
   * refused one, arriving after the 429 (answers overtake each other on the wire), still counts in
   * it — a sliding window's quota of 100 read as 99 held the log one short of it. (Not one sent
   * after the refused one: a bucket's refill may have admitted it, and counting those made a bucket
   * of 5 refilling 10 a second over a 40-ms wire look larger: 87 -> 69 %.)
   */
  private lastSpan: Span | undefined;
  private lastSpanStart = Infinity;
  /** The spans a recognised window's quota was read from (judgeBurst): their late answers raise it. */
  private quotaFrom: Span[] = [];
  private lastPauseMs = Infinity;
  private readonly spans: Span[] = [];
  /** The rate measured over a long span (undefined until then). */
  private solvedRate: number | undefined;
  /** What a pause refills of the bucket, when two spans measured it (see fit). */
  private burstEstimate: number | undefined;
  /**
   * A 429 came after the bucket was measured: the part of a gap a late timer may be made up for
   * (catchUp) is withdrawn — the reading may be wrong (a bucket of one at 150 a second, refusing
   * through the jitter, fitted one of 3.4 at 104 a second).
   */
  private partRefuted = false;
  /** The 429 before the next span starts is an echo of the same congestion. */
  private pausedUntil = -Infinity;
  private consecutive429 = 0;
  private lastWindowCutAt = -Infinity;
  /** When a cap was first found (or handed over): see the shared rule in learn(). */
  private windowFoundAt = -Infinity;
  /** When the window last grew by one (a probe that the next 429, if soon, takes back). */
  private windowGrownAt = -Infinity;
  /** The lowest pace that met a 429 (relaxed slowly upward while none comes): the probe stays under it. */
  private tooFast = Infinity;
  /** Send times of the current span's admitted requests (the recent admitted rate). */
  private readonly admittedAt: number[] = [];
  /** The pace at each send of the current span ([send time, pace]; the recent admitted rate's window). */
  private readonly paceAtSend: Array<[number, number]> = [];
  /** Send times of every request of the current span, and its admitted requests (send time, round trip). */
  private spanSends: number[] = [];
  private spanAdmits: Admit[] = [];
  private spanFailed = 0;
  /**
   * A window-like limit restores a whole quota after each pause, whatever the pace before it:
   * then the quota is best sent at once when a pause ends (and each pause costs little). Set when
   * two spans after pauses admitted the same number; refuted for good by a burst that meets a 429
   * before it is spent (a bucket refills only a little during a pause).
   */
  private burst = 0;
  private burstRefuted = false;
  /** The last span under a recognised window admitted less than its quota (see judgeBurst). */
  private shortOfQuota = false;
  /**
   * A recognised window's quota and length (see anchor): the length is the pause a 429 called for
   * after a quota sent at once from a window's start — ceil(length − the little the quota took).
   * A 429 met under it ends it for good (`anchorEnded`).
   */
  private anchorQuota = 0;
  private anchorWindowMs = 0;
  private anchorEnded = false;
  /** A bucket whose rate the spans pin (within BOUNDS_TIGHT): its least rate, and its size at that rate. */
  private refill: { rate: number; burst: number } | undefined;
  /** What went at once when the span now open began (burstAfter). */
  private spanBurst = 0;
  private boundsFor: { span: Span | undefined; upTo: number; result: ReturnType<typeof bucketBounds> } | undefined;
  /** Seeded from a remembered limit (seedLimit) that this run's 429s have not yet confirmed or refuted. */
  private seeded: Limit['shape'] | undefined;
  /** A remembered window's log is kept to once a pause has ended on its quota (seedLimit). */
  private anchorArmed = true;
  /** A 429 was met in this run: what the snapshot says was learnt now. */
  learnt = false;
  /** When the first request went, and the answers admitted since: the rate a cap admits. */
  private firstSentAt: number | undefined;
  private admittedCount = 0;
  private lastAnswerAt = 0;
  /** This run started from a remembered limit (its first span did not begin with a whole bucket, perhaps). */
  private seededAtStart = false;
  /** The first span, which began with a whole bucket: a bucket's size is at least what it admitted beyond the refill. */
  private firstSpan: Span | undefined;

  constructor(
    opts: {
      ceiling?: number | undefined;
      initialRate?: number | undefined;
    },
    private readonly random: () => number,
  ) {
    this.ceiling = opts.ceiling ?? Infinity;
    this.rate = Math.min(this.ceiling, opts.initialRate ?? INITIAL_RATE);
    // With --rate the operator has said how fast: start there and only ever go slower.
    this.slowStart = opts.ceiling === undefined;
    if (opts.ceiling !== undefined) this.rate = opts.ceiling;
  }

  /**
   * Starts from a limit remembered from an earlier run, a little under it, with no slow start: a
   * bucket at its refill (its burst at once, as far as it has refilled since), a window's quota at
   * once (its log kept to once the 429 after it has said where the window ends), a cap's window.
   * The first 429 confirms it (a span of seconds) or sends the learning back to its start.
   */
  seedLimit(l: Limit, now: number): void {
    this.seededAtStart = true;
    this.quietFrom = now;
    this.slowStart = false;
    this.regrowTo = 0;
    this.seeded = l.shape;
    if (l.maxInFlight !== undefined) this.capAtMost(l.maxInFlight, now);
    if (l.shape === 'concurrency') {
      this.rate = Math.min(this.ceiling, 2 * l.rate);
      return;
    }
    if (l.shape === 'window' && l.quota !== undefined && l.windowMs !== undefined) {
      this.holdQuota(l.quota, l.windowMs);
      this.anchorArmed = false;
      this.rate = Math.min(this.ceiling, Math.max(l.rate, (l.quota * 1000) / l.windowMs));
      return;
    }
    if (l.unconfirmed === true) {
      // A pace, not a rate: started from as slow start's end, and probed up as an unsolved one.
      this.doubted = true;
      this.rate = Math.min(this.ceiling, l.rate);
      return;
    }
    this.solvedRate = l.rate;
    if (l.shape === 'bucket' && l.burst !== undefined) {
      this.burstEstimate = l.burst;
      this.refill = { rate: l.rate, burst: l.burst };
    }
    this.rate = Math.min(this.ceiling, l.rate * ((l.burst ?? 1) >= 3 ? SEED_UNDER : SEED_UNDER_SMALL));
  }

  /** What may go at once when a seeded run starts: a window's quota, what a bucket has refilled since `endedAt`. */
  startBurst(now: number, endedAt: number | undefined): number {
    if (this.seeded === 'window') return this.anchorQuota;
    if (this.seeded !== 'bucket' || this.refill === undefined) return 0;
    const refilled = endedAt === undefined ? Infinity : (this.refill.rate * Math.max(0, now - endedAt)) / 1000;
    // (The size remembered is the least that fits what was admitted, give or take one.)
    return Math.max(0, Math.floor(Math.min(this.refill.burst - 1, refilled)));
  }

  /** What this run knows of the limit (undefined: nothing), and the rate admitted, for a cap's. */
  snapshot(now: number): Omit<Limit, 'headers' | 'source' | 'learntAt'> | undefined {
    const admitted = this.firstSentAt !== undefined && this.lastAnswerAt > this.firstSentAt ? (this.admittedCount * 1000) / (this.lastAnswerAt - this.firstSentAt) : 0;
    // (A window grown by one and not yet through its probe is the one before.)
    const held = now - this.windowGrownAt < WINDOW_PROBE_MS ? this.window - 1 : this.window;
    const cap = this.window !== Infinity ? { maxInFlight: held } : {};
    if (this.anchorQuota > 0 && this.burst > 0 && !this.anchorEnded) return { shape: 'window', quota: this.anchorQuota, windowMs: this.anchorWindowMs, rate: (this.anchorQuota * 1000) / this.anchorWindowMs, ...cap };
    // A bucket's size is at least what the first span, which began with it whole, admitted beyond its rate.
    const first = this.firstSpan;
    const atStart = (rate: number) => (first !== undefined && !this.seededAtStart ? first.A - (rate * first.T) / 1000 : 0);
    const bucket = this.refill ?? (this.solvedRate !== undefined && this.burstEstimate !== undefined ? { rate: this.solvedRate, burst: this.burstEstimate } : undefined);
    if (bucket !== undefined) return { shape: 'bucket', rate: bucket.rate, burst: Math.max(bucket.burst, atStart(bucket.rate)), ...cap };
    if (this.solvedRate !== undefined && atStart(this.solvedRate) >= 2) return { shape: 'bucket', rate: this.solvedRate, burst: atStart(this.solvedRate), ...cap };
    if (this.window !== Infinity && admitted > 0) return { shape: 'concurrency', rate: admitted, maxInFlight: held };
    if (this.solvedRate !== undefined) return { shape: 'rate', rate: this.solvedRate, ...cap };
    if (this.spans.length > 0) return { shape: 'rate', rate: this.rate, unconfirmed: true, ...cap };
    return undefined;
  }

  /** Starts from a pace found elsewhere: no slow start; probed up as an unsolved one. */
  seed(rate: number): void {
    this.regrowTo = 0;
    this.rate = Math.max(MIN_RATE, Math.min(this.ceiling, rate));
    this.slowStart = false;
  }

  /** A request goes out now. */
  onSend(now: number): void {
    if (this.spanStart === undefined || this.spanStart < this.pausedUntil) {
      this.spanStart = Math.max(now, this.pausedUntil === -Infinity ? now : this.pausedUntil);
      this.spanFromRate = this.rate;
      this.spanSlow = this.slowStart;
      this.spanAdmitted = 0;
      this.spanMaxInflight = 0;
      this.admittedAt.length = 0;
      this.paceAtSend.length = 0;
      this.spanSends = [];
      this.spanAdmits = [];
      this.spanFailed = 0;
      this.spanBurst = this.burstAfter();
    }
    if (this.quietFrom === Infinity) this.quietFrom = now;
    if (this.spanSends.length < SPAN_SENDS_MAX) this.spanSends.push(now);
    if (this.paceAtSend.length >= 8192) this.paceAtSend.splice(0, 4096);
    this.paceAtSend.push([now, this.rate]);
  }

  /** Requests are waiting for the pace: grow it (slow start, then a probe). */
  onBusy(now: number): void {
    if (now < this.pausedUntil || this.rate >= this.ceiling) return;
    const last = this.lastGrowthAt ?? now;
    this.lastGrowthAt = now;
    const dt = Math.min(now - last, 1000);
    if (dt <= 0) return;
    if (this.slowStart) this.rate *= 2 ** (dt / DOUBLING_MS);
    else if (this.rate < this.regrowTo) this.rate = Math.min(this.regrowTo, this.rate * 2 ** (dt / 1000));
    else {
      const quiet = Math.min(QUIET_MAX, 2 ** (Math.max(0, now - this.quietFrom - QUIET_AFTER_MS) / QUIET_DOUBLING_MS));
      const probe = quiet * (this.solvedRate === undefined ? PROBE_UNSOLVED * this.rate : (this.burstEstimate !== undefined ? PROBE_FIT : PROBE_SOLVED) * this.solvedRate);
      // Up, but not into the pace that last met a 429 — which itself relaxes, slowly, in case the
      // limit was raised.
      this.tooFast *= 1 + quiet * RELAX_PER_SEC * (dt / 1000);
      this.rate = Math.max(this.rate, Math.min(this.rate + probe * (dt / 1000), this.tooFast * UNDER_TOO_FAST));
    }
    this.rate = Math.min(this.rate, this.ceiling);
    if (this.window !== Infinity && now - Math.max(this.lastWindowCutAt, this.pausedUntil) > WINDOW_GROW_MS) {
      this.window += 1;
      this.lastWindowCutAt = now;
      this.windowGrownAt = now;
    }
  }

  /**
   * A cap found over a wire, as requests in flight here. A request holds a place on the server for
   * its service time and one here for its whole round trip, so a window of the server's cap keeps
   * the server busy only that share of the time (a cap of 2 taking 100 ms, over a wire of 20 ms
   * each way, was held at 69 %). The service time is what an admitted round trip takes beyond a
   * refused one (a refusal is answered at once); the server was full of what left within that time
   * before the refused request; the window is that cap over the service's share of the round trip.
   * Over a loopback, whose round trips are all service, this is the cap itself.
   */
  private windowOverWire(span: Span): number {
    const serviceMs = span.rttMinMs - span.refusedRttMs;
    // (A bucket's refusal takes as long as an admission: what differs is jitter, no service.)
    if (span.refusedRttMs < WIRE_SHARE * span.rttMinMs || serviceMs < Math.max(SERVICE_SHARE * span.rttMinMs, 2 * span.jitterMs)) return 1;
    const onServer = span.sends.filter((t) => t <= span.refusedAt && t > span.refusedAt - serviceMs).length - 1;
    return Math.round((Math.max(1, onServer) * span.rttMinMs) / serviceMs);
  }

  /** The cap is at most `n` in flight (a leader's count, or the cap a last leader handed over): never raises it. */
  capAtMost(n: number, now: number): void {
    if (n >= this.window) return;
    if (this.window === Infinity) this.windowFoundAt = now;
    this.window = Math.max(1, n);
    this.lastWindowCutAt = now;
    this.admittedInflightMax = Math.min(this.admittedInflightMax, this.window - 1);
  }

  /** Nothing waits: growth restarts from the next busy moment. */
  onIdle(): void {
    this.lastGrowthAt = undefined;
  }

  /** Feeds one answer (status 0: transport failure); returns the pause it calls for (ms). */
  observe(o: BlindAnswer): number {
    this.firstSentAt = Math.min(this.firstSentAt ?? o.sentAt, o.sentAt);
    this.lastAnswerAt = Math.max(this.lastAnswerAt, o.at);
    if (o.status !== 0 && o.status !== 429) this.admittedCount += 1;
    if (o.status === 0) {
      // It may never have reached the server: not to be counted as admitted (bucketBounds).
      if (this.spanStart !== undefined && o.sentAt >= this.spanStart) this.spanFailed += 1;
      return 0;
    }
    if (o.status !== 429) {
      this.consecutive429 = 0;
      if (this.spanStart !== undefined && o.sentAt >= this.spanStart) {
        this.spanAdmitted += 1;
        this.spanMaxInflight = Math.max(this.spanMaxInflight, o.inflightAtSend);
        this.admittedInflightMax = Math.max(this.admittedInflightMax, o.inflightAtSend);
        if (this.admittedAt.length >= 8192) this.admittedAt.splice(0, 4096);
        this.admittedAt.push(o.sentAt);
        if (this.spanAdmits.length < SPAN_SENDS_MAX) this.spanAdmits.push({ sentAt: o.sentAt, rtt: o.at - o.sentAt });
      }
      // (Every answer fed after the 429 was left out of the span's count: `lastSpan` is set when the
      // 429 is learned, and the next span begins after the pause, later than the refused send.)
      if (this.lastSpan !== undefined && o.sentAt >= this.lastSpan.refusedAt && o.sentAt < this.lastSpan.refusedAt + this.lastSpan.jitterMs && o.sentAt < this.pausedUntil) {
        this.lastSpan.overtook += 1;
        this.raiseQuota();
      }
      if (this.lastSpan !== undefined && o.sentAt >= this.lastSpanStart && o.sentAt < this.lastSpan.refusedAt) {
        this.lastSpan.A += 1;
        this.lastSpanAdmitted += 1;
        if (this.lastSpan.admits.length < SPAN_SENDS_MAX) this.lastSpan.admits.push({ sentAt: o.sentAt, rtt: o.at - o.sentAt });
        this.raiseQuota();
      }
      return 0;
    }
    this.consecutive429 += 1;
    this.quietFrom = o.at;
    const wait = o.retryAfterMs ?? this.backoff();
    // Requests sent before the last pause ended meet the same congestion: no new lesson.
    if (o.sentAt >= this.pausedUntil && this.spanStart !== undefined) {
      this.lastSpanAdmitted = this.spanAdmitted;
      this.learn(o);
    }
    // (An echo that calls for no longer pause leaves the pause's length as it was: the burst after
    // it, and the span's reading of it, go by the pause that holds.)
    if (o.at + wait >= this.pausedUntil) this.lastPauseMs = wait;
    this.pausedUntil = Math.max(this.pausedUntil, o.at + wait);
    this.lastGrowthAt = undefined;
    return wait;
  }

  private learn(o: BlindAnswer): void {
    this.regrowTo = 0;
    if (this.burstEstimate !== undefined && this.solvedRate !== undefined) this.partRefuted = true;
    const T = Math.max(1, o.sentAt - (this.spanStart as number));
    const A = this.spanAdmitted;
    const rtts = this.spanAdmits.map((x) => x.rtt);
    const span: Span = { pauseMs: this.lastPauseMs, T, A, fromRate: this.spanFromRate, slow: this.spanSlow, pace: this.rate, sends: sorted(this.spanSends), refusedAt: o.sentAt, jitterMs: jitterOf(rtts), rttMaxMs: rtts.reduce((a, b) => Math.max(a, b), 1), rttMinMs: rtts.reduce((a, b) => Math.min(a, b), Infinity), failed: this.spanFailed, retryAfterMs: o.retryAfterMs ?? 0, retryAfterKnown: o.retryAfterMs !== undefined, admits: this.spanAdmits, refusedRttMs: o.at - o.sentAt, overtook: 0 };
    const rateBefore = (A / T) * 1000;
    // (Its admitted answers that come later are added to it alone, below: not twice.)
    this.spanAdmits = [];
    this.lastSpan = span;
    this.lastSpanStart = this.spanStart as number;
    this.learnt = true;
    if (span.pauseMs === Infinity) this.firstSpan ??= span;
    const seed = this.seeded !== undefined ? this.judgeSeed(span) : undefined;
    if (seed === 'done') return;

    // The first 429 soon after the window grew by one, with the window full: the probe found the
    // cap again. The count of requests in flight at a send can be one short of the server's (an
    // answer on its way back is still in flight there), so this is not left to the rule below,
    // which would then cut the rate instead.
    if (this.window !== Infinity && o.sentAt >= this.windowGrownAt && o.sentAt - this.windowGrownAt < WINDOW_PROBE_MS && o.inflightAtSend >= this.window - 2) {
      this.window -= 1;
      this.windowGrownAt = -Infinity;
      this.lastWindowCutAt = o.at;
      return;
    }
    // Shared, a cap found: a 429 granted with fewer in flight than the window, by the leader's count
    // that never falls short, shows the cap lower — where one process's exact count would show the
    // rate. (A cap of 3 at 40 ms, read as 4 or 5 at the first 429 while the processes started and
    // every hop through Redis was slow, then met a 429 every few seconds at 3 in flight, each read
    // as a rate's: 50–58 a second of the 75 it allows, in half the runs.) Each such 429 lowers it by
    // one at least; one with nothing else in flight is no cap's, nor one whose server held the
    // admitted no longer than it took to refuse (a bucket read as a cap: three processes on 200/s
    // burst 20 over a jittery wire fell to 63 % as its rate's 429s shrank the window instead).
    // Only while the cap is new (its first reading, or one handed over): later, the gate never grants
    // past the window, so every 429 would pass, and an API whose handler takes a while behind a
    // quick 429 — a rate limit, its cap misread — would have its window ratcheted to one.
    const serviceMs = span.rttMinMs - span.refusedRttMs;
    const served = Number.isFinite(serviceMs) && serviceMs >= Math.max(SERVICE_SHARE * span.rttMinMs, 2 * span.jitterMs);
    if (o.inflightBound !== undefined && this.window !== Infinity && o.sentAt - this.windowFoundAt < WINDOW_NEW_MS && o.inflightBound >= 1 && o.inflightBound < this.window && served) {
      this.capAtMost(o.inflightBound, o.at);
      return;
    }
    // Sending a window's quota at once, the 429 that ends it is expected: nothing to learn — not a
    // cap either (the quota's requests were all in flight together by design).
    if (this.burst > 0 && A + mayHaveOvertaken(span) >= Math.max(this.burst, this.anchorQuota) && !this.slowStart) {
      this.shortOfQuota = false;
      this.spans.push(span);
      if (this.spans.length > 4) this.spans.shift();
      return;
    }
    // More in flight than any admitted request had, at a rate no higher than was admitted: the
    // limit is on concurrency. (Not after a burst that went at once by design — a measured bucket's
    // refill, a window's quota — when the 429 met one of its requests, or one sent before any answer
    // came back, or came after all were admitted: they were in flight together because they were
    // sent together. A window of 5 read from a bucket of 3 refilling 15 a second met a 429 at the
    // burst's third request, read as a cap of 3 with the pace set to 1.5× the burst's 1,000 a
    // second: 71 % of the limit.)
    const sentTogether = this.spanBurst > 0 && (A >= this.spanBurst || T < span.rttMinMs || this.spanSends.filter((t) => t <= o.sentAt).length <= this.spanBurst);
    if (!sentTogether && o.inflightAtSend > this.admittedInflightMax && A > 0 && this.window > Math.max(this.spanMaxInflight + 1, o.inflightAtSend) && !this.slowStartRateLimited(rateBefore)) {
      // It had k others in flight, so the cap is at most k; admitted ones had up to spanMaxInflight.
      // (Over a wire, wider — but a cut never raises the window.)
      if (this.window === Infinity) this.windowFoundAt = o.at;
      this.window = Math.max(1, this.spanMaxInflight + 1, o.inflightAtSend, Math.min(this.window - 1, this.windowOverWire(span)));
      this.lastWindowCutAt = o.at;
      this.admittedInflightMax = this.spanMaxInflight;
      this.slowStart = false;
      this.rate = Math.min(this.ceiling, Math.max(this.rate, rateBefore * 1.5));
      return;
    }
    this.spans.push(span);
    if (this.spans.length > 4) this.spans.shift();
    this.judgeBurst(span);
    // Sending a window's quota at once, the 429 that ends it is expected: nothing to learn.
    if (this.burst > 0 && span.A >= this.burst && !this.slowStart) return;
    this.slowStart = false;
    const paceAt429 = this.rate;
    const estimate = this.estimate(paceAt429, o.sentAt);
    this.tooFast = Math.min(this.tooFast, paceAt429);
    this.rate = Math.max(MIN_RATE, Math.min(this.ceiling, estimate));
  }

  /**
   * The first 429 after a remembered limit was taken up. A window's: a span that admitted its quota
   * confirms it (the 429 said where the window ends, and its log is kept to from then on); one that
   * admitted half of it or more says the quota is now that (the next confirms it); fewer, the limit
   * is learnt afresh. A rate's: a span of seconds confirms it (the pace holds under what it admitted
   * lately); a short one says the limit is lower now, and the pace comes down as from slow start's
   * first 429. `done`: nothing more to learn from this 429.
   */
  private judgeSeed(span: Span): 'done' | undefined {
    const shape = this.seeded;
    this.seeded = undefined;
    if (shape === 'window') {
      const count = quotaCount(span) + mayHaveOvertaken(span);
      if (count >= this.anchorQuota) {
        // (A quota raised since: the count is the quota now.)
        if (count > this.anchorQuota) this.holdQuota(count, this.anchorWindowMs);
        this.anchorArmed = true;
        return 'done';
      }
      if (count >= this.anchorQuota / 2) {
        this.holdQuota(count, this.anchorWindowMs);
        this.seeded = 'window';
        return 'done';
      }
      this.forgetLimit();
      return undefined;
    }
    if (shape === 'concurrency') return undefined;
    if (span.T >= LONG_SPAN_MS) {
      this.solvedRate = undefined;
      return undefined;
    }
    if (!this.doubted) {
      // Perhaps only a little over (a rate measured high, jitter): the pace steps down as after
      // any short span of a solved rate; a second one drops what was remembered.
      this.doubted = true;
      this.seeded = shape;
      return undefined;
    }
    this.forgetLimit();
    return undefined;
  }

  /** What was known of the limit is dropped: learnt afresh, as from slow start's first 429. */
  private forgetLimit(): void {
    this.solvedRate = undefined;
    this.burstEstimate = undefined;
    this.refill = undefined;
    this.spans.length = 0;
    this.quotaFrom = [];
    this.burst = 0;
    this.burstRefuted = false;
    this.shortOfQuota = false;
    this.anchorQuota = 0;
    this.anchorWindowMs = 0;
    this.anchorEnded = false;
    this.anchorArmed = true;
    this.tooFast = Infinity;
    this.partRefuted = false;
    this.boundsFor = undefined;
    this.firstSpan = undefined;
  }
  private doubted = false;
  /** Since the last 429 (or the seed): the probe speeds up with it (QUIET_DOUBLING_MS). */
  private quietFrom = Infinity;

  /**
   * In slow start the pace is far above the rate: a 429 there is the rate's, whatever was in
   * flight — unless the requests actually sent were few for the pace (the window bound them).
   */
  private slowStartRateLimited(rateBefore: number): boolean {
    return this.slowStart && rateBefore > 0.6 * this.rate;
  }

  /** bucketBounds over the spans kept, once per 429 (judgeBurst and estimate both ask). */
  private bounds(upTo: number): ReturnType<typeof bucketBounds> {
    const last = this.spans[this.spans.length - 1];
    const cached = this.boundsFor;
    if (cached !== undefined && cached.span === last && cached.upTo === upTo) return cached.result;
    // A least rate above the pace that met the 429 is no bucket worth believing: a bucket refuses
    // only a pace above its rate, give or take the jitter. (Believed, one kept a window of 50 a
    // second unrecognised for a whole import over real HTTP on a loaded machine — late timers had
    // sent bursts over the nominal pace, and a span that ran across a window's end admitted two
    // quotas: a bucket of 182 a second against a pace of 128.)
    const fit = bucketBounds(this.spans, upTo);
    const result = fit !== undefined && fit.rate <= upTo ? fit : undefined;
    this.boundsFor = { span: last, upTo, result };
    return result;
  }

  /**
   * Requests that may be in flight after a pause until one sent after it is admitted: one more
   * than the span before it admitted (what a pause of that length refilled, give or take). Over a
   * real network the pace would send a round trip's worth before the first answer; those past the
   * refill would all meet a 429 (a 40-ms wire: 7 of each span's 8).
   */
  restartCap(): number {
    return Math.max(1, this.lastSpanAdmitted + 1);
  }

  /** Requests that may go at once when a pause ends: a window's quota, once one is recognised. */
  burstAfter(): number {
    if (this.burst > 0) return this.burst;
    // A bucket measured: what the pause refills is spent at once when it ends, as the server
    // allows — paced at the rate, those tokens would never be used, and the pause would be lost.
    return this.refill !== undefined && this.lastPauseMs !== Infinity ? Math.floor(REFILL_SHARE * Math.min(this.refill.burst, (this.refill.rate * this.lastPauseMs) / 1000)) : 0;
  }

  /**
   * A recognised window, as a quota per length: no more than `quota` requests start within
   * `windowMs` of the answer to an earlier one, taken half the shortest round trip before it came
   * (the gate keeps the log; gate.ts, TRIP_CREDIT). A request answered had reached the server a way
   * back before, so one sent a window's length after that reaches it after the window that counted
   * the other has ended — fixed or sliding, whatever the wire's delays — and
   * each window's quota goes at its start with no 429 to end it. Undefined until a window is
   * recognised (rule 5), and once it has been refuted or has met a 429.
   */
  anchor(): { quota: number; windowMs: number } | undefined {
    if (this.burst <= 0 || this.anchorQuota <= 0 || this.anchorWindowMs <= 0 || this.anchorEnded || !this.anchorArmed) return undefined;
    return { quota: this.anchorQuota, windowMs: this.anchorWindowMs };
  }

  /**
   * A request the anchor let go met a 429: the window is longer than its pause said, its quota is
   * not all ours, or it is no window. Each costs at most what the anchor saves, so the anchor ends
   * for good, and the quota goes as before it (at once, then at the pace until a 429).
   */
  anchorMissed(): void {
    this.anchorEnded = true;
    // Without the log, each window's quota goes at once and a 429 ends it: one request in Q is a
    // 429. Under BURST_MIN_QUOTA that is over 2 %, and the window's reading ends with the log (a
    // bucket of 5 refilling 10 a second, read as a window of 6, went on so: 65 %, 11 % 429s).
    if (this.anchorQuota < BURST_MIN_QUOTA) {
      this.burst = 0;
      this.burstRefuted = true;
    }
  }

  /** A window of `quota` per `windowMs` recognised (rule 5): most of the quota goes at once after each pause. */
  private holdQuota(quota: number, windowMs: number): void {
    this.burst = Math.floor(quota * 0.9);
    this.anchorQuota = quota;
    this.anchorWindowMs = windowMs;
  }

  /**
   * The last span may have just set a window's quota (judgeBurst runs at its 429): the quota is the
   * least count of the spans it was read from, now perhaps one higher.
   */
  private raiseQuota(): void {
    if (this.anchorEnded || this.burst <= 0 || this.lastSpan === undefined || !this.quotaFrom.includes(this.lastSpan)) return;
    const least = Math.min(...this.quotaFrom.map(quotaCount));
    if (least > this.anchorQuota) this.holdQuota(least, this.anchorWindowMs);
  }

  private judgeBurst(cur: Span): void {
    // A window admits its whole quota after a pause: two spans in a row that began with it at once
    // and admitted less (a bucket of 5 refilling 10 a second, read as a window of 6, admitted 5
    // each time, and met a 429 each second) are no window's. One alone may be: a request the
    // server counted that timed out here, an answer still on its way, another client's request.
    const short = this.burst > 0 && cur.A + cur.failed + mayHaveOvertaken(cur) < Math.max(this.burst, this.anchorQuota);
    const twice = short && this.shortOfQuota;
    this.shortOfQuota = short;
    if (this.burst > 0 && (cur.A < this.burst || twice)) {
      this.burst = 0;
      this.burstRefuted = true;
      return;
    }
    if (this.burstRefuted || this.burst > 0) return;
    // A window's quota is the least a short span that began with a whole quota (the first, or one
    // after a pause) admitted: one that went on past the window's end admitted more (the rest of one
    // window and part of the next). Two such spans admitting that least number, to within a request
    // or two, are a window; a bucket's spans admit what the pause refilled plus what dripped in
    // meanwhile, which seldom repeats so closely.
    const afterPause = this.spans.filter(quotaSpan);
    const least = afterPause.length > 0 ? Math.min(...afterPause.map(quotaCount)) : 0;
    // (Under EXACT_QUOTA the counts must be equal: a window admits its whole quota each time, while
    // a bucket's short spans after pauses admit its size and a request or two of refill — a bucket of
    // 5 refilling 10 a second, its spans admitting 5 and 6, read as a window of 5, held 88 %.)
    const same = afterPause.filter((x) => quotaCount(x) - least <= (least < EXACT_QUOTA ? 0 : Math.max(1, WINDOW_SAME * least)));
    if (same.length < 2) {
      this.judgeFixedGrid();
      return;
    }
    // Two equal counts can be a token bucket's too, when its refill made up the difference between
    // the spans' lengths: then a window's burst would cost a 429. A bucket whose least possible
    // refill is a good part of the pace that met the 429 is the likelier (a window's equal counts
    // over unequal lengths leave a bucket only a trickle of refill); so is one refilling most of a
    // quota under BURST_MIN_QUOTA in a window's length. From that quota up the window is taken: a
    // misread bucket costs one 429 (the log ends at its first miss), a misread window a fifth of the
    // limit for good (over real HTTP on a loaded machine, the wire's slack fitted a bucket of 40 a
    // second to a fixed window of 50 a second, and nothing ever refuted it).
    // Its length is the longest pause a 429 called for after a quota sent from a window's start, plus
    // the whole seconds the quota took (windowAfterQuota): the first span may have begun anywhere
    // in a window, and its pause said only what was left.
    const sameAfterPause = same.filter((x) => x.pauseMs !== Infinity);
    const windowMs = sameAfterPause.length > 0 ? Math.max(...sameAfterPause.map(windowAfterQuota)) : 0;
    // (Not when three spans after pauses admitted exactly the same count: a bucket that fits them
    // runs in a loop its own reading makes — a sliding window of 20 a second, read as a bucket of 16
    // with a burst of 14 after each pause, met a 429 each cycle, and each took 3 % off the pace: 64 %.
    // A bucket misread so, if slower than the window read, meets the log's 429 at its first window,
    // and the reading ends; a faster one does not — bucketExplains — unless one of those spans was
    // refused too late for such a bucket: provesQuota.)
    const paused = afterPause.filter((x) => x.pauseMs !== Infinity);
    const allSame = paused.length >= SAME_SPANS && paused.every((x) => quotaCount(x) === least) && paused.some(provesQuota);
    if (!allSame && this.bucketExplains(least, windowMs)) return;
    this.recognise(least, windowMs, afterPause, same);
  }

  /**
   * A token bucket fits the spans and is the likelier reading of a window of `quota` per `windowMs`
   * (judgeBurst) — or, under BURST_MIN_QUOTA, the riskier one to rule out: a bucket that fits and
   * refills several quotas in a window's length would be held under its rate by the log, and
   * never meet the 429 that ends it. Over a 40-ms wire, each span after a pause was one burst of
   * what the span before admitted plus one (restartCap), and a bucket of 3 refilling 15 a second
   * admitted 4 twice over spans 98 and 121 ms long — equal counts that say nothing of the refill
   * (any rate from 2.5 to 24 a second fitted); read as a window of 4 per second, the import ran at
   * 25 % of the limit to its end. Equal counts over lengths far enough apart leave no fast bucket,
   * and the window is read then (a sliding window of 10 per second: a span later, 97.8 → 96.7 %).
   * Three spans after pauses that admitted exactly one count are read as a window whatever fits
   * (judgeBurst, allSame) only when one of them proves it (provesQuota; docs/pacing.md rule 5).
   */
  private bucketExplains(quota: number, windowMs: number): boolean {
    const bucket = this.bounds(this.rate);
    if (bucket === undefined) return false;
    if (bucket.rate >= BUCKET_NOT_WINDOW * this.rate) return true;
    const perWindow = (rate: number) => rate * (windowMs / 1000);
    return quota < BURST_MIN_QUOTA && (perWindow(bucket.rate) >= BUCKET_REFILLS_QUOTA * quota || perWindow(bucket.upper) > BUCKET_OUTRUNS_QUOTA * quota);
  }

  /**
   * A window of `quota` per `windowMs` read from `spans` (its late answers raise the quota only if
   * it was read from the counts of `quotaFrom`). The rest of each quota goes at the fastest pace a
   * span after slow start met its 429 at: a window cares only for the count, and each millisecond
   * the quota takes is added to every cycle of quota and pause (a bucket's reading may have slowed
   * the pace meanwhile).
   */
  private recognise(quota: number, windowMs: number, spans: Span[], quotaFrom: Span[]): void {
    this.holdQuota(quota, windowMs);
    this.quotaFrom = quotaFrom;
    this.rate = Math.min(this.ceiling, Math.max(this.rate, ...spans.filter((x) => !x.slow).map((x) => x.pace)));
  }

  /**
   * Spans that ran across a fixed window's end admitted the rest of one quota and part of the next,
   * so their counts differ; over a wire each pause also ends at a new phase, and equal counts may
   * never come (1-s windows of 100 over 10 ms: 65–80 % of the limit). But a fixed window is a grid:
   * a phase at which every span's refused request came after the same count since its window
   * began, and no earlier window of a span took more, is a window of that count (fixedGridQuota).
   * Its length is taken as the longest pause a 429 called for: a fixed window is at least that long
   * (its end was at most that far away). Read short, the grid fits no spans or the log meets a 429
   * and ends; the spans of a grid ran across windows' ends, so the time a quota took says nothing.
   * Three spans at least — the phase and the quota are two unknowns, and each span one equation —
   * and four under BURST_MIN_QUOTA, where a misread bucket costs more (rule 7), with the same bucket
   * checks as equal counts.
   */
  private judgeFixedGrid(): void {
    // (A span too long to have kept every send is left out, as from the bucket's bounds.)
    const spans = this.spans.filter((x) => x.pauseMs >= 1000 && x.retryAfterKnown && x.A >= 4 && x.sends.length < SPAN_SENDS_MAX);
    if (spans.length < GRID_SPANS) return;
    const windowMs = Math.max(...spans.filter((x) => x.pauseMs !== Infinity).map((x) => x.retryAfterMs), 0);
    if (windowMs < 1000) return;
    const quota = fixedGridQuota(spans, windowMs);
    if (quota === undefined) return;
    if (quota < BURST_MIN_QUOTA && (spans.length < GRID_SPANS_SMALL || this.bucketExplains(quota, windowMs))) return;
    this.recognise(quota, windowMs, spans, []);
  }

  /** The pace to hold after the latest span. */
  private estimate(paceAt429: number, at: number): number {
    const cur = this.spans[this.spans.length - 1] as Span;
    const base = this.estimateBySpan(paceAt429, at, cur);
    const rate = this.estimateFrom(base, paceAt429, cur);
    // The regrowth after a bucket's least refill (estimateBySpan) is for that pace only: not for
    // one the bounds chose, whose bound from above it could regrow past.
    if (rate !== base) this.regrowTo = 0;
    return rate;
  }

  private estimateFrom(base: number, paceAt429: number, cur: Span): number {
    if (this.spans.length === 1 || this.burst > 0) return base;
    // What every span since the start proves of a token bucket: the least rate that could have
    // admitted what was admitted and refused what was refused (none believable: the pace by span
    // stands).
    const least = this.bounds(paceAt429);
    if (least === undefined) return base;
    const tight = least.upper <= BOUNDS_TIGHT * least.rate;
    // A bucket a pause fills whole (its size is over half of what a pause would refill): a 429 costs
    // it no time once what each pause refills is spent at once after it (burstAfter), only the 429
    // itself.
    const small = least.burst < (SMALL_BURST * least.rate * cur.pauseMs) / 1000;
    // A bucket for sure once two spans after pauses admitted different counts; until then (every
    // span after a pause admitting the same count, as a window's do whatever their lengths) the
    // bounds' slack for the wire can fit a bucket to a window — a fixed window of 50 per 2 s paced
    // as a bucket of 22 a second held 79 %, and rule 5 never saw it at that pace.
    const afterPause = this.spans.filter((x) => x.pauseMs !== Infinity);
    const fewest = Math.min(...afterPause.map((x) => x.A));
    const bucketLike = afterPause.length >= 2 && !afterPause.every((x) => x.A - fewest <= Math.max(1, WINDOW_SAME * fewest));
    if (tight) {
      // Every rate that fits lies within a few per cent: the bucket is measured.
      if (bucketLike) this.refill = { rate: least.rate, burst: least.burst };
      // One that holds all a pause refills loses no time by a 429 (burstAfter spends it): the pace
      // goes just at the rate — once two spans after pauses admitted different counts (before, the
      // pace by span stands, and a window is recognised by rule 5). One that a pause fills to the
      // brim loses what overflowed.
      if (!small && !bucketLike) return base;
      if (!small && least.burst >= (least.rate * cur.pauseMs) / 1000) return Math.min(least.upper, paceAt429);
      // A small one — each 429 costs its pause: hold just under the least of the rates.
      this.solvedRate = Math.min(least.rate, paceAt429);
      this.burstEstimate = least.burst;
      return this.solvedRate * HOLD_FIT;
    }
    // A pace over the bound from above meets a 429 again, for certain, once the bucket is spent: it
    // goes to the middle of the rates that fit (no lower than the step a short span takes). (Not
    // after a pause of seconds that let only a few through, when the server now asks back in under
    // half of it — at most half, in whole seconds: a bucket that slow needs about as long again
    // for its next token, and a sliding
    // window does not. A sliding window of 100 per 10 s, its quota spent by slow start, freed one
    // request by the end of a 9-s pause and asked back in 1 s; paced at the 0.2 a second a bucket
    // would allow, the import ran at 8 % of the limit.)
    if (!small && cur.pauseMs >= 2000 && asksBackSooner(cur)) return base;
    if (!small) return Math.min(base, least.upper < paceAt429 ? Math.max(Math.sqrt(least.rate * least.upper), SHORT_SHARE * least.upper) : Infinity);
    // Never over what the spans prove refused. (Not raised to the least rate either: the slack for
    // the wire is the spread of most round trips, not of all, and a least rate read too high then
    // lifted the pace over the limit — a review measured 1.18× on a jittery wire.)
    return Math.min(base, least.upper < 1.5 * paceAt429 ? least.upper : Infinity);
  }

  private estimateBySpan(paceAt429: number, at: number, cur: Span): number {
    if ((this.spans.length === 1 && !this.seededAtStart) || cur.slow) {
      // Slow start: the pace that met the first 429 is above the limit (a bucket drains only while
      // it is), by up to a few doublings with a large burst. Start the next span well under it.
      return paceAt429 * FIRST_SHARE;
    }
    if (cur.T >= LONG_SPAN_MS) {
      // A bucket that a pause refills only in part (a small burst): each 429 costs its pause, so
      // the pace holds just under the rate the spans fit, probing up only slowly. (One that a pause
      // fills whole loses nothing by a 429: the pause's refill is spent at once after it.)
      const fit = this.fit();
      if (fit !== undefined && fit.burst < (SMALL_BURST * fit.rate * cur.pauseMs) / 1000) {
        this.solvedRate = fit.rate;
        this.burstEstimate = fit.burst;
        return Math.min(fit.rate, paceAt429) * HOLD_FIT;
      }
      // A long span drained only the little the pause refilled. Everything sent was admitted until
      // the 429, so the rate admitted over its last seconds — when the bucket was draining — is
      // the limit's, give or take the overshoot of a slow probe.
      const since = this.recentFrom(at, cur.T);
      const recent = this.admittedAt.filter((t) => t >= since).length;
      const R = Math.min(paceAt429, recent / ((at - since) / 1000));
      this.solvedRate = this.solvedRate !== undefined ? Math.max(R, this.solvedRate * 0.97) : R;
      return Math.min(this.solvedRate, paceAt429) * HOLD;
    }
    // A short span is mostly what the pause refilled: it says little of the rate, except that the
    // pace that met it was too fast.
    if (this.solvedRate !== undefined) {
      this.solvedRate = Math.min(this.solvedRate * 0.97, paceAt429);
      return this.solvedRate * HOLD;
    }
    // A span whose refused request left before any answer of it came back was one burst, not a
    // pace (over a real network, a round trip's worth leaves at once): what it admitted is what the
    // pause refilled, and a pace over that refill per pause is untried. A bucket refills at least
    // that (it refilled it during the pause): no lower, and no higher until a span says so — 70 %
    // steps from slow start's pace took a dozen 429s to come down on a 40-ms wire.
    // (Not when the server now asks back in half that pause or less: a bucket that refilled only A
    // in it needs about as long for the next token. A sliding window does not — after a quota
    // from slow start, a pause of 9 s freed the one request sent first and the next asked back in
    // 1 s — and 1 request per 9 s held the import at 0.1 a second: 5 % of the limit.)
    if (cur.T < cur.rttMinMs && cur.pauseMs !== Infinity && cur.A > 0 && !asksBackSooner(cur)) {
      const refill = Math.max(MIN_RATE, (cur.A * 1000) / (cur.pauseMs + cur.T));
      // That refill is the least the bucket can have: a bucket smaller than what a pause refills
      // is full before the pause ends, and admits only its size. Far under the pace that met the
      // 429, the pace regrows by doubling each second, up to half of that pace (then the probe):
      // a bucket of 3 refilling 30 a second over a 1–6 ms wire, paced at its 1 per pause, took
      // 110 s to climb back at the probe's 3 % a second (26 % of the limit).
      this.regrowTo = paceAt429 * REGROW_SHARE;
      return Math.min(paceAt429 * SHORT_SHARE, refill);
    }
    return paceAt429 * SHORT_SHARE;
  }

  /**
   * Where a long span's recent admitted rate is read from (up to its refused send `at`): its last
   * RECENT_MS — or, if the pace climbed fast over them (regrowing by doubling each second), from
   * the last send whose pace was well under the pace at the refused send, and no later than
   * RAMP_MIN_MS or RAMP_MIN_SENDS gaps before it (a slow pace's few sends in half a second say
   * little, none at all under 2 a second). Two seconds of a pace doubling each second average half
   * the pace at their end: a bucket of one refilling 12 a second over 60–70 ms, met by a regrowth at
   * 11.5 a second, was read at 6 and held there to the import's end (47 % of the limit).
   */
  private recentFrom(at: number, T: number): number {
    const from = at - Math.min(T, RECENT_MS);
    // (Over the sends up to the refused one, by their times.)
    let refusedAt = -Infinity;
    let refusedPace = 0;
    for (const [t, pace] of this.paceAtSend) if (t <= at && t >= refusedAt) [refusedAt, refusedPace] = [t, pace];
    let steadyFrom = -Infinity;
    for (const [t, pace] of this.paceAtSend) if (t <= at && pace < RAMP_SHARE * refusedPace) steadyFrom = Math.max(steadyFrom, t);
    if (steadyFrom === -Infinity) return from;
    return Math.max(from, Math.min(steadyFrom, at - Math.max(RAMP_MIN_MS, (RAMP_MIN_SENDS * 1000) / refusedPace)));
  }

  /**
   * A token bucket admits, in a span that began after a pause and ran above its refill throughout,
   * what the pause refilled plus what dripped in meanwhile: A = b + r·T. Two such spans of
   * different lengths give both, exactly — the rate admitted over one span alone is r + b/T, over
   * its last seconds still some of b. Undefined unless two spans fit (a window or a cap does not).
   */
  private fit(): { rate: number; burst: number } | undefined {
    const usable = this.spans.filter((x) => !x.slow && x.pauseMs >= 1000);
    const j = usable[usable.length - 1];
    if (j === undefined || j !== this.spans[this.spans.length - 1]) return undefined;
    let i: Span | undefined;
    for (const x of usable.slice(0, -1)) if (Math.abs(x.pauseMs - j.pauseMs) <= FIT_SAME_PAUSE_MS && (i === undefined || Math.abs(j.T - x.T) > Math.abs(j.T - i.T))) i = x;
    if (i === undefined || Math.abs(j.T - i.T) < FIT_MIN_SPREAD_MS) return undefined;
    const rate = ((j.A - i.A) / (j.T - i.T)) * 1000;
    const burst = i.A - (rate * i.T) / 1000;
    // Each span must have run above that rate from its start: else the bucket sat full for a while
    // and admitted less than the line says.
    if (!(rate > 0) || burst < 0.5 || i.fromRate < rate || j.fromRate < rate) return undefined;
    return { rate, burst };
  }

  /**
   * Requests that may start back to back to make up for late timers (1: none): half of what the
   * bucket was measured to refill in a pause, once measured — a pace under the refill with bursts
   * no larger than the bucket never empties it. Under 4 that is none, and a bucket of 3 refilling
   * 60 a second lost a timer's lateness each gap (a millisecond in 17: 96 % sustained at a pace of
   * 99 %). A bucket of b admits a request up to (b − 1) gaps early, so part of a gap is made up
   * for too: (b − 2) / 2 gaps, less the wire's jitter, until a 429 says the reading was wrong
   * (docs/pacing.md rule 4).
   */
  get catchUp(): number {
    if (this.burstEstimate !== undefined && this.solvedRate !== undefined) {
      const b = this.burstEstimate;
      // (Less the last span's jitter, in gaps: how far arrivals stray from sends.)
      const jitterGaps = ((this.lastSpan?.jitterMs ?? 0) * this.rate) / 1000;
      const part = !this.partRefuted ? 1 + Math.max(0, (b - 2) / 2 - jitterGaps) : 1;
      return Math.min(CATCH_UP_MAX, Math.max(1, Math.floor(b / 2), part));
    }
    return this.rate >= FAST_RATE ? 2 : 1;
  }

  private backoff(): number {
    const exp = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(this.consecutive429 - 1, 16));
    return Math.round(exp / 2 + (this.random() * exp) / 2);
  }
}

/**
 * What a span admitted, read as a window's count: with those that may have overtaken its refused
 * request on the wire. A window counts arrivals, and over a jittery wire the request sent just
 * after the refused one can arrive first and be admitted in its place — left out, a sliding
 * window of 300 per 10 s over 1–6 ms was read as 299, and the import's last row waited a whole
 * window (64 % of the limit). (A bucket's readings leave them out: its refill may have admitted
 * them.)
 */
function quotaCount(x: Span): number {
  return x.A + x.overtook;
}

/**
 * At its 429, one more the span may have had admitted, as a window counts (quotaCount): a send
 * within its jitter after the refused one, unanswered yet. (Its quota may have been raised by such
 * a late answer; judged without it, a span overtaken so read one short and, twice in a row, ended
 * the window's reading for good.)
 */
function mayHaveOvertaken(x: Span): number {
  const after = (t: number) => t >= x.refusedAt && t < x.refusedAt + x.jitterMs;
  const answered = x.admits.filter((a) => after(a.sentAt)).length;
  return Math.min(1, Math.max(0, countIn(x.sends, x.refusedAt, x.refusedAt + x.jitterMs) - 1 - answered));
}

/**
 * The 429 that ended the span asked back in half the pause before it or less (whole seconds): a
 * bucket that admitted only what that pause refilled would need about as long again for its next
 * token; a sliding window, freeing what ages out, does not (docs/pacing.md rule 8).
 */
function asksBackSooner(span: Span): boolean {
  return span.retryAfterKnown && span.pauseMs !== Infinity && span.retryAfterMs <= span.pauseMs / 2;
}

/**
 * The window's length a span after a pause says, its quota sent from a window's start: the pause
 * its 429 called for, ceil(w − d) in whole seconds, where d is what the quota took — plus d's whole
 * seconds (w = ceil(w − d) + floor(d) for whole seconds). A sliding window says its length so; a
 * fixed window at most its length, whatever the phase its span began at. (d less the wire's spread:
 * on a second's edge, the shorter reading. 90 per 3 s sliding, over 40 ms with 8 in flight, took a
 * second a quota and asked back in 2 s: kept as a window of 2 s, the log met a 429 and ended.)
 */
function windowAfterQuota(x: Span): number {
  if (!x.retryAfterKnown) return 0;
  const took = x.refusedAt - (x.sends[0] ?? x.refusedAt) - x.jitterMs;
  return x.retryAfterMs + 1000 * Math.max(0, Math.floor(took / 1000));
}

/**
 * A span after a pause whose refusal came too late for any bucket a log of its count per pause
 * would hold back: a bucket refilling faster than that admits one more within a count's share of
 * the pause after the span's first request (with 5 % to spare, plus the round trip by which
 * arrivals stray from sends). Spans sent quickly prove nothing of the kind: over a 40-ms wire, a
 * bucket of 3 refilling 12 a second admitted 4 after each pause, read as a window of 4 per second,
 * and the log held it at 30 % with no 429 to say so.
 */
function provesQuota(x: Span): boolean {
  const first = x.sends[0];
  return first !== undefined && x.A > 0 && x.pauseMs !== Infinity && x.refusedAt - first >= (x.pauseMs / x.A) * 1.05 + x.rttMaxMs;
}

/** A short span that began with a whole quota, were the limit a window's (rule 5): the first, or one after a pause of a second or more. */
function quotaSpan(x: Span): boolean {
  return x.pauseMs >= 1000 && x.T < LONG_SPAN_MS && x.A >= 4;
}

/**
 * The quota of a fixed window of `windowMs` that every span fits at one phase (undefined: none, or
 * too many). A request arrived between its send and its send plus what its round trip took over the
 * shortest (give or take a constant, the shortest way there, which the phase takes up). At a phase,
 * each span's refused request came after its window had admitted the quota — the admitted requests
 * that surely arrived in that window at most, those that may have (and those not answered yet) at
 * least — and no earlier window of the span admitted more. The quotas that fit at some phase must
 * lie within GRID_SPREAD of each other (the spans pin it); the least of them is taken: one too many
 * would cost a 429 under the log, one too few a request per window.
 */
export function fixedGridQuota(spans: Array<Pick<Span, 'admits' | 'refusedAt' | 'refusedRttMs' | 'sends'>>, windowMs: number): number | undefined {
  // A request's arrival lies between its send and its send plus what its round trip took over the
  // shortest (plus a constant, the shortest way there, which the phase takes up). One that took
  // much longer may have been late on the way out (a new connection, a retransmission) by any
  // part of it: where it arrived is unknown, and it is surely in no window.
  let rttMin = Infinity;
  for (const sp of spans) for (const a of sp.admits) rttMin = Math.min(rttMin, a.rtt, sp.refusedRttMs);
  const prepared = spans.map((sp) => {
    const admits = [...sp.admits].sort((a, b) => a.sentAt - b.sentAt);
    const at = admits.map((a) => a.sentAt);
    const late = admits.map((a) => (a.rtt - rttMin > WIRE_SLACK_MAX_MS ? Infinity : a.rtt - rttMin + WIRE_SLACK_MS));
    const unknown = admits.filter((a) => a.rtt - rttMin > WIRE_SLACK_MAX_MS).map((a) => a.sentAt);
    return { at, late, unknown, sends: sp.sends, refusedAt: sp.refusedAt, refusedLate: Math.min(WIRE_SLACK_MAX_MS, sp.refusedRttMs - rttMin) + WIRE_SLACK_MS, first: sp.sends[0] ?? sp.refusedAt };
  });
  // Admitted requests that surely arrived within [x, x + w), and those that may have (sent within
  // EDGE before it and late enough to reach it).
  const EDGE = WIRE_SLACK_MAX_MS + WIRE_SLACK_MS + 1;
  const inWindow = (p: (typeof prepared)[number], x: number): [number, number] => {
    const a = lowerBound(p.at, x);
    const b = lowerBound(p.at, x + windowMs);
    let sure = b - a - countIn(p.unknown, x, x + windowMs - EDGE);
    let may = b - a;
    for (let i = b - 1; i >= a && (p.at[i] as number) >= x + windowMs - EDGE; i--) if ((p.at[i] as number) + (p.late[i] as number) >= x + windowMs) sure -= 1;
    for (let i = a - 1; i >= 0 && (p.at[i] as number) >= x - EDGE; i--) if ((p.at[i] as number) + (p.late[i] as number) >= x) may += 1;
    return [sure, may];
  };
  const step = Math.max(1, windowMs / 2000);
  let least = Infinity;
  let most = 0;
  for (let theta = 0; theta < windowMs; theta += step) {
    let lo = 0;
    let hi = Infinity;
    for (const p of prepared) {
      const start = p.refusedAt - mod(p.refusedAt - theta, windowMs);
      // The refused request's window (one it may have reached only after its end places nothing).
      if (p.refusedAt + p.refusedLate >= start + windowMs) {
        hi = -1;
        break;
      }
      // That window admitted the quota (with requests sent before the refused one whose answers have
      // not come yet: answers overtake each other); every earlier one of the span, no more.
      const [sure, may] = inWindow(p, start);
      const from = start - EDGE;
      const unanswered = countIn(p.sends, from, p.refusedAt) - countIn(p.at, from, p.refusedAt);
      lo = Math.max(lo, sure);
      hi = Math.min(hi, may + Math.max(0, unanswered));
      for (let y = start - windowMs, n = 0; y + windowMs > p.first && n < GRID_WINDOWS_BACK; y -= windowMs, n++) lo = Math.max(lo, inWindow(p, y)[0]);
      if (lo > hi) break;
    }
    if (lo <= hi && lo > 0) {
      least = Math.min(least, lo);
      most = Math.max(most, lo);
    }
  }
  return least !== Infinity && most - least <= Math.max(1, GRID_SPREAD * least) ? least : undefined;
}

function mod(a: number, m: number): number {
  return ((a % m) + m) % m;
}

/** How many of the sorted times lie in [from, to). */
function countIn(xs: number[], from: number, to: number): number {
  return Math.max(0, lowerBound(xs, to) - lowerBound(xs, from));
}

function lowerBound(xs: number[], v: number): number {
  let a = 0;
  let b = xs.length;
  while (a < b) {
    const m = (a + b) >> 1;
    if ((xs[m] as number) < v) a = m + 1;
    else b = m;
  }
  return a;
}

/** In order (a wall clock stepped back can have put a send before the one it followed). */
function sorted(xs: number[]): number[] {
  for (let i = 1; i < xs.length; i++) if ((xs[i] as number) < (xs[i - 1] as number)) return [...xs].sort((a, b) => a - b);
  return xs;
}

/** How far a request's arrival at the server may stray from its send: the spread of round trips. */
function jitterOf(rtts: number[]): number {
  if (rtts.length === 0) return 1;
  const byLength = [...rtts].sort((a, b) => a - b);
  const p90 = byLength[Math.floor(byLength.length * 0.9)] as number;
  return Math.min(50, 1 + p90 - (byLength[0] as number));
}

type SpanData = Pick<Span, 'sends' | 'refusedAt' | 'jitterMs' | 'pauseMs'> & Partial<Pick<Span, 'rttMaxMs' | 'failed'>>;

/** What a span says whatever the rate: its sends before the refused one, and how they may reorder. */
interface Prepared {
  /** Sends clearly before the refused request (more than J before it). */
  before: number[];
  /** Other sends within J of the refused request: any may have arrived before it. */
  nearRefused: number;
  /** The most sends within J of each other, less one: how far order on the wire may differ. */
  swaps: number;
  refusedAt: number;
  J: number;
  pauseMs: number;
  /** The last send of the span (the refused one, or one in flight beside it). */
  last: number;
  rttMaxMs: number;
  failed: number;
}

function prepare(sp: SpanData): Prepared {
  const J = sp.jitterMs;
  const before: number[] = [];
  // (The refused request is among the sends: the others near it are one fewer.)
  let nearRefused = -1;
  for (const t of sp.sends) {
    if (t < sp.refusedAt - J) before.push(t);
    else if (t <= sp.refusedAt + J) nearRefused += 1;
  }
  nearRefused = Math.max(0, nearRefused);
  let crowd = 1;
  for (let i = 0, k = 0; i < before.length; i++) {
    while ((before[k] as number) < (before[i] as number) - J) k += 1;
    crowd = Math.max(crowd, i - k + 1);
  }
  const last = sp.sends.length > 0 ? Math.max(sp.refusedAt, sp.sends[sp.sends.length - 1] as number) : sp.refusedAt;
  return { before, nearRefused, swaps: crowd - 1, refusedAt: sp.refusedAt, J, pauseMs: sp.pauseMs, last, rttMaxMs: Math.max(sp.rttMaxMs ?? J, J), failed: sp.failed ?? 0 };
}

/**
 * A token bucket of rate r and size b admits a request when, counting back from it, no stretch of
 * requests took more than b plus what dripped in meanwhile: E_i = max(0, E_{i−1} + 1 − r·gap)
 * (the Lindley recursion) stays under b. So each span, for a given r, bounds the bucket: its size is
 * at least the largest E among the admitted; what it held when the span began is at least what the
 * stretches from the span's first request took; and the refused request's stretch exceeded one or
 * the other. A span after a pause began with min(b, what the pause refilled); the first, with a
 * whole bucket. The rates at which every span's bounds agree are the bucket's possible rates: the
 * least of them is proven (a slower bucket would have refused something that was admitted); the
 * first above the highest that fits bounds the rate from above. Arrivals stray from sends by up to
 * J (the spread of round trips): each term is off by at most r·J, and sends that close may swap
 * places on the wire — the bounds are widened by both.
 * Undefined when no rate fits (not a bucket: a window, a cap, or something else), or fewer than
 * two spans are kept.
 */
export function bucketBounds(spans: SpanData[], upTo: number): { rate: number; burst: number; upper: number } | undefined {
  // A span too long to have kept every send is left out (what it says is not worth its cost);
  // the next one's refill is then bounded by its own pause alone.
  const kept = spans.filter((x) => x.sends.length < SPAN_SENDS_MAX).map(prepare);
  if (kept.length < 2) return undefined;
  const top = upTo * 1.5;
  // The least rate that fits, sought finely from the least the counts allow: a span after a pause
  // admitted its requests with no more than what the pause refilled (one token left, plus r per
  // second since the refused request before it) and the refill during the span. The rates that fit
  // can be a narrow stretch with another, false one above it (a bucket of one or two at a high rate,
  // refusing only through the jitter's slack): a coarse search would step over the real one.
  let from = Math.max(MIN_RATE, upTo / 1000);
  for (let n = 1; n < kept.length; n++) {
    const sp = kept[n] as Prepared;
    const prev = kept[n - 1] as Prepared;
    // (A send's arrival is at most its answer's round trip after it: the longest one bounds them all.)
    const admitted = sp.before.length - sp.nearRefused - sp.swaps - sp.failed;
    const lastAdmitted = sp.before[sp.before.length - 1];
    if (admitted > 1 && lastAdmitted !== undefined) from = Math.max(from, ((admitted - 1) / (lastAdmitted + sp.rttMaxMs - prev.refusedAt)) * 1000);
  }
  let least: { rate: number; burst: number } | undefined;
  for (let r = from; r <= top; r *= 1 + BOUNDS_STEP) {
    const b = burstAt(kept, r);
    if (b !== undefined) {
      least = { rate: r, burst: b };
      break;
    }
  }
  if (least === undefined) return undefined;
  // The most that fits, sought from the top down (coarsely, then finely above the highest coarse
  // rate that fits).
  let high: number | undefined;
  for (let r = top; r > least.rate; r /= 1 + BOUNDS_COARSE) {
    if (burstAt(kept, r) !== undefined) {
      high = r;
      break;
    }
  }
  let upper = (high ?? least.rate) * (1 + BOUNDS_STEP);
  while (upper <= top && burstAt(kept, upper) !== undefined) upper *= 1 + BOUNDS_STEP;
  return { ...least, upper };
}

/** The least bucket size consistent with every span at rate r, or undefined if none is. */
function burstAt(spans: Prepared[], r: number): number | undefined {
  const perMs = r / 1000;
  let lo = 0;
  let hi = Infinity;
  for (let n = 0; n < spans.length; n++) {
    const sp = spans[n] as Prepared;
    const before = sp.before;
    const first = before[0] ?? sp.refusedAt;
    // Each term is off by r·J (the wire), and by what a rate one step higher would refill over the
    // span (the search's grid: a rate that fits may lie between two steps — with exact data the
    // rates that fit are narrower than a step).
    const slack = perMs * (sp.J + BOUNDS_STEP * (sp.refusedAt - first));
    // G: the most any stretch of earlier requests took, less what dripped in since it began
    // (E = max(0, G)); S: what the stretch from the span's first request took (the bucket's
    // content at the start must cover it).
    let G = -Infinity;
    let maxE = 0;
    let maxS = 0;
    for (let i = 0; i < before.length; i++) {
      const t = before[i] as number;
      if (i > 0) G = Math.max(G, 0) + 1 - perMs * (t - (before[i - 1] as number));
      maxE = Math.max(maxE, G - slack);
      maxS = Math.max(maxS, i + 1 - perMs * (t - first) - slack);
      // Already more than an earlier span allows the bucket, even with every swap on the wire.
      if (maxE + 1 - sp.swaps >= hi) return undefined;
    }
    const lastBefore = before[before.length - 1];
    // The refused request, every send near it counted as arriving before it.
    const Gk = lastBefore === undefined ? -Infinity : Math.max(G, 0) + 1 - perMs * (sp.refusedAt - lastBefore);
    const Ek = Math.max(0, Gk + slack) + sp.nearRefused;
    const Sk = before.length + 1 + sp.nearRefused - perMs * (sp.refusedAt - first) + slack;
    const l = maxE + 1 - sp.swaps;
    const h = Ek + 1 + sp.swaps;
    const lStart = maxS - sp.swaps;
    if (n === 0 && sp.pauseMs === Infinity) {
      // The first span began with a whole bucket.
      lo = Math.max(lo, l, lStart);
      hi = Math.min(hi, Math.max(h, Sk + sp.swaps));
    } else {
      // What the bucket held at the span's start: min(b, what dripped in since the span before) —
      // at least since its last send, and no longer than the pause; at most since its refused
      // request, plus the one token it may have kept.
      const prev = spans[n - 1];
      const capLo = perMs * (prev === undefined ? sp.pauseMs : Math.min(first - prev.last, sp.pauseMs));
      const capHi = prev === undefined ? Infinity : 1 + perMs * (first - prev.refusedAt) + slack;
      // The start's content must cover the stretches from the first request.
      if (capHi < lStart) return undefined;
      lo = Math.max(lo, l, lStart);
      // If the pause refilled more than the refused request's stretches needed, the bucket was
      // whole at the start and its size is what the refusal bounds; else the refusal may be the
      // pause's short refill, and says nothing of the size.
      if (capLo >= Math.max(h, Sk + sp.swaps)) hi = Math.min(hi, Math.max(h, Sk + sp.swaps));
    }
    if (!(lo < hi)) return undefined;
  }
  return Math.max(1, lo);
}
