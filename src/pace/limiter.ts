/**
 * The one limiter every request of the process passes: bottleneck holds the requests in flight
 * (--concurrency, narrowed to a cap once found); the gate (gate.ts) decides when each may start.
 * With a budget shared through Redis (shared-budget.ts), the leader's one gate grants each start
 * instead; this process keeps only its own --rate, and its gate, seeded with the shared pace,
 * takes over if Redis fails.
 */
import Bottleneck from 'bottleneck';
import { PaceGate, type Ticket } from './gate.js';
import type { Memory } from './memory.js';
import type { SharedBudget } from './shared-budget.js';
import type { Answer, Limit, PaceStats } from './types.js';

export interface LimiterOptions {
  concurrency: number;
  /** --rate ceiling in requests per second. */
  rate?: number | undefined;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told of every pause (for --verbose and progress), with the answer that called for it. */
  onPause?: (ms: number, answer: Answer) => void;
  /** The budget shared with other processes through Redis (shared-budget.ts), if any. */
  shared?: SharedBudget | undefined;
  /** Told once when the shared budget fails and this process goes on alone. */
  onSharedLost?: (err: unknown) => void;
  /** Told when this process takes the lead of the shared budget. */
  onSharedLead?: () => void;
  /** The limit remembered between runs: started from, and saved at close when this run learnt it. */
  memory?: Memory | undefined;
}

/** The one limiter of a process (see createPace). */
export interface Pace {
  /**
   * Runs `send` when the pace allows and feeds its answer back into the pace. A wait here (a
   * pause, the pace) ends when `signal` aborts, and the request is then not sent (Ctrl-C).
   */
  run<T extends Answer>(send: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  stats(): PaceStats;
  /** Stops timers, drops pending requests, and keeps what this run learnt of the limit. */
  close(): Promise<void>;
}

export function createPace(opts: LimiterOptions): Pace {
  return new RequestLimiter(opts);
}

class RequestLimiter implements Pace {
  private readonly bottleneck: Bottleneck;
  private readonly gate: PaceGate;
  private requests = 0;
  /** Requests waiting in the gate (for a slot, a credit or the end of a pause). */
  private waiting = 0;
  private windowApplied = Infinity;
  /** Requests held by a full window of requests in flight, woken by the next answer. */
  private readonly answerWaiters: Array<() => void> = [];

  private shared: SharedBudget | undefined;
  /** Sharing a budget: 429s met by this process, and when --rate lets its next request start. */
  private sharedThrottled = 0;
  private ceilingNext = -Infinity;
  /** The shared pace as last read (ms between starts): where this process goes on alone from. */
  private sharedGap: number | undefined;
  private readonly remembered: Limit | undefined;

  constructor(private readonly opts: LimiterOptions) {
    this.shared = opts.shared;
    this.gate = new PaceGate({ ceiling: opts.rate });
    this.remembered = opts.memory?.load();
    if (this.remembered !== undefined) this.gate.seed(this.remembered, opts.now());
    this.bottleneck = new Bottleneck({ maxConcurrent: opts.concurrency, minTime: 0 });
    yieldWithoutTimers(this.bottleneck);
    this.shared?.start({
      now: opts.now,
      follow: (gapMs) => (this.sharedGap = gapMs),
      lost: (err) => this.loseShared(err),
      ceiling: opts.rate,
      remembered: this.remembered,
      leading: opts.onSharedLead,
    });
  }

  async run<T extends Answer>(send: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.bottleneck.schedule(async () => {
      signal?.throwIfAborted();
      const grant = this.shared ? await this.sharedGrant() : undefined;
      if (grant !== undefined) return this.runGranted(grant, send, signal);
      const ticket = await this.admit(signal);
      this.requests += 1;
      try {
        const answer = await send();
        this.finish(ticket, answer);
        return answer;
      } catch (err) {
        this.finish(ticket, { status: 0 });
        throw err;
      }
    });
  }

  /** Waits until the gate (and a shared budget, if any) lets this request start. */
  private async admit(signal?: AbortSignal): Promise<Ticket> {
    // Bounded: every round either starts the request or sleeps until the gate's next moment.
    for (let round = 0; round < 1_000_000; round++) {
      signal?.throwIfAborted();
      const now = this.opts.now();
      // The pace is the bottleneck when requests wait for it: others held in the gate, or this one
      // held back already (one request at a time, like paging, waits too). Not requests queued for
      // a place in flight: when --concurrency holds the sending back (a long round trip), a pace
      // that kept doubling said nothing, and took a dozen 429s to come down once the server
      // refused (a 40-ms wire, simulated).
      const busy = round > 0 || this.waiting > 0;
      const verdict = this.gate.start(now, busy);
      if ('ticket' in verdict) return verdict.ticket;
      await this.wait(verdict.retryAt - now, verdict.onFinish === true, signal);
    }
    throw new Error('the rate limiter never let the request start');
  }

