/**
 * The learner without headers: the server says nothing but `429` + `Retry-After`. Sending is split
 * into spans, from the start (or the end of a pause) to the request that met the next 429; each
 * 429 costs a whole pause, so every span is made to teach what it can (docs/pacing.md, rules B1–B9).
 */
import { bucketBounds, countIn, fixedGridQuota, jitterOf, sorted, type Admit, type Span } from './bucket-fit.js';
import type { Anchor, Learner, Learnt, Limit, Observation, PaceSettings } from './types.js';
import * as tune from './tuning.js';

/**
 * A span still open: when it began, whether in slow start, what went at once then (burstAfter), its
 * sends, its admitted requests (the most in flight at one's send, their send times), its sends that
 * failed in transport, and the pace at each send (for the recent admitted rate, recentFrom).
 */
interface OpenSpan {
  start: number;
  slow: boolean;
  burst: number;
  sends: number[];
  admitted: number;
  maxInflight: number;
  admits: Admit[];
  admittedAt: number[];
  failed: number;
  paceAtSend: Array<[number, number]>;
}

export class BlindLearner implements Learner {
  /** Requests per second the spacing keeps to. */
  rate: number;
  /** Most requests in flight (Infinity: only --concurrency binds). */
  window = Infinity;
  /** A 429 was met in this run: what the snapshot holds was learnt now. */
  learnt = false;
  private readonly ceiling: number;
  private slowStart: boolean;
  /** After a pace read as a bucket's least refill, it regrows by doubling each second up to this (B2). */
  private regrowTo = 0;
  private lastGrowthAt: number | undefined;
  /** The limiter's pause: a 429 for a request sent before it ends is an echo of the same congestion. */
  private pausedUntil = -Infinity;
  private lastPauseMs = Infinity;
  /** Since the last 429 (or the start): the probe speeds up with it (B7). */
  private quietFrom = Infinity;

  /** The span now open (none before the first send). */
  private open: OpenSpan | undefined;

  // What the spans taught.
  private readonly spans: Span[] = [];
  /** The span that met the last 429 (its late answers still count in it), and when it began. */
  private lastSpan: Span | undefined;
  private lastSpanStart = Infinity;
  private lastSpanAdmitted = Infinity;
  /** The first span, which began with a whole bucket. */
  private firstSpan: Span | undefined;
  /** The lowest pace that met a 429, relaxing upward while none comes: the probe stays under it. */
  private tooFast = Infinity;
  /** The rate a long span admitted, or the bounds pinned (undefined until then). */
  private solvedRate: number | undefined;
  /** A small bucket's size, once the bounds pinned its rate. */
  private burstEstimate: number | undefined;
  /** A bucket whose rate the bounds pin: its least rate, and its size at that rate (burstAfter). */
  private refill: { rate: number; burst: number } | undefined;
  private boundsFor: { span: Span | undefined; upTo: number; result: ReturnType<typeof bucketBounds> } | undefined;

  // A window: its quota goes at once after each pause (`burst`), then is timed by the gate's log.
  private burst = 0;
  private burstRefuted = false;
  private anchorQuota = 0;
  private anchorWindowMs = 0;
  /** A 429 met under the log ends it for good. */
  private anchorEnded = false;
  /** A remembered window's log waits for the pause that says where the window ends (B8). */
  private anchorArmed = true;
  /** The spans a window's quota was read from: their late answers may raise it. */
  private quotaFrom: Span[] = [];

  // B10. 429s that say nothing (no Retry-After): the refusals are probed at a short interval
  // (silentPause), a refused probe is part of the same refusals, and a window is measured from
  // when they start and stop.
  /** The refusals under way: when the first was sent, the span it ended and when that span began. */
  private refusing: { since: number; span: Span | undefined; start: number | undefined; probeMs: number } | undefined;
  /** When the span now open began: the probe admitted after refusals (or the run's first send). */
  private silentStart: number | undefined;
  /** What each run of refusals measured: the count admitted before it, and the length from the span's first send to the probe admitted after it (an upper bound, `slackMs` over at most). */
  private readonly silentCounts: Array<{ count: number; windowMs: number; slackMs: number }> = [];
  /** The window held was measured from refusals (B10): a 429 under its log lengthens it instead of ending it. */
  private silentWindow = 0;

  // A cap on requests in flight.
  /** The most requests in flight any admitted request had at its send, since a cap was last cut. */
  private admittedInflightMax = 0;
  private lastWindowCutAt = -Infinity;
  private windowFoundAt = -Infinity;
  private windowGrownAt = -Infinity;

  // A limit remembered from an earlier run (B8).
  private seeded: Limit['shape'] | undefined;
  private seededAtStart = false;
  /**
   * B8. From this moment of a run that started from a remembered rate, with no 429 yet, the pace
   * rises as fast as a first run's would (doubling each SEED_PROBE_DOUBLING_MS): a limit raised
   * since is found as soon as starting afresh finds it; the first 429 ends it.
   */
  private raiseProbeFrom: number | undefined;
  /** The pace a remembered limit started this run at, and whether the 429 now learnt from met the raise probe. */
  private seededPace = 0;
  private metRaiseProbe = false;
  private seededLimit: Limit | undefined;
  private doubted = false;
  private requoted = false;
  /** When the first request went, and the answers admitted since: the rate a cap admits. */
  private firstSentAt: number | undefined;
  private admittedCount = 0;
  private lastAnswerAt = 0;

  constructor(ceiling: number | undefined) {
    this.ceiling = ceiling ?? Infinity;
    // With --rate the operator has said how fast: start there and only ever go slower.
    this.slowStart = ceiling === undefined;
    this.rate = ceiling ?? tune.INITIAL_RATE;
  }

  get pace(): number {
    return this.rate;
  }

  settings(): PaceSettings {
    const ceilingGap = this.ceiling !== Infinity ? 1000 / this.ceiling : 0;
    return { minTimeMs: Math.max(ceilingGap, 1000 / this.rate), credits: null, refillPerSec: 0, capacity: null, catchUp: this.catchUp };
  }

