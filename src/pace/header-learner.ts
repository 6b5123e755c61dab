/**
 * The learner with headers: the server reports its quota (RateLimit-* in any form, headers.ts), and
 * the gate mirrors its bucket (mirror.ts): what it says remains, less what is in flight, regained
 * at the refill measured here from successive answers. Under-estimating the refill costs little —
 * unused tokens pile up on the server and the next answer reports them — so the estimate is kept
 * on the low side. A window is told from a bucket by its spans (windowSpan), and then kept to by
 * the gate's log. Engaged by the first answer that carries a count (read); until then, and for a
 * server whose counts say nothing (a quota of one or two), the learner without headers paces.
 */
import { backoffMs } from './backoff.js';
import type { RateLimitInfo } from './headers.js';
import type { Anchor, HeaderForm, Learner, Learnt, Limit, Observation, PaceSettings } from './types.js';
import * as tune from './tuning.js';

interface QuotaSample {
  at: number;
  /** When its request was sent: the server counted it no earlier. */
  sentAt: number;
  remaining: number;
  answered: number;
}

export class HeaderLearner implements Learner {
  private consecutive429 = 0;
  /** Engaged: an answer carried a count (read). */
  engaged = false;
  private credits: number | null = null;
  private capacity: number | null = null;
  private refill = 0;
  private answered = 0;
  private lastSample: QuotaSample | undefined;
  /** Proven lower bounds of the refill (see measureRefill), each with when it was found. */
  private refillBounds: Array<{ at: number; rate: number }> = [];
  /** When the request whose answer last set the credits was sent. */
  private quotaSentAt = -Infinity;
  private fullAt: number | undefined;
  private regainedSum = 0;
  /**
   * What a bucket's 429 says it refills at least (on429) — no measured refill goes under it once
   * a count has been seen to rise well before the reset (`refillSeen`): a window whose 429s ask
   * back sooner than its reset (a constant Retry-After) gets none.
   */
  private refillFloor = 0;
  private refillSeen = false;
  private lastRemaining: number | undefined;
  private intervalSum = 0;
  /**
   * Header regime: a window told from a bucket by its spans (see windowSpan). The current span
   * began when the last pause ended (`spanFrom`), after a pause of `spanPauseMs`; its admitted
   * answers, the counts they reported and whether one repeated (a refill between them).
   */
  private spanFrom = -Infinity;
  private spanPauseMs = Infinity;
  private spanAdmitted = 0;
  /** The span's first admitted send, and the longest round trip among its admitted requests. */
  private spanFirstSent = Infinity;
  private spanRoundTrip = 0;
  private readonly spanCounts = new Set<number>();
  private spanRefilled = false;
  /**
   * The span ran across a window's end: its count came back near whole on a request sent after
   * its first 0 came back (`spanZeroAt`), so counted after that 0. (Any count after a 0, with up to
   * 7 in flight beside it, had let a bucket's span that reported 0 twice pass for one.)
   */
  private spanCrossed = false;
  private spanZeroAt: number | undefined;
  private spanLimit: number | undefined;
  private windowEvidence: number[] = [];
  /**
   * A span after a pause has admitted exactly the published limit, each count once, as a window's
   * quota: the next request waits until its refusal, if it comes, would prove a window (see
   * windowSpan) — a quota's share of the pause after the span's first request. Sent sooner, on a
   * refill estimate the quota coming back at each reset had lifted, the refusal proved nothing and
   * a 1-s window of 10 met a 429 every window over real HTTP (8 %). A bucket that refills faster
   * admits it, having refilled by then, at the cost of that wait once per pause.
   */
  private windowProbeAt: number | undefined;
  private quotaAnchor: { quota: number; windowMs: number } | undefined;
  private anchorEnded = false;

  /** Header regime: when a request last waited for the mirror's credits. */
  private heldAt = -Infinity;
  /** Header regime: when the answers admitted over the last second arrived (from `admittedHead`). */
  private admittedAt: number[] = [];
  private admittedHead = 0;

  /** The header form last read, and whether a count was read in this run. */
  private form: HeaderForm | undefined;
  private readCount = false;
  /** The refill is still the remembered one, not measured in this run: a 429 drops it. */
  private seededRefill = false;
  /** The share of a policy's quota per window taken as the refill: a 429 that came all the same lowers it. */
  private policyShare = 1;
  private anchorArmed = true;

