/**
 * The learner with headers: the server reports its quota (RateLimit-* in any form, headers.ts), and
 * the gate mirrors it (mirror.ts): what it says remains, less what is in flight, regained at the
 * refill measured here from successive counts (docs/pacing.md, "With headers", rules H1–H6).
 * Under-estimating the refill costs little — unused tokens pile up on the server and the next
 * answer reports them — so the estimate is kept on the low side. Engaged by the first answer that
 * carries a count worth reading; until then, and for a quota of one or two, which says nothing of
 * its refill, the learner without headers paces.
 */
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
  /** Engaged: an answer carried a count (read). */
  engaged = false;
  /** What the server said remains, less what was in flight (the mirror's first reading). */
  private credits: number | null = null;
  /** The most the quota was ever seen to hold. */
  private capacity: number | null = null;
  /** Tokens regained per second, as measured. */
  private refill = 0;
  private answered = 0;
  private lastSample: QuotaSample | undefined;
  /** Proven lower bounds of the refill (boundRefill), each with when it was found. */
  private refillBounds: Array<{ at: number; rate: number }> = [];
  private regainedSum = 0;
  private intervalSum = 0;
  /** When the request whose answer last set the credits was sent. */
  private quotaSentAt = -Infinity;
  /** When the server said its quota is whole again. */
  private fullAt: number | undefined;
  /** When a request last waited for the mirror's credits, and the answers admitted over the last second. */
  private heldAt = -Infinity;
  private admittedAt: number[] = [];
  private admittedHead = 0;

  // H5. A window told from a bucket by its spans: the span now open, and the published limit last read.
  private span = openSpan(-Infinity, Infinity);
  private spanLimit: number | undefined;
  private windowEvidence: number[] = [];
  /** H6. No request starts before this: the next one's refusal, if it comes, would prove a window. */
  private windowProbeAt: number | undefined;
  private quotaAnchor: Anchor | undefined;
  private anchorEnded = false;
  private anchorArmed = true;

  /** The header form last read, and whether a count was read in this run. */
  private form: HeaderForm | undefined;
  private readCount = false;
  /** The refill is still the remembered one, not measured in this run: a 429 drops it. */
  private seededRefill = false;
  /** H2. The share of a policy's quota per window taken as the refill: each 429 that came all the same lowers it. */
  private policyShare = 1;
  /** The refill rests on no measurement: a first guess from a count and its reset, or a remembered guess. */
  private guessed = true;

  constructor(private readonly ceiling: number | undefined) {}

  get pace(): number {
    return Math.min(this.refill, this.ceiling ?? Infinity);
  }

  settings(): PaceSettings {
    // (The credits pace; the gate keeps to --rate.)
    return { minTimeMs: 0, credits: this.credits, refillPerSec: this.refill, capacity: this.capacity, fullAt: this.fullAt, holdUntil: this.windowProbeAt, holdOne: this.windowProbeOne() };
  }

  /** Starts from a pace found elsewhere (a shared budget's): the refill until one is measured. */
  seedPace(rate: number): void {
    this.refill = Math.min(rate, this.ceiling ?? Infinity);
  }

  /**
   * Starts from a limit remembered from an earlier run with headers: its refill until one is
   * measured (a 429 drops it), and a window's quota per length as a log once a pause has said
   * where the window ends — unless the quota published now differs.
   */
  seed(l: Limit): void {
    if (l.headers === null) return;
    this.refill = Math.min(l.rate, this.ceiling ?? Infinity);
    this.seededRefill = true;
    this.guessed = l.guess === true;
    if (l.shape === 'window' && l.quota !== undefined && l.windowMs !== undefined) {
      this.quotaAnchor = { quota: l.quota, windowMs: l.windowMs };
      this.anchorArmed = false;
    }
  }

  snapshot(): Learnt | undefined {
    const headers = this.form ?? null;
    const anchor = this.anchor();
    if (anchor !== undefined) return { limit: { shape: 'window', quota: anchor.quota, windowMs: anchor.windowMs, rate: (anchor.quota * 1000) / anchor.windowMs, headers }, learnt: this.readCount };
    if (!(this.refill > 0)) return undefined;
    return { limit: { shape: 'bucket', rate: this.refill, ...(this.capacity !== null ? { burst: this.capacity } : {}), ...(this.guessed ? { guess: true } : {}), headers }, learnt: this.readCount };
  }

  anchor(): Anchor | undefined {
    return this.anchorEnded || !this.anchorArmed ? undefined : this.quotaAnchor;
  }

  /** H5. A request the log let go met a 429: the log ends for good. */
  anchorMissed(): void {
    this.anchorEnded = true;
  }

  /** A request waits for the mirror's credits (not a pause, not --rate). */
  mirrorHeld(now: number): void {
    this.heldAt = now;
  }

  /**
   * H1. Every answer's count, read before either learner observes it (the first engages this one).
   * A quota of one or two without a policy says nothing of its refill but our own pace: such a
   * server is paced as one that says nothing.
   */
  read(o: Observation): void {
    const rl = o.rateLimit;
    // Any answer to a request sent once the wait for a window's proof was over ends that wait.
    if (this.windowProbeAt !== undefined && o.sentAt >= this.windowProbeAt) this.windowProbeAt = undefined;
    if (rl?.remaining !== undefined && (rl.windowMs !== undefined || (rl.limit ?? 0) > 2)) this.readQuota(o, rl);
  }

  observe(o: Observation, wait: number, pausedUntil: number): void {
    if (o.status === 429) this.on429(o, wait, pausedUntil);
  }

  private readQuota(o: Observation, rl: RateLimitInfo): void {
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
    if (o.status !== 429 && o.sentAt >= this.span.from) this.spanAnswer(o, rl, remaining);
    // A policy's quota (draft 8's `q`) is what refills over its window, not what the bucket holds:
    // its size is what it was ever seen to hold.
    this.capacity = (rl.windowMs !== undefined ? Math.max(remaining + 1, this.capacity ?? 0) : Math.max(rl.limit ?? 0, remaining, this.capacity ?? 0)) || null;
    // Answers overtake each other: an older request's count is stale once a newer one has spoken.
    if (o.sentAt < this.quotaSentAt) return;
    this.quotaSentAt = o.sentAt;
    this.credits = Math.max(0, remaining - o.inflightOthers);
    // Whatever the limiter's shape, its reset is when the quota is whole again.
    this.fullAt = rl.resetMs !== undefined && remaining < (this.capacity ?? Infinity) ? o.at + rl.resetMs : undefined;
    if (rl.windowMs !== undefined && rl.limit !== undefined && rl.windowMs > 0) {
      // H2. A policy's quota per window is its refill — less what each 429 it did not prevent says
      // it overstates (a policy rounded up, a size published as its quota).
      this.refill = (rl.limit / rl.windowMs) * 1000 * this.policyShare;
      this.guessed = false;
      return;
    }
    this.measureRefill(o.at, o.sentAt, remaining, o.status !== 429 && o.status !== 0, rl);
    // H4. A bucket found full while requests waited for the mirror refills faster than we send, and
    // a full bucket hides by how much: the estimate is probed up (to at most four times what was
    // admitted over the last second: a cap on requests in flight may be what holds the pace).
    if (o.status !== 429 && this.capacity !== null && this.capacity >= 3 && remaining >= this.capacity - 1 && o.at - this.heldAt < tune.HELD_RECENT_MS && this.refill > 0) {
      this.refill = Math.max(this.refill, Math.min(this.refill * tune.FULL_PROBE, 4 * this.admittedRate(o.at), this.ceiling ?? Infinity));
    }
    // H3. Spent, and whole again only in R seconds: it regains at most its quota over them (R − 1:
    // resets come rounded up to whole seconds) — an estimate still at a first guess may be far over.
    if (remaining === 0 && rl.limit !== undefined && rl.resetMs !== undefined && rl.resetMs >= 2000) {
      this.refill = Math.min(this.refill, rl.limit / (rl.resetMs / 1000 - 1));
    }
  }

  /** H5, H6. An admitted answer of the span now open: its count, and when a refusal would prove a window. */
  private spanAnswer(o: Observation, rl: RateLimitInfo, remaining: number): void {
    this.span.admitted += 1;
    this.span.firstSent = Math.min(this.span.firstSent, o.sentAt);
    this.span.roundTrip = Math.max(this.span.roundTrip, o.at - o.sentAt);
    if (this.span.counts.has(remaining)) this.span.refilled = true;
    if (this.span.zeroAt !== undefined && o.sentAt >= this.span.zeroAt && rl.limit !== undefined && remaining > 0 && remaining >= rl.limit - 1 - o.inflightAtSend) this.span.crossed = true;
    if (remaining === 0) this.span.zeroAt ??= o.at;
    this.span.counts.add(remaining);
    this.spanLimit = rl.limit;
    // H6. A span that admitted exactly the published limit, each count once, may be a window's
    // quota: the next request waits until its refusal, if it comes, would prove a window. Sent
    // sooner, its refusal proves nothing.
    const proofAfter = rl.limit !== undefined ? this.windowProofAfter(rl.limit, this.span.pauseMs) : Infinity;
    this.windowProbeAt = rl.windowMs === undefined && this.quotaAnchor === undefined && !this.anchorEnded && this.quotaSpan(rl.limit) && proofAfter + this.span.roundTrip < 1000 ? this.span.firstSent + proofAfter + 1 : undefined;
  }

  /**
   * H3. The refill is the tokens regained per second, summed over the intervals between answers in
   * which the bucket was not full (a full bucket hides what refilled): the rise in `remaining` plus
   * the requests answered in between, fading over REFILL_MEMORY_MS. `remaining` counts whole
   * tokens, so the sum is one token too many at worst: one is taken off. Until it is measured, a
   * first guess from the quota and its reset, and a looser reading between two answers' arrivals;
   * under both, what two counts prove (boundRefill).
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
      if (this.intervalSum >= tune.REFILL_MIN_SPAN_MS && this.regainedSum > 1) {
        this.refill = Math.max(((this.regainedSum - 1) / this.intervalSum) * 1000 * tune.REFILL_SAFETY, floor);
        this.guessed = false;
        return;
      }
    }
    if (this.refill <= 0 && rl.limit !== undefined && rl.resetMs !== undefined && rl.resetMs > 0) {
      this.refill = Math.max(((rl.limit - remaining) / rl.resetMs) * 1000, rl.limit / (rl.resetMs / 1000 + 1)) * tune.REFILL_SAFETY;
    } else if (prev && at - prev.at >= tune.LOWER_BOUND_MIN_MS) {
      const atLeast = ((remaining - prev.remaining - 1 + (this.answered - prev.answered)) / (at - prev.at)) * 1000 * tune.REFILL_SAFETY;
      if (atLeast > this.refill) this.refill = atLeast;
    }
    this.refill = Math.max(this.refill, floor);
  }

  /**
   * H3. What two successive counts prove the refill is at least, whatever the bucket did between
   * them: the rise in `remaining` plus this request if counted, less one (whole tokens), over at
   * most the time from the earlier request's send to this answer — only when this request left
   * after the earlier answer came back (one sent before may have been counted before it). The
   * highest bound of the last REFILL_MEMORY_MS floors the estimate: a full bucket hides its refill
   * from the measurement, not from this.
   */
  private boundRefill(prev: QuotaSample | undefined, at: number, sentAt: number, remaining: number, admitted: boolean): number {
    const counted = admitted ? 1 : 0;
    this.refillBounds = this.refillBounds.filter((b) => at - b.at < tune.REFILL_MEMORY_MS);
    if (prev !== undefined && sentAt >= prev.at && at - prev.at >= tune.LOWER_BOUND_MIN_MS) {
      const rate = ((remaining - prev.remaining - 1 + counted) / (at - prev.sentAt)) * 1000 * tune.REFILL_SAFETY;
      if (rate > 0) this.refillBounds.push({ at, rate });
    }
    return this.refillBounds.reduce((m, b) => Math.max(m, b.rate), 0);
  }

  /**
   * A 429 (an echo, sent before the last pause ended, teaches nothing new): the credits are spent,
   * a span ends (H5), the refill is lowered (H3), and a policy is trusted a little less (H2).
   */
  private on429(o: Observation, wait: number, pausedUntil: number): void {
    if (o.sentAt >= pausedUntil) {
      this.windowSpan(o.at + wait, wait, o.rateLimit, o.sentAt);
      this.credits = 0;
      // A measured refill the 429 shows too high is lowered; a guess (nothing measured yet) is no
      // pace that was tried, and a remembered one not yet measured is dropped (the counts guess again).
      if (this.intervalSum >= tune.REFILL_MIN_SPAN_MS) this.refill *= tune.DECREASE;
      else if (this.seededRefill) (this.refill = 0), (this.guessed = true);
      if (o.rateLimit?.windowMs !== undefined && this.quotaSentAt <= o.sentAt) this.policyShare *= tune.POLICY_DOUBT;
      this.seededRefill = false;
      this.anchorArmed = true;
    }
  }

  /**
   * H5. A span ends in a 429. A window's quota comes whole after a pause and nothing returns to it
   * until the window ends: a span after a pause that admitted exactly the published limit, each
   * count once, and was refused late enough to prove that no bucket a log of that limit per pause
   * would hold back fits it (windowProofAfter; a policy's window needs no proof), is a window's. Two
   * such spans (one that ran across a window's end between them counts for neither) are a window of
   * that quota, as long as the longest pause their 429s called for: the gate then keeps to it.
   */
  private windowSpan(resumeAt: number, waitMs: number, rl: RateLimitInfo | undefined, refusedSentAt: number): void {
    const limit = rl?.limit ?? this.spanLimit;
    // The window's length is read from the Retry-After, in whole seconds only if the refusal came
    // within the window's first second.
    const after = refusedSentAt - this.span.firstSent;
    const provesWindow = rl?.windowMs !== undefined || (limit !== undefined && after >= this.windowProofAfter(limit, Math.max(waitMs, this.span.pauseMs)) && after + this.span.roundTrip < 1000);
    // (A fractional Retry-After — rate-limiter-flexible's — says to the millisecond when a window
    // counted from its first request ends: the window is the span's time before it, and the pause.)
    const length = waitMs % 1000 !== 0 ? waitMs + Math.max(0, after) : waitMs;
    if (provesWindow && this.quotaSpan(limit)) this.windowEvidence = [...this.windowEvidence, length].slice(-2);
    else if (!this.span.crossed) this.windowEvidence = [];
    if (this.windowEvidence.length >= 2 && this.quotaAnchor === undefined && limit !== undefined) {
      this.quotaAnchor = { quota: limit, windowMs: Math.max(...this.windowEvidence, rl?.windowMs ?? 0) };
    }
    this.span = openSpan(resumeAt, waitMs);
    this.windowProbeAt = undefined;
  }

  /** H6. The refusal that would prove a window goes alone, and the rest wait for its answer, when a round trip is under 5 % of the pause. */
  private windowProbeOne(): boolean {
    return this.windowProbeAt !== undefined && this.span.roundTrip < tune.PROOF_ALONE * this.span.pauseMs;
  }

  /** H5. The span after a pause of a second or more admitted exactly `limit`, each count once: a window's quota, or a bucket's that size. */
  private quotaSpan(limit: number | undefined): boolean {
    // (A pause of whole seconds, a second or more; one a fractional Retry-After gave, half a second or more.)
    const least = this.span.pauseMs % 1000 !== 0 ? tune.FRACTIONAL_PAUSE_MIN_MS : 1000;
    return this.span.pauseMs >= least && this.span.pauseMs !== Infinity && limit !== undefined && limit >= 2 && this.span.admitted === limit && !this.span.refilled;
  }

  /**
   * H5. How long after the span's first send a refusal proves no bucket that a log of `limit` per
   * `pauseMs` would hold back: a bucket refilling r admits one more within 1/r of the first request,
   * so a refusal that late proves r under the log's pace (5 % to spare, plus the round trip).
   */
  private windowProofAfter(limit: number, pauseMs: number): number {
    return (pauseMs / limit) * tune.PROOF_SPARE + this.span.roundTrip;
  }

  /** Answers admitted over the last second. */
  private admittedRate(now: number): number {
    while (this.admittedHead < this.admittedAt.length && now - (this.admittedAt[this.admittedHead] as number) > 1000) this.admittedHead += 1;
    if (this.admittedHead > 1024) {
      this.admittedAt = this.admittedAt.slice(this.admittedHead);
      this.admittedHead = 0;
    }
    return this.admittedAt.length - this.admittedHead;
  }
}

/**
 * H5. A span that began at `from` (a pause's end) after a pause of `pauseMs`: its admitted answers,
 * the first one's send, the longest round trip, the counts reported (one reported twice: the bucket
 * refilled), when a 0 first came back, and whether a count came back near whole on a request sent
 * after that (it ran across a window's end).
 */
function openSpan(from: number, pauseMs: number) {
  return { from, pauseMs, admitted: 0, firstSent: Infinity, roundTrip: 0, counts: new Set<number>(), refilled: false, zeroAt: undefined as number | undefined, crossed: false };
}