  /**
   * B8. Starts from a limit remembered from an earlier run, a little under it, with no slow start:
   * a bucket at its refill (its burst at once, as far as it has refilled since the last run), a
   * window's quota at once (its log kept to once the 429 after it says where the window ends), a
   * cap's window, a pace not yet measured as it was (probed up as an unsolved one).
   */
  seed(l: Limit, now: number): void {
    this.seededAtStart = true;
    this.quietFrom = now;
    this.slowStart = false;
    this.seeded = l.shape;
    if (l.maxInFlight !== undefined) this.capAtMost(l.maxInFlight, now);
    if (l.shape === 'concurrency') {
      this.rate = Math.min(this.ceiling, 2 * l.rate);
    } else if (l.shape === 'window' && l.quota !== undefined && l.windowMs !== undefined) {
      this.holdQuota(l.quota, l.windowMs);
      // B10. One measured from refusals that say nothing counted from its first request: its log
      // holds from this run's first (no 429 then says where it ends, and none needs to).
      this.anchorArmed = l.silent === true;
      if (l.silent === true) this.silentWindow = 1;
      this.rate = Math.min(this.ceiling, Math.max(l.rate, (l.quota * 1000) / l.windowMs));
      // (A window measured from refusals that say nothing is kept by its log from the first request.)
      if (l.silent !== true) this.raiseProbeFrom = now + tune.SEED_PROBE_AFTER_MS;
    } else if (l.unconfirmed === true) {
      this.doubted = true;
      this.rate = Math.min(this.ceiling, l.rate);
    } else {
      this.solvedRate = l.rate;
      if (l.shape === 'bucket' && l.burst !== undefined) {
        this.burstEstimate = l.burst;
        this.refill = { rate: l.rate, burst: l.burst };
      }
      // (A bucket that holds a second's refill loses nothing by a 429 but the 429: it is paced at its rate.)
      const under = (l.burst ?? 1) >= l.rate ? 1 : (l.burst ?? 1) >= 3 ? tune.SEED_UNDER : tune.SEED_UNDER_SMALL;
      this.rate = Math.min(this.ceiling, l.rate * under);
    }
    if (l.shape !== 'window' && l.shape !== 'concurrency') this.raiseProbeFrom = now + tune.SEED_PROBE_AFTER_MS;
    this.seededPace = this.rate;
    this.seededLimit = l;
  }

  /** What may go at once when a seeded run starts: a window's quota, what a bucket has refilled since `endedAt`. */
  startBurst(now: number, endedAt: number | undefined): number {
    if (this.seeded === 'window') return this.anchorQuota;
    if (this.seeded !== 'bucket' || this.refill === undefined) return 0;
    const refilled = endedAt === undefined ? Infinity : (this.refill.rate * Math.max(0, now - endedAt)) / 1000;
    // (The size remembered is the least that fits what was admitted, give or take one.)
    return Math.max(0, Math.floor(Math.min(this.refill.burst - 1, refilled)));
  }

  snapshot(now: number): Learnt | undefined {
    const limit = this.known(now);
    return limit && { limit: { ...limit, headers: null }, learnt: this.learnt };
  }

  /** What the spans say of the limit now (undefined: no 429 yet). */
  private known(now: number): Omit<Limit, 'headers' | 'source' | 'learntAt'> | undefined {
    // (A window grown by one and not yet through its probe is the one before.)
    const held = now - this.windowGrownAt < tune.WINDOW_PROBE_MS ? this.window - 1 : this.window;
    const cap = this.window !== Infinity ? { maxInFlight: held } : {};
    if (this.anchorQuota > 0 && this.burst > 0 && !this.anchorEnded) return { shape: 'window', quota: this.anchorQuota, windowMs: this.anchorWindowMs, rate: (this.anchorQuota * 1000) / this.anchorWindowMs, ...cap, ...(this.silentWindow > 0 ? { silent: true } : {}) };
    // A bucket's size is at least what the first span, which began with it whole, admitted beyond its rate.
    const first = this.firstSpan;
    const atStart = (rate: number) => (first !== undefined && !this.seededAtStart ? first.A - (rate * first.T) / 1000 : 0);
    const bucket = this.refill ?? (this.solvedRate !== undefined && this.burstEstimate !== undefined ? { rate: this.solvedRate, burst: this.burstEstimate } : undefined);
    if (bucket !== undefined) return { shape: 'bucket', rate: bucket.rate, burst: Math.max(bucket.burst, atStart(bucket.rate)), ...cap };
    if (this.solvedRate !== undefined && atStart(this.solvedRate) >= 2) return { shape: 'bucket', rate: this.solvedRate, burst: atStart(this.solvedRate), ...cap };
    const admitted = this.firstSentAt !== undefined && this.lastAnswerAt > this.firstSentAt ? (this.admittedCount * 1000) / (this.lastAnswerAt - this.firstSentAt) : 0;
    if (this.window !== Infinity && admitted > 0) return { shape: 'concurrency', rate: admitted, maxInFlight: held };
    if (this.solvedRate !== undefined) return { shape: 'rate', rate: this.solvedRate, ...cap };
    if (this.spans.length > 0) return { shape: 'rate', rate: this.rate, unconfirmed: true, ...cap };
    return undefined;
  }

  /** Starts from a pace found elsewhere (a shared budget's): no slow start; probed up as an unsolved one. */
  seedPace(rate: number): void {
    this.regrowTo = 0;
    this.rate = Math.max(tune.MIN_RATE, Math.min(this.ceiling, rate));
    this.slowStart = false;
  }

  /** B6. The cap is at most `n` in flight (a leader's count, or the cap a last leader handed over): never raises it. */
  capAtMost(n: number, now: number): void {
    if (n >= this.window) return;
    if (this.window === Infinity) this.windowFoundAt = now;
    this.window = Math.max(1, n);
    this.lastWindowCutAt = now;
    this.admittedInflightMax = Math.min(this.admittedInflightMax, this.window - 1);
  }