  constructor(
    private readonly ceiling: number | undefined,
    private readonly random: () => number,
  ) {}

  /**
   * Starts from a pace found elsewhere (a shared budget's, when Redis goes away or a new leader
   * takes over): no slow start, and with headers the refill until one is measured.
   */
  seedPace(rate: number): void {
    this.refill = Math.min(rate, this.ceiling ?? Infinity);
  }

  /**
   * Starts from a limit remembered from an earlier run (the learner without headers paces until an
   * answer's count engages this one): its refill until one is measured, and a window's quota per
   * length as a log once a pause has said where the window ends.
   */
  seed(l: Limit): void {
    if (l.headers === null) return;
    this.refill = Math.min(l.rate, this.ceiling ?? Infinity);
    this.seededRefill = true;
    if (l.shape === 'window' && l.quota !== undefined && l.windowMs !== undefined) {
      // Its log is kept to once a pause has said where the window ends (blind.ts, seedLimit).
      this.quotaAnchor = { quota: l.quota, windowMs: l.windowMs };
      this.anchorArmed = false;
    }
  }

  /** What this run knows of the limit, and whether it learnt it in this run (a 429, or a count read). */
  snapshot(): Learnt | undefined {
    const headers = this.form ?? null;
    const anchor = this.anchor();
    if (anchor !== undefined) return { limit: { shape: 'window', quota: anchor.quota, windowMs: anchor.windowMs, rate: (anchor.quota * 1000) / anchor.windowMs, headers }, learnt: this.readCount };
    if (!(this.refill > 0)) return undefined;
    return { limit: { shape: 'bucket', rate: this.refill, ...(this.capacity !== null ? { burst: this.capacity } : {}), headers }, learnt: this.readCount };
  }

  /** The pace in requests per second the limiter is held to now (for progress and stats). */
  get pace(): number {
    return Math.min(this.refill, this.ceiling ?? Infinity);
  }

  readonly window = Infinity;

  burstAfter(): number {
    return 0;
  }

  anchor(): Anchor | undefined {
    return this.anchorEnded || !this.anchorArmed ? undefined : this.quotaAnchor;
  }

  restartCap(): number {
    return Infinity;
  }

  anchorMissed(): void {
    this.anchorEnded = true;
  }

  onSend(): void {}
  onBusy(): void {}
  onIdle(): void {}

  settings(): PaceSettings {
    const ceilingGap = this.ceiling !== undefined ? 1000 / this.ceiling : 0;
    return { minTimeMs: ceilingGap, credits: this.credits, refillPerSec: this.refill, capacity: this.capacity, fullAt: this.fullAt, holdUntil: this.windowProbeAt, holdOne: this.windowProbeOne() };
  }

  /** A request waits for the mirror's credits (not a pause, not --rate). */
  mirrorHeld(now: number): void {
    this.heldAt = now;
  }

  /**
   * Reads every answer's count (engaging this learner at the first), before either learner
   * observes it; returns when the limiter may send again (a fixed window spent: its reset).
   */
  read(o: Observation, pausedUntil: number): number {
    const rl = o.rateLimit;
    // Any answer to a request sent once the wait for a window's proof was over ends that wait: one
    // admitted with a count, or refused, sets the next (observeQuota, windowSpan); one that failed
    // on the way or came back without a count proves nothing, and must not hold every request
    // after it to one at a time (holdOne).
    if (this.windowProbeAt !== undefined && o.sentAt >= this.windowProbeAt) this.windowProbeAt = undefined;
    // A quota of one or two reveals nothing of its refill but our own pace, unless a policy
    // states it: such a server is paced as one that says nothing. A bucket of one reports 0
    // always. A bucket of two reports 1 whenever it was full, which hides what overflowed, and 0
    // otherwise, where one token of a rise may not have dripped in between (`remaining` counts
    // whole tokens): no answer bounds its refill from below, and the mirror stayed at its first
    // guess from a reset in whole seconds — 2 a second for 100 (2 % of the limit).
    const tellsRefill = rl?.windowMs !== undefined || (rl?.limit ?? 0) > 2;
    return rl?.remaining !== undefined && tellsRefill ? this.observeQuota(o, rl, pausedUntil) : pausedUntil;
  }

