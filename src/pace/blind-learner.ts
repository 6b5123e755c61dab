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

import { backoffMs } from './backoff.js';
import { bucketBounds, countIn, fixedGridQuota, jitterOf, sorted, type Admit, type Span } from './bucket-fit.js';
import type { Anchor, Learner, Learnt, Limit, Observation, PaceSettings } from './types.js';
import * as tune from './tuning.js';

export class BlindLearner implements Learner {
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
  /** A bucket whose rate the spans pin (within tune.BOUNDS_TIGHT): its least rate, and its size at that rate. */
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
    ceiling: number | undefined,
    private readonly random: () => number,
  ) {
    this.ceiling = ceiling ?? Infinity;
    this.rate = Math.min(this.ceiling, tune.INITIAL_RATE);
    // With --rate the operator has said how fast: start there and only ever go slower.
    this.slowStart = ceiling === undefined;
    if (ceiling !== undefined) this.rate = ceiling;
  }

  /**
   * Starts from a limit remembered from an earlier run, a little under it, with no slow start: a
   * bucket at its refill (its burst at once, as far as it has refilled since), a window's quota at
   * once (its log kept to once the 429 after it has said where the window ends), a cap's window.
   * The first 429 confirms it (a span of seconds) or sends the learning back to its start.
   */
  seed(l: Limit, now: number): void {
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
    this.rate = Math.min(this.ceiling, l.rate * ((l.burst ?? 1) >= 3 ? tune.SEED_UNDER : tune.SEED_UNDER_SMALL));
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
  snapshot(now: number): Learnt | undefined {
    const limit = this.known(now);
    return limit && { limit: { ...limit, headers: null }, learnt: this.learnt };
  }

  private known(now: number): Omit<Limit, 'headers' | 'source' | 'learntAt'> | undefined {
    const admitted = this.firstSentAt !== undefined && this.lastAnswerAt > this.firstSentAt ? (this.admittedCount * 1000) / (this.lastAnswerAt - this.firstSentAt) : 0;
    // (A window grown by one and not yet through its probe is the one before.)
    const held = now - this.windowGrownAt < tune.WINDOW_PROBE_MS ? this.window - 1 : this.window;
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
  seedPace(rate: number): void {
    this.regrowTo = 0;
    this.rate = Math.max(tune.MIN_RATE, Math.min(this.ceiling, rate));
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
    if (this.spanSends.length < tune.SPAN_SENDS_MAX) this.spanSends.push(now);
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
    if (this.slowStart) this.rate *= 2 ** (dt / tune.DOUBLING_MS);
    else if (this.rate < this.regrowTo) this.rate = Math.min(this.regrowTo, this.rate * 2 ** (dt / 1000));
    else {
      const quiet = Math.min(tune.QUIET_MAX, 2 ** (Math.max(0, now - this.quietFrom - tune.QUIET_AFTER_MS) / tune.QUIET_DOUBLING_MS));
      const probe = quiet * (this.solvedRate === undefined ? tune.PROBE_UNSOLVED * this.rate : (this.burstEstimate !== undefined ? tune.PROBE_FIT : tune.PROBE_SOLVED) * this.solvedRate);
      // Up, but not into the pace that last met a 429 — which itself relaxes, slowly, in case the
      // limit was raised.
      this.tooFast *= 1 + quiet * tune.RELAX_PER_SEC * (dt / 1000);
      this.rate = Math.max(this.rate, Math.min(this.rate + probe * (dt / 1000), this.tooFast * tune.UNDER_TOO_FAST));
    }
    this.rate = Math.min(this.rate, this.ceiling);
    if (this.window !== Infinity && now - Math.max(this.lastWindowCutAt, this.pausedUntil) > tune.WINDOW_GROW_MS) {
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
    if (span.refusedRttMs < tune.WIRE_SHARE * span.rttMinMs || serviceMs < Math.max(tune.SERVICE_SHARE * span.rttMinMs, 2 * span.jitterMs)) return 1;
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

  get pace(): number {
    return this.rate;
  }

  settings(): PaceSettings {
    const ceilingGap = this.ceiling !== Infinity ? 1000 / this.ceiling : 0;
    return { minTimeMs: Math.max(ceilingGap, 1000 / this.rate), credits: null, refillPerSec: 0, capacity: null, catchUp: this.catchUp };
  }

  observe(o: Observation, pausedUntil: number): { waitMs: number; until: number } {
    const waitMs = this.answer(o);
    return { waitMs, until: o.status === 429 ? Math.max(pausedUntil, o.at + waitMs) : pausedUntil };
  }

  /** Feeds one answer (status 0: transport failure); returns the pause it calls for (ms). */
  private answer(o: Observation): number {
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
        if (this.spanAdmits.length < tune.SPAN_SENDS_MAX) this.spanAdmits.push({ sentAt: o.sentAt, rtt: o.at - o.sentAt });
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
        if (this.lastSpan.admits.length < tune.SPAN_SENDS_MAX) this.lastSpan.admits.push({ sentAt: o.sentAt, rtt: o.at - o.sentAt });
        this.raiseQuota();
      }
      return 0;
    }
    this.consecutive429 += 1;
    this.quietFrom = o.at;
    const wait = o.retryAfterMs ?? backoffMs(this.consecutive429, tune.PAUSE_BACKOFF_BASE_MS, tune.PAUSE_BACKOFF_CAP_MS, this.random);
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

  private learn(o: Observation): void {
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
    if (this.window !== Infinity && o.sentAt >= this.windowGrownAt && o.sentAt - this.windowGrownAt < tune.WINDOW_PROBE_MS && o.inflightAtSend >= this.window - 2) {
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
    const served = Number.isFinite(serviceMs) && serviceMs >= Math.max(tune.SERVICE_SHARE * span.rttMinMs, 2 * span.jitterMs);
    if (o.inflightBound !== undefined && this.window !== Infinity && o.sentAt - this.windowFoundAt < tune.WINDOW_NEW_MS && o.inflightBound >= 1 && o.inflightBound < this.window && served) {
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
    this.rate = Math.max(tune.MIN_RATE, Math.min(this.ceiling, estimate));
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
      // A quota other than the one remembered is a window only if a span that began with it whole
      // is asked back in half the window or more (a bucket that size asks back sooner).
      const proven = !this.requoted || span.retryAfterMs >= this.anchorWindowMs / 2;
      if (count >= this.anchorQuota && proven) {
        // (A quota raised since: the count is the quota now.)
        if (count > this.anchorQuota) this.holdQuota(count, this.anchorWindowMs);
        this.anchorArmed = true;
        return 'done';
      }
      if (count >= 4 && !this.requoted) {
        this.holdQuota(count, this.anchorWindowMs);
        this.requoted = true;
        this.seeded = 'window';
        return 'done';
      }
      this.forgetLimit();
      return undefined;
    }
    if (shape === 'concurrency') return undefined;
    if (span.T >= tune.LONG_SPAN_MS) {
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
  /** A remembered window met a smaller quota: the next span must prove it (judgeSeed). */
  private requoted = false;
  /** Since the last 429 (or the seed): the probe speeds up with it (tune.QUIET_DOUBLING_MS). */
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
    return this.refill !== undefined && this.lastPauseMs !== Infinity ? Math.floor(tune.REFILL_SHARE * Math.min(this.refill.burst, (this.refill.rate * this.lastPauseMs) / 1000)) : 0;
  }

  /**
   * A recognised window, as a quota per length: no more than `quota` requests start within
   * `windowMs` of the answer to an earlier one, taken half the shortest round trip before it came
   * (the gate keeps the log; gate.ts, tune.TRIP_CREDIT). A request answered had reached the server a way
   * back before, so one sent a window's length after that reaches it after the window that counted
   * the other has ended — fixed or sliding, whatever the wire's delays — and
   * each window's quota goes at its start with no 429 to end it. Undefined until a window is
   * recognised (rule 5), and once it has been refuted or has met a 429.
   */
  anchor(): Anchor | undefined {
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
    // 429. Under tune.BURST_MIN_QUOTA that is over 2 %, and the window's reading ends with the log (a
    // bucket of 5 refilling 10 a second, read as a window of 6, went on so: 65 %, 11 % 429s).
    if (this.anchorQuota < tune.BURST_MIN_QUOTA) {
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
    // (Under tune.EXACT_QUOTA the counts must be equal: a window admits its whole quota each time, while
    // a bucket's short spans after pauses admit its size and a request or two of refill — a bucket of
    // 5 refilling 10 a second, its spans admitting 5 and 6, read as a window of 5, held 88 %.)
    const same = afterPause.filter((x) => quotaCount(x) - least <= (least < tune.EXACT_QUOTA ? 0 : Math.max(1, tune.WINDOW_SAME * least)));
    if (same.length < 2) {
      this.judgeFixedGrid();
      return;
    }
    // Two equal counts can be a token bucket's too, when its refill made up the difference between
    // the spans' lengths: then a window's burst would cost a 429. A bucket whose least possible
    // refill is a good part of the pace that met the 429 is the likelier (a window's equal counts
    // over unequal lengths leave a bucket only a trickle of refill); so is one refilling most of a
    // quota under tune.BURST_MIN_QUOTA in a window's length. From that quota up the window is taken: a
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
    const allSame = paused.length >= tune.SAME_SPANS && paused.every((x) => quotaCount(x) === least) && paused.some(provesQuota);
    if (!allSame && this.bucketExplains(least, windowMs)) return;
    this.recognise(least, windowMs, afterPause, same);
  }

  /**
   * A token bucket fits the spans and is the likelier reading of a window of `quota` per `windowMs`
   * (judgeBurst) — or, under tune.BURST_MIN_QUOTA, the riskier one to rule out: a bucket that fits and
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
    if (bucket.rate >= tune.BUCKET_NOT_WINDOW * this.rate) return true;
    const perWindow = (rate: number) => rate * (windowMs / 1000);
    return quota < tune.BURST_MIN_QUOTA && (perWindow(bucket.rate) >= tune.BUCKET_REFILLS_QUOTA * quota || perWindow(bucket.upper) > tune.BUCKET_OUTRUNS_QUOTA * quota);
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
   * and four under tune.BURST_MIN_QUOTA, where a misread bucket costs more (rule 7), with the same bucket
   * checks as equal counts.
   */
  private judgeFixedGrid(): void {
    // (A span too long to have kept every send is left out, as from the bucket's bounds.)
    const spans = this.spans.filter((x) => x.pauseMs >= 1000 && x.retryAfterKnown && x.A >= 4 && x.sends.length < tune.SPAN_SENDS_MAX);
    if (spans.length < tune.GRID_SPANS) return;
    const windowMs = Math.max(...spans.filter((x) => x.pauseMs !== Infinity).map((x) => x.retryAfterMs), 0);
    if (windowMs < 1000) return;
    const quota = fixedGridQuota(spans, windowMs);
    if (quota === undefined) return;
    if (quota < tune.BURST_MIN_QUOTA && (spans.length < tune.GRID_SPANS_SMALL || this.bucketExplains(quota, windowMs))) return;
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
    const tight = least.upper <= tune.BOUNDS_TIGHT * least.rate;
    // A bucket a pause fills whole (its size is over half of what a pause would refill): a 429 costs
    // it no time once what each pause refills is spent at once after it (burstAfter), only the 429
    // itself.
    const small = least.burst < (tune.SMALL_BURST * least.rate * cur.pauseMs) / 1000;
    // A bucket for sure once two spans after pauses admitted different counts; until then (every
    // span after a pause admitting the same count, as a window's do whatever their lengths) the
    // bounds' slack for the wire can fit a bucket to a window — a fixed window of 50 per 2 s paced
    // as a bucket of 22 a second held 79 %, and rule 5 never saw it at that pace.
    const afterPause = this.spans.filter((x) => x.pauseMs !== Infinity);
    const fewest = Math.min(...afterPause.map((x) => x.A));
    const bucketLike = afterPause.length >= 2 && !afterPause.every((x) => x.A - fewest <= Math.max(1, tune.WINDOW_SAME * fewest));
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
      return this.solvedRate * tune.HOLD_FIT;
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
    if (!small) return Math.min(base, least.upper < paceAt429 ? Math.max(Math.sqrt(least.rate * least.upper), tune.SHORT_SHARE * least.upper) : Infinity);
    // Never over what the spans prove refused. (Not raised to the least rate either: the slack for
    // the wire is the spread of most round trips, not of all, and a least rate read too high then
    // lifted the pace over the limit — a review measured 1.18× on a jittery wire.)
    return Math.min(base, least.upper < 1.5 * paceAt429 ? least.upper : Infinity);
  }

  private estimateBySpan(paceAt429: number, at: number, cur: Span): number {
    if ((this.spans.length === 1 && !this.seededAtStart) || cur.slow) {
      // Slow start: the pace that met the first 429 is above the limit (a bucket drains only while
      // it is), by up to a few doublings with a large burst. Start the next span well under it.
      return paceAt429 * tune.FIRST_SHARE;
    }
    if (cur.T >= tune.LONG_SPAN_MS) {
      // A bucket that a pause refills only in part (a small burst): each 429 costs its pause, so
      // the pace holds just under the rate the spans fit, probing up only slowly. (One that a pause
      // fills whole loses nothing by a 429: the pause's refill is spent at once after it.)
      const fit = this.fit();
      if (fit !== undefined && fit.burst < (tune.SMALL_BURST * fit.rate * cur.pauseMs) / 1000) {
        this.solvedRate = fit.rate;
        this.burstEstimate = fit.burst;
        return Math.min(fit.rate, paceAt429) * tune.HOLD_FIT;
      }
      // A long span drained only the little the pause refilled. Everything sent was admitted until
      // the 429, so the rate admitted over its last seconds — when the bucket was draining — is
      // the limit's, give or take the overshoot of a slow probe.
      const since = this.recentFrom(at, cur.T);
      const recent = this.admittedAt.filter((t) => t >= since).length;
      const R = Math.min(paceAt429, recent / ((at - since) / 1000));
      this.solvedRate = this.solvedRate !== undefined ? Math.max(R, this.solvedRate * 0.97) : R;
      return Math.min(this.solvedRate, paceAt429) * tune.HOLD;
    }
    // A short span is mostly what the pause refilled: it says little of the rate, except that the
    // pace that met it was too fast.
    if (this.solvedRate !== undefined) {
      this.solvedRate = Math.min(this.solvedRate * 0.97, paceAt429);
      return this.solvedRate * tune.HOLD;
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
      const refill = Math.max(tune.MIN_RATE, (cur.A * 1000) / (cur.pauseMs + cur.T));
      // That refill is the least the bucket can have: a bucket smaller than what a pause refills
      // is full before the pause ends, and admits only its size. Far under the pace that met the
      // 429, the pace regrows by doubling each second, up to half of that pace (then the probe):
      // a bucket of 3 refilling 30 a second over a 1–6 ms wire, paced at its 1 per pause, took
      // 110 s to climb back at the probe's 3 % a second (26 % of the limit).
      this.regrowTo = paceAt429 * tune.REGROW_SHARE;
      return Math.min(paceAt429 * tune.SHORT_SHARE, refill);
    }
    return paceAt429 * tune.SHORT_SHARE;
  }

  /**
   * Where a long span's recent admitted rate is read from (up to its refused send `at`): its last
   * tune.RECENT_MS — or, if the pace climbed fast over them (regrowing by doubling each second), from
   * the last send whose pace was well under the pace at the refused send, and no later than
   * tune.RAMP_MIN_MS or tune.RAMP_MIN_SENDS gaps before it (a slow pace's few sends in half a second say
   * little, none at all under 2 a second). Two seconds of a pace doubling each second average half
   * the pace at their end: a bucket of one refilling 12 a second over 60–70 ms, met by a regrowth at
   * 11.5 a second, was read at 6 and held there to the import's end (47 % of the limit).
   */
  private recentFrom(at: number, T: number): number {
    const from = at - Math.min(T, tune.RECENT_MS);
    // (Over the sends up to the refused one, by their times.)
    let refusedAt = -Infinity;
    let refusedPace = 0;
    for (const [t, pace] of this.paceAtSend) if (t <= at && t >= refusedAt) [refusedAt, refusedPace] = [t, pace];
    let steadyFrom = -Infinity;
    for (const [t, pace] of this.paceAtSend) if (t <= at && pace < tune.RAMP_SHARE * refusedPace) steadyFrom = Math.max(steadyFrom, t);
    if (steadyFrom === -Infinity) return from;
    return Math.max(from, Math.min(steadyFrom, at - Math.max(tune.RAMP_MIN_MS, (tune.RAMP_MIN_SENDS * 1000) / refusedPace)));
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
    for (const x of usable.slice(0, -1)) if (Math.abs(x.pauseMs - j.pauseMs) <= tune.FIT_SAME_PAUSE_MS && (i === undefined || Math.abs(j.T - x.T) > Math.abs(j.T - i.T))) i = x;
    if (i === undefined || Math.abs(j.T - i.T) < tune.FIT_MIN_SPREAD_MS) return undefined;
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
      return Math.min(tune.CATCH_UP_MAX, Math.max(1, Math.floor(b / 2), part));
    }
    return this.rate >= tune.FAST_RATE ? 2 : 1;
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
  return x.pauseMs >= 1000 && x.T < tune.LONG_SPAN_MS && x.A >= 4;
}