  onSend(now: number): void {
    if (this.open === undefined || this.open.start < this.pausedUntil) {
      const start = Math.max(now, this.pausedUntil === -Infinity ? now : this.pausedUntil);
      this.open = { start, slow: this.slowStart, burst: this.burstAfter(), sends: [], admitted: 0, maxInflight: 0, admits: [], admittedAt: [], failed: 0, paceAtSend: [] };
    }
    const open = this.open;
    if (this.quietFrom === Infinity) this.quietFrom = now;
    if (open.sends.length < tune.SPAN_SENDS_MAX) open.sends.push(now);
    if (open.paceAtSend.length >= 8192) open.paceAtSend.splice(0, 4096);
    open.paceAtSend.push([now, this.rate]);
  }

  /** B1, B7. Requests are waiting for the pace: it grows (slow start, then a probe). */
  onBusy(now: number): void {
    if (now < this.pausedUntil || this.rate >= this.ceiling) return;
    const last = this.lastGrowthAt ?? now;
    this.lastGrowthAt = now;
    const dt = Math.min(now - last, 1000);
    if (dt <= 0) return;
    if (this.slowStart) this.rate *= 2 ** (dt / tune.DOUBLING_MS);
    else if (this.raiseProbeFrom !== undefined && now >= this.raiseProbeFrom) this.rate *= 2 ** (Math.min(dt, now - this.raiseProbeFrom) / tune.SEED_PROBE_DOUBLING_MS);
    else if (this.rate < this.regrowTo) this.rate = Math.min(this.regrowTo, this.rate * 2 ** (dt / 1000));
    else {
      const quiet = Math.min(tune.QUIET_MAX, 2 ** (Math.max(0, now - this.quietFrom - tune.QUIET_AFTER_MS) / tune.QUIET_DOUBLING_MS));
      const probe = quiet * (this.solvedRate === undefined ? tune.PROBE_UNSOLVED * this.rate : (this.burstEstimate !== undefined ? tune.PROBE_FIT : tune.PROBE_SOLVED) * this.solvedRate);
      // Up, but not into the pace that last met a 429, which itself relaxes.
      this.tooFast *= 1 + quiet * tune.RELAX_PER_SEC * (dt / 1000);
      this.rate = Math.max(this.rate, Math.min(this.rate + probe * (dt / 1000), this.tooFast * tune.UNDER_TOO_FAST));
    }
    this.rate = Math.min(this.rate, this.ceiling);
  }

  onIdle(): void {
    this.lastGrowthAt = undefined;
  }

  /** One answer (status 0: a transport failure, which may never have reached the server); `wait`: the pause a 429 calls for. */
  observe(o: Observation, wait: number): void {
    this.firstSentAt = Math.min(this.firstSentAt ?? o.sentAt, o.sentAt);
    this.lastAnswerAt = Math.max(this.lastAnswerAt, o.at);
    const open = this.open !== undefined && o.sentAt >= this.open.start ? this.open : undefined;
    if (o.status === 0) {
      if (open) open.failed += 1;
      return;
    }
    if (o.status !== 429) {
      this.admittedCount += 1;
      if (this.refusing !== undefined && o.sentAt >= this.pausedUntil) this.refusalsStopped(o.sentAt);
      // B7. A cap that held every request sent in a quiet minute (the window full at its send) is
      // probed one wider: the next 429, if soon, takes it back.
      if (this.window !== Infinity && o.inflightAtSend >= this.window - 1 && o.at - Math.max(this.lastWindowCutAt, this.pausedUntil) > tune.WINDOW_GROW_MS) {
        this.window += 1;
        this.lastWindowCutAt = o.at;
        this.windowGrownAt = o.at;
        this.learnt = true;
      }
      if (open) {
        open.admitted += 1;
        open.maxInflight = Math.max(open.maxInflight, o.inflightAtSend);
        this.admittedInflightMax = Math.max(this.admittedInflightMax, o.inflightAtSend);
        if (open.admittedAt.length >= 8192) open.admittedAt.splice(0, 4096);
        open.admittedAt.push(o.sentAt);
        if (open.admits.length < tune.SPAN_SENDS_MAX) open.admits.push({ sentAt: o.sentAt, rtt: o.at - o.sentAt });
      }
      // B5. Answers overtake each other on the wire: one admitted after the last 429 still counts in
      // the span that met it when sent before its refused request — or, as a window counts
      // arrivals, sent just after it within the wire's jitter (quotaCount).
      const last = this.lastSpan;
      if (last !== undefined && o.sentAt >= last.refusedAt && o.sentAt < last.refusedAt + last.jitterMs && o.sentAt < this.pausedUntil) {
        last.overtook += 1;
        this.raiseQuota();
      }
      if (last !== undefined && o.sentAt >= this.lastSpanStart && o.sentAt < last.refusedAt) {
        last.A += 1;
        this.lastSpanAdmitted += 1;
        if (last.admits.length < tune.SPAN_SENDS_MAX) last.admits.push({ sentAt: o.sentAt, rtt: o.at - o.sentAt });
        this.raiseQuota();
      }
      return;
    }
    this.quietFrom = o.at;
    this.metRaiseProbe = this.raiseProbeFrom !== undefined && o.sentAt >= this.raiseProbeFrom;
    this.raiseProbeFrom = undefined;
    // An echo (sent before the last pause ended) teaches nothing new; nor does a probe refused
    // while the refusals that say nothing go on (B10): they are one.
    const probeRefused = o.retryAfterMs === undefined && this.refusing !== undefined && this.open !== undefined && this.open.admitted === 0;
    if (o.sentAt >= this.pausedUntil && this.open !== undefined && !probeRefused) {
      this.lastSpanAdmitted = this.open.admitted;
      this.refusing = undefined;
      this.learn(o, this.open);
      if (o.retryAfterMs === undefined) this.refusing = { since: o.sentAt, span: this.lastSpan, start: this.silentStart ?? this.firstSentAt, probeMs: 0 };
    }
    if (probeRefused && this.refusing !== undefined) this.refusing.probeMs = wait;
    // (An echo that calls for no longer pause leaves the pause's length as it was.)
    if (o.at + wait >= this.pausedUntil) this.lastPauseMs = wait;
    this.pausedUntil = Math.max(this.pausedUntil, o.at + wait);
    this.lastGrowthAt = undefined;
  }