  observe(o: Observation, pausedUntil: number): { waitMs: number; until: number } {
    if (o.status === 429) return this.on429(o, pausedUntil);
    if (o.status !== 0) this.consecutive429 = 0;
    return { waitMs: 0, until: pausedUntil };
  }

  private observeQuota(o: Observation, rl: RateLimitInfo, pausedUntil: number): number {
    const remaining = rl.remaining as number;
    // A remembered window whose published quota differs is no longer the server's.
    if (this.quotaAnchor !== undefined && rl.limit !== undefined && rl.limit !== this.quotaAnchor.quota && this.windowEvidence.length === 0) this.quotaAnchor = undefined;
    this.engaged = true;
    this.readCount = true;
    this.form = rl.form ?? this.form;
    if (o.status !== 429) {
      this.answered += 1;
      this.admittedAt.push(o.at);
      this.admittedRate(o.at); // (drops what is over a second old)
    }
    if (o.status !== 429 && o.sentAt >= this.spanFrom) {
      this.spanAdmitted += 1;
      this.spanFirstSent = Math.min(this.spanFirstSent, o.sentAt);
      this.spanRoundTrip = Math.max(this.spanRoundTrip, o.at - o.sentAt);
      if (this.spanCounts.has(remaining)) this.spanRefilled = true;
      if (this.spanZeroAt !== undefined && o.sentAt >= this.spanZeroAt && rl.limit !== undefined && remaining > 0 && remaining >= rl.limit - 1 - (o.inflightAtSend)) this.spanCrossed = true;
      if (remaining === 0) this.spanZeroAt ??= o.at;
      this.spanCounts.add(remaining);
      this.spanLimit = rl.limit;
      const proofAfter = rl.limit !== undefined ? this.windowProofAfter(rl.limit, this.spanPauseMs) : Infinity;
      this.windowProbeAt =
        rl.windowMs === undefined && this.quotaAnchor === undefined && !this.anchorEnded && this.quotaSpan(rl.limit) && proofAfter + this.spanRoundTrip < 1000
          ? this.spanFirstSent + proofAfter + 1
          : undefined;
    }
    // A policy's quota (draft 8's `q`) is what refills over its window, not what the bucket holds:
    // a bucket of one that refills 20 a second must not be mirrored as holding 20 (a stalled event
    // loop would then send a burst it cannot take). Its size is what it was ever seen to hold.
    this.capacity = (rl.windowMs !== undefined ? Math.max(remaining + 1, this.capacity ?? 0) : Math.max(rl.limit ?? 0, remaining, this.capacity ?? 0)) || null;
    // Answers overtake each other: an older request's count is stale once a newer one has spoken.
    if (o.sentAt < this.quotaSentAt) return pausedUntil;
    this.quotaSentAt = o.sentAt;
    this.credits = Math.max(0, remaining - o.inflightOthers);
    // A count that rose a second or more before the quota was due whole again: tokens come back
    // before the reset, as a bucket's do (a window's come back at it).
    if (this.lastRemaining !== undefined && remaining > this.lastRemaining && this.fullAt !== undefined && o.at < this.fullAt - 1000) this.refillSeen = true;
    this.lastRemaining = remaining;
    // Whatever the limiter's shape, its reset is when the quota is whole again.
    this.fullAt = rl.resetMs !== undefined && remaining < (this.capacity ?? Infinity) ? o.at + rl.resetMs : undefined;

    if (rl.windowMs !== undefined && rl.limit !== undefined && rl.windowMs > 0) {
      // A policy's quota per window is its refill — less what each 429 it did not prevent says it
      // overstates (a policy rounded up, a size published as its quota).
      this.refill = (rl.limit / rl.windowMs) * 1000 * this.policyShare;
    } else {
      this.measureRefill(o.at, o.sentAt, remaining, o.status !== 429 && o.status !== 0, rl);
      if (this.refillSeen) this.refill = Math.max(this.refill, this.refillFloor);
      // A bucket found full while requests waited for the mirror: it refills faster than we send,
      // and a full bucket hides by how much — probe the estimate up until the counts show it.
      // (Up to four times what was admitted over the last second: a bucket found full says its refill is
      // above our pace, not how far — a cap on requests in flight may be what holds the pace.)
      if (o.status !== 429 && this.capacity !== null && this.capacity >= 3 && remaining >= this.capacity - 1 && o.at - this.heldAt < tune.HELD_RECENT_MS && this.refill > 0) {
        this.refill = Math.max(this.refill, Math.min(this.refill * tune.FULL_PROBE, 4 * this.admittedRate(o.at), this.ceiling ?? Infinity));
      }
      // Spent, and whole again only in R seconds: it regains at most its quota over them (R − 1:
      // resets come rounded up to whole seconds). The estimate may still be the first pace, never
      // measured while the counts only fell: a bucket of 40 refilling 4 a second was credited 19 a
      // second at the end of its first pause, and one gate granting for three processes let 19 go
      // at once — 15–17 % of requests met a 429 (simulated).
      if (remaining === 0 && rl.limit !== undefined && rl.resetMs !== undefined && rl.resetMs >= 2000) {
        this.refill = Math.min(this.refill, rl.limit / (rl.resetMs / 1000 - 1));
      }
    }
    if (this.credits < 1 && this.refill <= 0 && rl.resetMs !== undefined) {
      // A fixed window with nothing left: nothing refills until it resets.
      return Math.max(pausedUntil, o.at + rl.resetMs);
    }
    return pausedUntil;
  }