  /** A start granted by the shared budget's gate; undefined once Redis failed (this process goes on alone). */
  private async sharedGrant(): Promise<string | undefined> {
    const shared = this.shared;
    if (!shared) return undefined;
    try {
      return await shared.acquire();
    } catch (err) {
      // Closing (the job is over) ends the sharing without a warning; a failing Redis does not.
      if (shared.isClosed) this.shared = undefined;
      else this.loseShared(err);
      return undefined;
    }
  }

  /** Sends a request the shared budget granted: only this process's --rate holds it further. */
  private async runGranted<T extends Answer>(grant: string, send: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.opts.rate !== undefined && this.opts.rate > 0) {
      const now = this.opts.now();
      const at = Math.max(this.ceilingNext, now);
      this.ceilingNext = at + 1000 / this.opts.rate;
      await this.wait(at - now, false, signal);
    }
    let answer: Answer = { status: 0 };
    const sentAt = this.opts.now();
    try {
      signal?.throwIfAborted();
      this.requests += 1;
      const got = await send();
      answer = got;
      return got;
    } finally {
      this.shared?.record(grant, { at: this.opts.now(), sentAt, status: answer.status, retryAfterMs: answer.retryAfterMs, rateLimit: answer.rateLimit });
      if (answer.status === 429) {
        this.sharedThrottled += 1;
        // The leader's gate pauses every process; here it is only told, for --verbose.
        if (answer.retryAfterMs !== undefined) this.opts.onPause?.(answer.retryAfterMs, answer);
      }
      for (const wake of this.answerWaiters.splice(0)) wake();
    }
  }

  /** Sleeps `ms`, or — `orAnswer` — until the next answer if that comes first, or until `signal` aborts. */
  private async wait(ms: number, orAnswer = false, signal?: AbortSignal): Promise<void> {
    if (ms <= 0) return;
    this.waiting += 1;
    const stop = new AbortController();
    try {
      const slept = this.opts.sleep(ms, signal ? AbortSignal.any([stop.signal, signal]) : stop.signal).catch(() => undefined);
      await (orAnswer ? Promise.race([slept, new Promise<void>((r) => this.answerWaiters.push(r))]) : slept);
    } finally {
      stop.abort();
      this.waiting -= 1;
    }
  }

  private finish(ticket: Ticket, answer: Answer): void {
    const now = this.opts.now();
    const pauseMs = this.gate.finish(ticket, answer, now);
    for (const wake of this.answerWaiters.splice(0)) wake();
    if (pauseMs > 0) this.opts.onPause?.(pauseMs, answer);
    const window = Math.max(1, Math.min(this.opts.concurrency, this.gate.window));
    if (window !== this.windowApplied && !(window === this.opts.concurrency && this.windowApplied === Infinity)) {
      this.windowApplied = window;
      void this.bottleneck.updateSettings({ maxConcurrent: window });
    }
  }

  /** Redis failed: this process goes on alone, from the shared pace, and no request is lost. */
  private loseShared(err: unknown): void {
    if (!this.shared) return;
    const lost = this.shared;
    this.shared = undefined;
    this.opts.onSharedLost?.(err);
    void lost.close();
    if (this.sharedGap !== undefined) this.gate.seedPace(1000 / this.sharedGap);
  }

  stats(): PaceStats {
    // Sharing a budget, this process's share of the one pace is not known: the progress line's ETA
    // then follows this run's own rate.
    const pace = this.shared ? Infinity : this.gate.spacing;
    return { requests: this.requests, throttled: this.gate.throttled + this.sharedThrottled, pace, limit: this.gate.snapshot(this.opts.now()) };
  }

  async close(): Promise<void> {
    // Sharing a budget, the leader's one gate learnt it; another process leaves the memory as it was.
    const learnt = this.shared ? this.shared.snapshot(this.opts.now()) : this.gate.snapshot(this.opts.now());
    if (learnt !== undefined && learnt !== this.remembered && this.requests > 0) this.opts.memory?.save(learnt);
    await this.shared?.close();
    await this.bottleneck.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }
}
/**
 * bottleneck's local store yields to the event loop with `setTimeout(0)` before every one of its
 * operations — at least a millisecond each in Node, several per job, one job at a time: it capped
 * the whole limiter near 400 requests/s whatever the server could take. A resolved promise yields
 * as well for its purpose (letting other jobs' callbacks run) without the timer's floor. bottleneck
 * is pinned at 2.19.5 and unmaintained, so this private hook will not move.
 */
function yieldWithoutTimers(limiter: Bottleneck): void {
  const store = (limiter as unknown as { _store?: { yieldLoop?: (t?: number) => Promise<void> } })._store;
  if (store && typeof store.yieldLoop === 'function') {
    store.yieldLoop = (t = 0) => (t > 0 ? new Promise((r) => setTimeout(r, t)) : Promise.resolve());
  }
}