  /**
   * B10. The pause after a 429 that says nothing (no Retry-After): a probe at a short interval, an
   * eighth of the time refused so far (50 ms to 1 s) — a bucket refills in a fraction of a second,
   * a window ends at a moment the probes find to within an eighth of its refusals. With a window
   * measured once, its end is waited for and then probed at the shortest interval. An echo (sent
   * before the pause in force ended) calls for no more pause.
   */
  silentPause(o: Observation): number {
    if (o.sentAt < this.pausedUntil) return 0;
    const going = this.refusing !== undefined && this.open !== undefined && this.open.admitted === 0 ? this.refusing : undefined;
    const since = going?.since ?? o.sentAt;
    const step = Math.min(tune.PROBE_MAX_MS, Math.max(tune.PROBE_MIN_MS, (o.at - since) * tune.PROBE_SHARE));
    const last = this.silentCounts[this.silentCounts.length - 1];
    const start = going?.start ?? this.silentStart ?? this.firstSentAt;
    // (Only while the count before these refusals is the last one's again: a window's quota.)
    const count = going?.span !== undefined ? quotaCount(going.span) : (this.open?.admitted ?? 0);
    const again = last !== undefined && count >= 4 && Math.abs(count - last.count) <= Math.max(1, tune.WINDOW_SAME * last.count);
    if (last !== undefined && again && start !== undefined && this.anchor() === undefined) {
      // (The window's end, at the earliest: the last length measured less its slack.)
      const earliest = start + last.windowMs - last.slackMs;
      if (o.at < earliest) return earliest - o.at;
      return tune.PROBE_FINE_MS;
    }
    return step;
  }

  /** B10. A probe was admitted at `at`: the refusals stopped. What they measured of a window. */
  private refusalsStopped(at: number): void {
    const r = this.refusing as NonNullable<typeof this.refusing>;
    this.refusing = undefined;
    this.lastPauseMs = at - r.since;
    this.silentStart = at;
    if (r.span === undefined || r.start === undefined) return;
    this.silentCounts.push({ count: quotaCount(r.span), windowMs: at - r.start, slackMs: Math.max(tune.PROBE_FINE_MS, r.probeMs) });
    if (this.silentCounts.length > 4) this.silentCounts.shift();
    const [a, b] = this.silentCounts.slice(-2);
    if (a === undefined || b === undefined) return;
    const least = Math.min(a.count, b.count);
    const same = (x: { count: number }) => Math.abs(x.count - least) <= Math.max(1, tune.WINDOW_SAME * least);
    if (least < 4 || !same(a) || !same(b)) return;
    // Runs of the same count: a window of it, as long as the shortest measured (each is its length
    // or more, by the probe's lateness).
    const windowMs = Math.min(...this.silentCounts.filter(same).map((x) => x.windowMs));
    if (this.silentWindow > 0 && this.anchorQuota === least && this.anchorWindowMs <= windowMs && !this.anchorEnded) return;
    this.burstRefuted = false;
    this.anchorEnded = false;
    this.anchorArmed = true;
    this.holdQuota(least, windowMs);
    this.silentWindow = 1;
    this.quotaFrom = [];
  }

  /** A 429 that ends the span now open: what it teaches, rule by rule. */
  private learn(o: Observation, open: OpenSpan): void {
    this.regrowTo = 0;
    const T = Math.max(1, o.sentAt - open.start);
    const A = open.admitted;
    const rtts = open.admits.map((x) => x.rtt);
    const span: Span = { pauseMs: this.lastPauseMs, T, A, slow: open.slow, sends: sorted(open.sends), refusedAt: o.sentAt, jitterMs: jitterOf(rtts), rttMaxMs: rtts.reduce((a, b) => Math.max(a, b), 1), rttMinMs: rtts.reduce((a, b) => Math.min(a, b), Infinity), failed: open.failed, retryAfterMs: o.retryAfterMs ?? 0, retryAfterKnown: o.retryAfterMs !== undefined, admits: open.admits, refusedRttMs: o.at - o.sentAt, overtook: 0 };
    // (Its admitted answers that come later are added to it alone: not twice.)
    open.admits = [];
    this.lastSpan = span;
    this.lastSpanStart = open.start;
    this.learnt = true;
    if (span.pauseMs === Infinity) this.firstSpan ??= span;
    if (this.metRaiseProbe && this.judgeRaise(span)) return;
    if (this.seeded !== undefined && this.judgeSeed(span)) return;

    // B6. A 429 soon after the window grew by one, with the window full: the probe found the cap
    // again (the count at a send can be one short of the server's: an answer on its way back).
    if (this.window !== Infinity && o.sentAt >= this.windowGrownAt && o.sentAt - this.windowGrownAt < tune.WINDOW_PROBE_MS && o.inflightAtSend >= this.window - 2) {
      this.window -= 1;
      this.windowGrownAt = -Infinity;
      this.lastWindowCutAt = o.at;
      return;
    }
    // B6, shared. While a cap is new, a 429 granted with fewer in flight than the window, by the
    // leader's count (never short of the server's), lowers it — one with nothing else in flight is
    // no cap's, nor one whose server held the admitted no longer than it took to refuse (a rate's).
    const serviceMs = span.rttMinMs - span.refusedRttMs;
    const served = Number.isFinite(serviceMs) && serviceMs >= Math.max(tune.SERVICE_SHARE * span.rttMinMs, 2 * span.jitterMs);
    if (o.inflightBound !== undefined && this.window !== Infinity && o.sentAt - this.windowFoundAt < tune.WINDOW_NEW_MS && o.inflightBound >= 1 && o.inflightBound < this.window && served) {
      this.capAtMost(o.inflightBound, o.at);
      return;
    }
    // B6. More in flight than any admitted request had: the limit is on concurrency — unless they
    // were in flight together because a burst sent them together (a refill or a quota after a
    // pause, met by the 429 within it, before its first answer, or after it was all admitted).
    const sentTogether = open.burst > 0 && (A >= open.burst || T < span.rttMinMs || open.sends.filter((t) => t <= o.sentAt).length <= open.burst);
    if (!sentTogether && o.inflightAtSend > this.admittedInflightMax && A > 0 && this.window > Math.max(open.maxInflight + 1, o.inflightAtSend)) {
      if (this.window === Infinity) this.windowFoundAt = o.at;
      this.window = Math.max(1, open.maxInflight + 1, o.inflightAtSend, Math.min(this.window - 1, windowOverWire(span)));
      this.lastWindowCutAt = o.at;
      this.admittedInflightMax = open.maxInflight;
      this.slowStart = false;
      this.rate = Math.min(this.ceiling, Math.max(this.rate, ((A / T) * 1000) * 1.5));
      return;
    }
    this.spans.push(span);
    if (this.spans.length > 4) this.spans.shift();
    this.judgeBurst(span);
    // B4. Sending a window's quota at once, the 429 that ends it is expected: nothing to learn.
    if (this.burst > 0 && span.A >= this.burst && !this.slowStart) return;
    this.slowStart = false;
    const paceAt429 = this.rate;
    const estimate = this.estimate(paceAt429, o.sentAt);
    this.tooFast = Math.min(this.tooFast, paceAt429);
    this.rate = Math.max(tune.MIN_RATE, Math.min(this.ceiling, estimate));
  }