  /**
   * Refill = tokens regained per second, summed over the intervals between answers in which the
   * bucket was not full (a full bucket hides what refilled). Regained between two answers is the
   * rise in `remaining` plus the requests answered in between. Old intervals fade over seconds.
   */
  private measureRefill(at: number, sentAt: number, remaining: number, admitted: boolean, rl: RateLimitInfo): void {
    const prev = this.lastSample;
    this.lastSample = { at, sentAt, remaining, answered: this.answered };
    const floor = this.boundRefill(prev, at, sentAt, remaining, admitted);
    const nearFull = (r: number) => this.capacity !== null && r >= this.capacity - 1;
    if (prev && !nearFull(remaining) && !nearFull(prev.remaining) && at >= prev.at) {
      const dt = at - prev.at;
      const fade = Math.exp(-dt / tune.REFILL_MEMORY_MS);
      this.regainedSum = this.regainedSum * fade + (remaining - prev.remaining + (this.answered - prev.answered));
      this.intervalSum = this.intervalSum * fade + dt;
      // `remaining` counts whole tokens: the rises summed here are right to within one token in
      // all (each interval's error is undone by the next one's), which is one token too many at
      // worst — at 2 a second, a count that rose by one over 0.5 s read 4 a second, the mirror
      // ran 5 % over the refill and met a 429 every 2 s (13 in a 73-request import).
      if (this.intervalSum >= tune.REFILL_MIN_SPAN_MS && this.regainedSum > 1) {
        this.refill = Math.max(((this.regainedSum - 1) / this.intervalSum) * 1000 * tune.REFILL_SAFETY, floor);
        return;
      }
    }
    if (this.refill <= 0 && rl.limit !== undefined && rl.resetMs !== undefined && rl.resetMs > 0) {
      // First guess until measured: the quota regained over the time the server says it takes.
      this.refill = Math.max(((rl.limit - remaining) / rl.resetMs) * 1000, rl.limit / (rl.resetMs / 1000 + 1)) * tune.REFILL_SAFETY;
    } else if (prev && at - prev.at >= tune.LOWER_BOUND_MIN_MS) {
      // Until measured, a looser reading of the same: between the two answers' arrivals, every
      // answer between them counted. (Not proven — an answer on its way may have been counted
      // before the earlier one, and the server's interval may be longer by a round trip — but
      // over a wire of 40 ms the proven bound alone, its interval a round trip longer, held a
      // bucket of 5 refilling 50 a second at 65 % where this reached 81 %. The measurement, once
      // there, takes over, with the proven bound under it.)
      const atLeast = ((remaining - prev.remaining - 1 + (this.answered - prev.answered)) / (at - prev.at)) * 1000 * tune.REFILL_SAFETY;
      if (atLeast > this.refill) this.refill = atLeast;
    }
    this.refill = Math.max(this.refill, floor);
  }

  /**
   * What two successive counts prove the refill is at least, whatever the bucket did between them:
   * it regained at least the rise in `remaining` plus the requests it counted in between, less one
   * (`remaining` counts whole tokens: the earlier count may have been a hair under the next one —
   * over 30 ms that one token alone read as 33 a second, and a 40/s bucket was mirrored at 65),
   * over at most the time from the earlier request's send to this answer — taken only when this
   * request left after the earlier answer came back (one sent before may have been counted
   * before it). The bucket may have overflowed meanwhile —
   * a bound all the same, where the measurement above, which a full bucket hides, reads low: a
   * bucket of 3 refilling 300 a second, whose count after each quick burst was 0 and after each
   * wait 2, was measured across a 429's pause at 3 a second and held there, with a 429 each time
   * the bound lifted it for one request (4 % of the limit). The highest bound of the last few
   * seconds is a floor under the estimate (a bucket now shared with another client refills us
   * less, so older ones lapse).
   */
  private boundRefill(prev: QuotaSample | undefined, at: number, sentAt: number, remaining: number, admitted: boolean): number {
    // Counted between the two, for sure: this request, if admitted. (Any other answered meanwhile
    // to a request sent after the earlier answer came back would itself be the earlier sample.)
    const counted = admitted ? 1 : 0;
    this.refillBounds = this.refillBounds.filter((b) => at - b.at < tune.REFILL_MEMORY_MS);
    if (prev !== undefined && sentAt >= prev.at && at - prev.at >= tune.LOWER_BOUND_MIN_MS) {
      const rate = ((remaining - prev.remaining - 1 + counted) / (at - prev.sentAt)) * 1000 * tune.REFILL_SAFETY;
      if (rate > 0) this.refillBounds.push({ at, rate });
    }
    return this.refillBounds.reduce((m, b) => Math.max(m, b.rate), 0);
  }

  private on429(o: Observation, pausedUntil: number): { waitMs: number; until: number } {
    // Answers to requests sent before the last pause ended are echoes of the same congestion.
    const echo = o.sentAt < pausedUntil;
    this.consecutive429 += 1;
    const wait = o.retryAfterMs ?? backoffMs(this.consecutive429, tune.PAUSE_BACKOFF_BASE_MS, tune.PAUSE_BACKOFF_CAP_MS, this.random);
    const rl = o.rateLimit;
    if (!echo && o.retryAfterMs !== undefined && rl?.resetMs !== undefined && rl.limit !== undefined && o.retryAfterMs < rl.resetMs / 2) {
      // Asked back well before the quota is whole again: a bucket, whose reset is when it is full,
      // refills at least what it lacks over that time (a window's quota comes back at its reset).
      // A refill measured below that — answers that overtook each other can make it nothing — had
      // a bucket of 40 refilling 2 a second waited out until full, 20 s (47 % of the limit).
      this.refillFloor = Math.max(this.refillFloor, ((rl.limit - (rl.remaining ?? 0)) / rl.resetMs) * 1000 * tune.REFILL_SAFETY);
    }
    if (!echo) {
      this.windowSpan(o.at + wait, wait, o.rateLimit, o.sentAt);
      this.credits = 0;
      // A guess (nothing measured yet) is no pace that was tried: a 429 then says the quota was
      // spent, not that the refill is lower.
      // A remembered refill not yet measured in this run is no pace tried either: it is dropped,
      // and the counts guess again.
      if (this.intervalSum >= tune.REFILL_MIN_SPAN_MS) this.refill *= tune.DECREASE;
      else if (this.seededRefill) this.refill = 0;
      if (rl?.windowMs !== undefined && this.quotaSentAt <= o.sentAt) this.policyShare *= tune.DECREASE;
      this.seededRefill = false;
      this.anchorArmed = true;
    }
    return { waitMs: wait, until: Math.max(pausedUntil, o.at + wait) };
  }