  /**
   * B8. The first 429 after a remembered limit was taken up; true when there is nothing more to
   * learn from it. A window: a span that admitted its quota (or more: raised since) confirms it —
   * the 429 said where the window ends, and the log is kept to from then on; a smaller count is the
   * quota now if the next span proves it (asked back in half the window or more: a bucket that
   * size asks back sooner). A rate: a span of seconds confirms it (the long span's rule reads it
   * again); a short one steps the pace down as after any short span of a solved rate, and a second
   * drops what was remembered — the limit is learnt afresh, without slow start.
   */
  private judgeSeed(span: Span): boolean {
    const shape = this.seeded;
    this.seeded = undefined;
    if (shape === 'window') {
      const count = quotaCount(span) + mayHaveOvertaken(span);
      if (count >= this.anchorQuota && (!this.requoted || span.retryAfterMs >= this.anchorWindowMs / 2)) {
        if (count > this.anchorQuota) this.holdQuota(count, this.anchorWindowMs);
        this.anchorArmed = true;
        return true;
      }
      if (count >= 4 && !this.requoted) {
        this.holdQuota(count, this.anchorWindowMs);
        this.requoted = true;
        this.seeded = 'window';
        return true;
      }
      this.forgetLimit();
    } else if (shape !== 'concurrency') {
      if (span.T >= tune.LONG_SPAN_MS) this.solvedRate = undefined;
      else if (!this.doubted) {
        this.doubted = true;
        this.seeded = shape;
      } else this.forgetLimit();
    }
    return false;
  }

  /**
   * B8. The 429 that ended the raise probe. The remembered limit is replayed over the run so far,
   * full at the run's start (a window as a bucket of its quota over its length): taken a little
   * larger (its rate 5 % over, its size — the least a first run can read — twice and two more),
   * would it have admitted every request the
   * server did? If not, the limit was raised: it is learnt afresh, from between the remembered pace
   * and the one that met the 429 (their geometric middle, at least half the latter). Taken a little smaller (5 % under, one less), would it
   * still have admitted the refused one? Then it was lowered: the 429 is judged as any first one
   * after a remembered limit (judgeSeed; false). Otherwise it is as it was: the run goes on at its
   * pace, and the next 429, if soon, drops it as a second short span would.
   */
  private judgeRaise(span: Span): boolean {
    this.metRaiseProbe = false;
    const was = this.seededLimit as Limit;
    const rate = was.shape === 'window' && was.quota !== undefined && was.windowMs !== undefined ? (was.quota * 1000) / was.windowMs : was.rate;
    const size = was.shape === 'window' ? (was.quota ?? 1) : (was.burst ?? 1);
    const sends = sorted(span.admits.map((a) => a.sentAt));
    const replay = (k: number, extra: number, until: number): number => {
      const b = size * tune.RAISED_SIZE_SHARE + extra;
      let tokens = b;
      let at = this.firstSentAt ?? until;
      let least = Infinity;
      for (const t of [...sends.filter((x) => x < until), until]) {
        tokens = Math.min(b, tokens + ((t - at) * rate * k) / 1000);
        at = t;
        least = Math.min(least, tokens);
        tokens -= 1;
      }
      return least;
    };
    // (A bucket of one or two hides no ramp: refused as soon as the pace passes its rate, half the
    // pace that met the 429 well over the remembered one is a raise the replay is too short to see.)
    const raised = replay(tune.RAISED_RATE, tune.RAISED_SIZE, span.refusedAt + 1) < 0 || (size <= 2 && this.rate * tune.FIRST_SHARE > this.seededPace * tune.RAISED_BY);
    if (raised) {
      // (Between the remembered pace, which the server outran, and the one that met the 429: their
      // geometric middle, no lower than a slow start's half.)
      this.seeded = undefined;
      this.forgetLimit();
      this.tooFast = this.rate;
      this.rate = Math.max(tune.MIN_RATE, Math.min(this.ceiling, Math.max(this.rate * tune.FIRST_SHARE, Math.sqrt(this.seededPace * this.rate))));
      return true;
    }
    // The refused request, replayed under the limit a little smaller: a token still in hand.
    const lowered = (() => {
      const b = size / tune.RAISED_RATE - 1;
      let tokens = b;
      let at = this.firstSentAt ?? span.refusedAt;
      for (const t of [...sends.filter((x) => x < span.refusedAt), span.refusedAt]) {
        tokens = Math.min(b, tokens + ((t - at) * rate) / tune.RAISED_RATE / 1000);
        at = t;
        if (t === span.refusedAt) return tokens >= 0;
        tokens -= 1;
      }
      return false;
    })();
    this.rate = this.seededPace;
    if (lowered) return false;
    // (Confirmed so far; the next 429 at this pace, if soon, drops it — judgeSeed.)
    this.doubted = true;
    this.tooFast = Math.min(this.tooFast, this.seededPace / tune.UNDER_TOO_FAST + 1e-9);
    return true;
  }

  /** What was known of the limit is dropped, to be learnt afresh. */
  private forgetLimit(): void {
    this.solvedRate = undefined;
    this.burstEstimate = undefined;
    this.refill = undefined;
    this.spans.length = 0;
    this.quotaFrom = [];
    this.burst = 0;
    this.burstRefuted = false;
    this.anchorQuota = 0;
    this.anchorWindowMs = 0;
    this.anchorEnded = false;
    this.anchorArmed = true;
    this.tooFast = Infinity;
    this.boundsFor = undefined;
    this.firstSpan = undefined;
  }

  /** B3. bucketBounds over the spans kept, once per 429 (judgeBurst and estimate both ask). */
  private bounds(upTo: number): ReturnType<typeof bucketBounds> {
    const last = this.spans[this.spans.length - 1];
    const cached = this.boundsFor;
    if (cached !== undefined && cached.span === last && cached.upTo === upTo) return cached.result;
    const result = bucketBounds(this.spans, upTo);
    this.boundsFor = { span: last, upTo, result };
    return result;
  }

  /**
   * B9. After a pause, requests that may be in flight until one sent after it is admitted: one
   * more than the span before admitted (about what a pause that long refills). Over a wire, the
   * pace would send a round trip's worth before the first answer, and those past the refill would
   * all meet a 429.
   */
  restartCap(): number {
    return Math.max(1, this.lastSpanAdmitted + 1);
  }

  /** B10. The window held was measured from refusals that said nothing. */
  measuredSilently(): boolean {
    return this.silentWindow > 0;
  }

  /** B10. Refusals that say nothing are under way: after each pause one probe goes alone. */
  probing(): boolean {
    return this.refusing !== undefined;
  }

  /** B3, B4. Requests that may go at once when a pause ends: most of a window's quota, or what a measured bucket refilled. */
  burstAfter(): number {
    if (this.burst > 0) return this.burst;
    return this.refill !== undefined && this.lastPauseMs !== Infinity ? Math.floor(tune.REFILL_SHARE * Math.min(this.refill.burst, (this.refill.rate * this.lastPauseMs) / 1000)) : 0;
  }

  /**
   * B5. A recognised window as a quota per length: the gate lets no more than `quota` start
   * within `windowMs` of the answer to an earlier one (log.ts). A request answered had reached the
   * server before, so one sent a window's length after that reaches it after the window that
   * counted the other has ended — fixed or sliding — and each quota goes at its window's start
   * with no 429 to end it.
   */
  anchor(): Anchor | undefined {
    if (this.burst <= 0 || this.anchorQuota <= 0 || this.anchorWindowMs <= 0 || this.anchorEnded || !this.anchorArmed) return undefined;
    return { quota: this.anchorQuota, windowMs: this.anchorWindowMs };
  }

  /** B5. A request the log let go met a 429: the window is longer, not all ours, or none; the log ends for good. */
  anchorMissed(): void {
    // B10. A window measured from refusals that say nothing may be a little short (its start was
    // probed too): a few times it is lengthened by the shortest probe instead.
    if (this.silentWindow > 0 && this.silentWindow <= tune.SILENT_LENGTHEN_MAX) {
      this.silentWindow += 1;
      this.anchorWindowMs += tune.PROBE_MIN_MS;
      return;
    }
    this.anchorEnded = true;
  }

  /** B4. A window of `quota` per `windowMs`: most of its quota goes at once after each pause. */
  private holdQuota(quota: number, windowMs: number): void {
    this.burst = Math.floor(quota * 0.9);
    this.anchorQuota = quota;
    this.anchorWindowMs = windowMs;
  }

  /** B5. A late answer of a span a window's quota was read from: the quota is their least count, perhaps one higher now. */
  private raiseQuota(): void {
    if (this.anchorEnded || this.burst <= 0 || this.lastSpan === undefined || !this.quotaFrom.includes(this.lastSpan)) return;
    const least = Math.min(...this.quotaFrom.map(quotaCount));
    if (least > this.anchorQuota) this.holdQuota(least, this.anchorWindowMs);
  }

  /**
   * B4. A window admits its whole quota after a pause: a span that began with it at once and
   * admitted less refutes it for good. Before one is read, its quota is the least count of a short
   * span that began with a whole quota (the first, or one after a pause of a second or more); two
   * such spans within 2 % (one request under 50) are a window — unless a bucket fits them and is the
   * likelier (bucketExplains), which three exactly equal counts override when one of those spans
   * was refused too late for such a bucket (provesQuota). Its length is the longest pause a 429
   * called for after a quota sent from a window's start, plus the whole seconds the quota took.
   * Counts that differ may still fit a fixed window's grid (judgeFixedGrid).
   */
  private judgeBurst(cur: Span): void {
    const short = this.burst > 0 && cur.A + cur.failed + mayHaveOvertaken(cur) < Math.max(this.burst, this.anchorQuota);
    if (this.burst > 0 && (cur.A < this.burst || short)) {
      this.burst = 0;
      this.burstRefuted = true;
      return;
    }
    if (this.burstRefuted || this.burst > 0) return;
    const afterPause = this.spans.filter(quotaSpan);
    const least = afterPause.length > 0 ? Math.min(...afterPause.map(quotaCount)) : 0;
    const same = afterPause.filter((x) => quotaCount(x) - least <= Math.max(1, tune.WINDOW_SAME * least));
    if (same.length < 2) {
      this.judgeFixedGrid();
      return;
    }
    const sameAfterPause = same.filter((x) => x.pauseMs !== Infinity);
    const windowMs = sameAfterPause.length > 0 ? Math.max(...sameAfterPause.map(windowAfterQuota)) : 0;
    const paused = afterPause.filter((x) => x.pauseMs !== Infinity);
    const allSame = paused.length >= tune.SAME_SPANS && paused.every((x) => quotaCount(x) === least) && paused.some(provesQuota);
    if (!allSame && this.bucketExplains(least, windowMs)) return;
    this.holdQuota(least, windowMs);
    this.quotaFrom = same;
  }