  /**
   * A span of the header regime ends in a 429. A window's quota comes whole after a pause and
   * nothing returns to it until the window ends: a span after a pause (one that began at a window's
   * start: not the first, which may begin anywhere in one) that admitted exactly the
   * published limit, each answer reporting a count no other did, is a window's. Two in a row (a span
   * that ran across a window's end between them counts for neither) are a
   * window of that quota, as long as the longest pause their 429s called for (or the policy's
   * window, if longer): the gate then keeps to it (blind-pace.ts, anchor, says why that is safe). A bucket
   * refills during a span — one count reported twice — or admits more than its size.
   */
  private windowSpan(resumeAt: number, waitMs: number, rl: RateLimitInfo | undefined, refusedSentAt: number): void {
    const limit = rl?.limit ?? this.spanLimit;
    // A policy's quota (draft 8) is a refill whatever the limiter's shape: a bucket's `q` per `w`
    // is its rate, and a log kept to it never holds a bucket under its rate. `RateLimit-Limit` and
    // `X-RateLimit-Limit` give a bucket's size, which its quick spans after pauses admit exactly,
    // each count once, as a window's do — a log kept to that would hold a bucket of 5 refilling
    // 40 a second to 5 a second, with no 429 ever to say so. So without a policy the span must
    // also prove that no bucket which a log of `limit` per pause would hold back fits it: a
    // bucket refilling r admits one more within 1/r of the span's first request, so a refusal
    // that reached the server D after it proves r < 1/D, and D ≥ pause / limit proves r below
    // the log's pace (docs/pacing.md, "With headers"). The round trip is taken off D: arrivals
    // stray from sends by that much at most. And D must be under a second: the window's length is
    // read from the Retry-After, which after a quota sent at a window's start is that length in
    // whole seconds only if the refusal came within the first second (a sliding window of 2 s,
    // refused 1.2 s into it, asked back in 1 s, and a log of 1 s met a 429 at once).
    const after = refusedSentAt - this.spanFirstSent;
    const provesWindow =
      rl?.windowMs !== undefined || (limit !== undefined && after >= this.windowProofAfter(limit, Math.max(waitMs, this.spanPauseMs)) && after + this.spanRoundTrip < 1000);
    const windowLike = provesWindow && this.quotaSpan(limit);
    // A span that ran across a window's end (its count came back whole after reaching 0, see
    // spanCrossed) neither proves a window nor refutes one: the evidence stands.
    if (windowLike) this.windowEvidence = [...this.windowEvidence, waitMs].slice(-2);
    else if (!this.spanCrossed) this.windowEvidence = [];
    if (this.windowEvidence.length >= 2 && this.quotaAnchor === undefined && limit !== undefined) {
      this.quotaAnchor = { quota: limit, windowMs: Math.max(...this.windowEvidence, rl?.windowMs ?? 0) };
    }
    this.spanFrom = resumeAt;
    this.spanPauseMs = waitMs;
    this.spanAdmitted = 0;
    this.spanFirstSent = Infinity;
    this.spanRoundTrip = 0;
    this.windowProbeAt = undefined;
    this.spanCounts.clear();
    this.spanRefilled = false;
    this.spanCrossed = false;
    this.spanZeroAt = undefined;
  }

  /**
   * The refusal that proves a window takes one request, and the rest wait for its answer — when a
   * round trip is under 5 % of the pause, so the wait costs little. (Four had gone at once on a
   * refill estimate the quota coming back at a reset had lifted, and three met a 429 that taught
   * nothing: a 1-s window of 10 with draft 6 met 9 429s in 300 requests, now 4. Over a wire of 40
   * ms each way, the wait cost a window of 20 a second 5 % of the limit, more than the 429s it
   * saved.)
   */
  private windowProbeOne(): boolean {
    return this.windowProbeAt !== undefined && this.spanRoundTrip * 20 < this.spanPauseMs;
  }

  /**
   * The span after a pause of a second or more admitted exactly `limit`, each count once: a
   * window's quota, or a quick span of a bucket that size (windowSpan tells them apart).
   */
  private quotaSpan(limit: number | undefined): boolean {
    return this.spanPauseMs >= 1000 && this.spanPauseMs !== Infinity && limit !== undefined && limit >= 2 && this.spanAdmitted === limit && !this.spanRefilled;
  }

  /**
   * How long after the span's first send a refusal proves no bucket that a log of `limit` per
   * `pauseMs` would hold back (see windowSpan): a quota's share of the pause, with 5 % to spare,
   * plus the round trip by which arrivals may stray from sends.
   */
  private windowProofAfter(limit: number, pauseMs: number): number {
    return (pauseMs / limit) * 1.05 + this.spanRoundTrip;
  }

  /** Answers admitted over the last second (header regime). */
  private admittedRate(now: number): number {
    while (this.admittedHead < this.admittedAt.length && now - (this.admittedAt[this.admittedHead] as number) > 1000) this.admittedHead += 1;
    if (this.admittedHead > 1024) {
      this.admittedAt = this.admittedAt.slice(this.admittedHead);
      this.admittedHead = 0;
    }
    return this.admittedAt.length - this.admittedHead;
  }


}