  /**
   * B4. A token bucket fits the spans and is the likelier reading of a window of `quota` per
   * `windowMs`: its least rate is a good part of the pace that met the 429 — or, for a quota under
   * BURST_MIN_QUOTA (where a window misread costs more than a bucket misread), it refills most of
   * the quota in a window's length, or the fastest bucket that fits would outrun the quota several
   * times over: the log would hold it under its rate with no 429 ever to say so.
   */
  private bucketExplains(quota: number, windowMs: number): boolean {
    const bucket = this.bounds(this.rate);
    if (bucket === undefined) return false;
    if (bucket.rate >= tune.BUCKET_NOT_WINDOW * this.rate) return true;
    const perWindow = (rate: number) => rate * (windowMs / 1000);
    return quota < tune.BURST_MIN_QUOTA && (perWindow(bucket.rate) >= tune.BUCKET_REFILLS_QUOTA * quota || perWindow(bucket.upper) > tune.BUCKET_OUTRUNS_QUOTA * quota);
  }

  /**
   * B4. Spans that ran across a fixed window's end admitted the rest of one quota and part of the
   * next, and over a wire each pause ends at a new phase, so equal counts may never come. But a
   * fixed window is a grid: a phase at which every span's refused request came after the same count
   * since its window began is a window of that count (fixedGridQuota), as long as the longest pause
   * a 429 called for. Three spans at least (four under BURST_MIN_QUOTA, with the bucket checks).
   */
  private judgeFixedGrid(): void {
    const spans = this.spans.filter((x) => x.pauseMs >= 1000 && x.retryAfterKnown && x.A >= 4 && x.sends.length < tune.SPAN_SENDS_MAX);
    if (spans.length < tune.GRID_SPANS) return;
    const windowMs = Math.max(...spans.filter((x) => x.pauseMs !== Infinity).map((x) => x.retryAfterMs), 0);
    if (windowMs < 1000) return;
    const quota = fixedGridQuota(spans, windowMs);
    if (quota === undefined) return;
    if (quota < tune.BURST_MIN_QUOTA && (spans.length < tune.GRID_SPANS_SMALL || this.bucketExplains(quota, windowMs))) return;
    this.holdQuota(quota, windowMs);
    this.quotaFrom = [];
  }

  /** B1–B3. The pace to hold after the latest span: by the span, then bounded by what every span proves. */
  private estimate(paceAt429: number, at: number): number {
    const cur = this.spans[this.spans.length - 1] as Span;
    const base = this.estimateBySpan(paceAt429, at, cur);
    const rate = this.bounded(base, paceAt429, cur);
    // (The regrowth after a bucket's least refill is for that pace only.)
    if (rate !== base) this.regrowTo = 0;
    return rate;
  }

  /** B3. What every span proves of a token bucket, on the pace by span. */
  private bounded(base: number, paceAt429: number, cur: Span): number {
    if (this.spans.length === 1 || this.burst > 0) return base;
    const least = this.bounds(paceAt429);
    if (least === undefined) return base;
    const tight = least.upper <= tune.BOUNDS_TIGHT * least.rate;
    // A bucket a pause fills at least half way loses no time by a 429 once what the pause refilled
    // is spent at once after it (burstAfter); a small one loses each pause.
    const small = least.burst < (tune.SMALL_BURST * least.rate * cur.pauseMs) / 1000;
    // A bucket for sure once two spans after pauses admitted different counts: equal ones are a
    // window's too, which the bounds' slack for the wire can fit a bucket to.
    const afterPause = this.spans.filter((x) => x.pauseMs !== Infinity);
    const fewest = Math.min(...afterPause.map((x) => x.A));
    const bucketLike = afterPause.length >= 2 && !afterPause.every((x) => x.A - fewest <= Math.max(1, tune.WINDOW_SAME * fewest));
    if (tight) {
      if (bucketLike) this.refill = { rate: least.rate, burst: least.burst };
      if (!small && !bucketLike) return base;
      // One a pause fills to the brim: the pace goes at the rate, the pause's refill at once.
      if (!small && least.burst >= (least.rate * cur.pauseMs) / 1000) return Math.min(least.upper, paceAt429);
      // A small one: hold just under the least of the rates.
      this.solvedRate = Math.min(least.rate, paceAt429);
      this.burstEstimate = least.burst;
      return this.solvedRate * tune.HOLD_FIT;
    }
    // Not yet pinned: a pace over the bound from above is certain to meet a 429 again. It goes to
    // the middle of the rates that fit (no lower than a short span's step) — not after a pause of
    // seconds when the server now asks back in half of it or less, which a bucket that slow would
    // not, and a sliding window freeing what ages out does.
    if (!small && cur.pauseMs >= 2000 && asksBackSooner(cur)) return base;
    if (!small) return Math.min(base, least.upper < paceAt429 ? Math.max(Math.sqrt(least.rate * least.upper), tune.SHORT_SHARE * least.upper) : Infinity);
    return Math.min(base, least.upper < 1.5 * paceAt429 ? least.upper : Infinity);
  }

  /**
   * B1, B2. Slow start's pace is above the limit by up to a few doublings: the next span starts at
   * half of it. A long span drained only what a pause refilled, so the rate it admitted over its
   * last seconds is the limit's: the pace holds just under it. A short span says only that its pace
   * was too fast: a solved rate steps down a little, an unsolved pace by SHORT_SHARE — or to what a
   * span sent as one burst admitted per pause.
   */
  private estimateBySpan(paceAt429: number, at: number, cur: Span): number {
    if ((this.spans.length === 1 && !this.seededAtStart) || cur.slow) return paceAt429 * tune.FIRST_SHARE;
    if (cur.T >= tune.LONG_SPAN_MS) {
      const since = this.recentFrom(at, cur.T);
      const recent = (this.open as OpenSpan).admittedAt.filter((t) => t >= since).length;
      const R = Math.min(paceAt429, recent / ((at - since) / 1000));
      this.solvedRate = this.solvedRate !== undefined ? Math.max(R, this.solvedRate * tune.SOLVED_STEP) : R;
      return Math.min(this.solvedRate, paceAt429) * tune.HOLD;
    }
    if (this.solvedRate !== undefined) {
      this.solvedRate = Math.min(this.solvedRate * tune.SOLVED_STEP, paceAt429);
      return this.solvedRate * tune.HOLD;
    }
    // A span whose refused request left before any of its answers came back was one burst, not a
    // pace (over a wire, a round trip's worth leaves at once): what it admitted is what the pause
    // refilled, the least refill the bucket can have — the pace goes no lower, and regrows fast
    // (doubling each second) up to REGROW_SHARE of the pace that met the 429. Not when the server
    // now asks back in half the pause or less: no bucket that slow would.
    if (cur.T < cur.rttMinMs && cur.pauseMs !== Infinity && cur.A > 0 && !asksBackSooner(cur)) {
      this.regrowTo = paceAt429 * tune.REGROW_SHARE;
      return Math.min(paceAt429 * tune.SHORT_SHARE, Math.max(tune.MIN_RATE, (cur.A * 1000) / (cur.pauseMs + cur.T)));
    }
    return paceAt429 * tune.SHORT_SHARE;
  }

  /**
   * B2. Where a long span's recent admitted rate is read from: its last RECENT_MS — or, if the pace
   * climbed fast over them, from the last send whose pace was under RAMP_SHARE of the pace at the
   * refused send (two seconds of a pace doubling each second average half the pace at their end),
   * and at least RAMP_MIN_MS and RAMP_MIN_SENDS gaps before it.
   */
  private recentFrom(at: number, T: number): number {
    const from = at - Math.min(T, tune.RECENT_MS);
    let refusedAt = -Infinity;
    let refusedPace = 0;
    for (const [t, pace] of (this.open as OpenSpan).paceAtSend) if (t <= at && t >= refusedAt) [refusedAt, refusedPace] = [t, pace];
    let steadyFrom = -Infinity;
    for (const [t, pace] of (this.open as OpenSpan).paceAtSend) if (t <= at && pace < tune.RAMP_SHARE * refusedPace) steadyFrom = Math.max(steadyFrom, t);
    if (steadyFrom === -Infinity) return from;
    return Math.max(from, Math.min(steadyFrom, at - Math.max(tune.RAMP_MIN_MS, (tune.RAMP_MIN_SENDS * 1000) / refusedPace)));
  }

  /**
   * B3. Requests that may start back to back to make up for late timers (1: none), once a small
   * bucket is measured (before, two from FAST_RATE up): half its size — a pace under the refill in bursts no larger than the bucket
   * never empties it — and part of a gap more, (b − 2) / 2 gaps less the wire's jitter: a bucket of
   * b admits a request up to b − 1 gaps early.
   */
  get catchUp(): number {
    // (From FAST_RATE up, timers — whole milliseconds, and late — cannot space requests by
    // themselves: one late start may be made up for even before a bucket is measured.)
    if (this.burstEstimate === undefined || this.solvedRate === undefined) return this.rate >= tune.FAST_RATE ? 2 : 1;
    const b = this.burstEstimate;
    const jitterGaps = ((this.lastSpan?.jitterMs ?? 0) * this.rate) / 1000;
    return Math.min(tune.CATCH_UP_MAX, Math.max(1, Math.floor(b / 2), 1 + Math.max(0, (b - 2) / 2 - jitterGaps)));
  }
}

/**
 * B6. A cap found over a wire, as requests in flight here: a request holds a place on the server
 * for its service time and one here for its whole round trip. The service time is what an admitted
 * round trip takes beyond a refused one (answered at once); the server was full of what left within
 * that time before the refused request; the window is that cap over the service's share of the
 * round trip (over loopback, the cap itself). A bucket's refusal takes as long as an admission: 1.
 */
function windowOverWire(span: Span): number {
  const serviceMs = span.rttMinMs - span.refusedRttMs;
  if (span.refusedRttMs < tune.WIRE_SHARE * span.rttMinMs || serviceMs < Math.max(tune.SERVICE_SHARE * span.rttMinMs, 2 * span.jitterMs)) return 1;
  const onServer = span.sends.filter((t) => t <= span.refusedAt && t > span.refusedAt - serviceMs).length - 1;
  return Math.round((Math.max(1, onServer) * span.rttMinMs) / serviceMs);
}

/** B5. What a span admitted, as a window counts (arrivals): with those that may have overtaken its refused request. */
function quotaCount(x: Span): number {
  return x.A + x.overtook;
}

/** B5. At its 429, one more the span may have had admitted, as a window counts: a send just after the refused one, unanswered yet. */
function mayHaveOvertaken(x: Span): number {
  const after = (t: number) => t >= x.refusedAt && t < x.refusedAt + x.jitterMs;
  const answered = x.admits.filter((a) => after(a.sentAt)).length;
  return Math.min(1, Math.max(0, countIn(x.sends, x.refusedAt, x.refusedAt + x.jitterMs) - 1 - answered));
}

/** B3. The 429 that ended the span asked back in half the pause before it or less: no slow bucket's. */
function asksBackSooner(span: Span): boolean {
  return span.retryAfterKnown && span.pauseMs !== Infinity && span.retryAfterMs <= span.pauseMs / 2;
}

/**
 * B4. The window's length a span after a pause says, its quota sent from a window's start: the pause
 * its 429 called for (the rest of the window, in whole seconds), plus the whole seconds the quota
 * took (less the wire's spread).
 */
function windowAfterQuota(x: Span): number {
  if (!x.retryAfterKnown) return 0;
  const took = x.refusedAt - (x.sends[0] ?? x.refusedAt) - x.jitterMs;
  return x.retryAfterMs + 1000 * Math.max(0, Math.floor(took / 1000));
}

/**
 * B4. A span after a pause refused too late for any bucket a log of its count per pause would hold
 * back: a bucket refilling faster admits one more within a count's share of the pause after the
 * span's first request (5 % to spare, plus the round trip by which arrivals stray from sends).
 */
function provesQuota(x: Span): boolean {
  const first = x.sends[0];
  return first !== undefined && x.A > 0 && x.pauseMs !== Infinity && x.refusedAt - first >= (x.pauseMs / x.A) * tune.PROOF_SPARE + x.rttMaxMs;
}

/** B4. A short span that began with a whole quota, were the limit a window's: the first, or one after a pause of a second or more. */
function quotaSpan(x: Span): boolean {
  return x.pauseMs >= 1000 && x.T < tune.LONG_SPAN_MS && x.A >= 4;
}
