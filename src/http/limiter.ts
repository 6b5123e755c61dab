/**
 * The one limiter every request of the process passes: bottleneck holds the concurrency and the
 * spacing (minTime); the Pacer decides the pace from the answers; a gate mirrors the server's
 * quota (credits regained at the measured refill) and holds everything during a 429 pause, letting
 * requests out again one pace-gap apart, so the end of a pause is not a stampede.
 *
 * The quota is not bottleneck's reservoir: in 2.19.5 any updateSettings() after the heartbeat
 * started clears it (`_startHeartbeat` takes its else branch), so a reservoir that is updated live
 * stops refilling for good — the limiter stalled on the first 429 in testing.
 */
import Bottleneck from 'bottleneck';
import type { Observation, PaceSettings } from './pacer.js';
import { Pacer } from './pacer.js';
import type { RateLimitInfo } from './ratelimit-headers.js';

/** What the limiter needs to know of an answer. */
export interface Answer {
  status: number;
  rateLimit?: RateLimitInfo | undefined;
  retryAfterMs?: number | undefined;
}

export interface LimiterOptions {
  concurrency: number;
  /** --rate ceiling in requests per second. */
  rate?: number | undefined;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Told of every pause (for --verbose and progress). */
  onPause?: (ms: number) => void;
  /** The limiter shared with other processes through Redis (shared-limiter.ts), if any. */
  cluster?: Bottleneck | undefined;
  /** Told once when the shared limiter fails and this process goes on alone. */
  onSharedLost?: (err: unknown) => void;
}

export interface LimiterStats {
  /** Requests sent (attempts, retries included). */
  requests: number;
  /** 429 answers received. */
  throttled: number;
  /** Current pace in requests per second (Infinity: unpaced). */
  pace: number;
}

/** Longest single wait for a credit: the refill estimate may change meanwhile. */
const CREDIT_WAIT_MAX_MS = 250;

export class RequestLimiter {
  private readonly bottleneck: Bottleneck;
  private readonly pacer: Pacer;
  private applied: PaceSettings | undefined;
  private inflight = 0;
  private nextRelease = 0;
  private requests = 0;
  private resumeTimer: NodeJS.Timeout | undefined;
  /** The server's quota as we mirror it (header regime): credits now, as of `creditsAt`. */
  private credits: number | null = null;
  private creditsAt = 0;
  private creditsSentAt = -Infinity;

  private cluster: Bottleneck | undefined;
  /** Jobs waiting for the shared limiter, each able to run here instead if Redis goes away. */
  private readonly waitingOnCluster = new Set<() => void>();

  constructor(private readonly opts: LimiterOptions) {
    this.cluster = opts.cluster;
    // A connection that drops may fail no call at all: the client's error is the signal.
    this.cluster?.on('error', (err: unknown) => this.loseCluster(err));
    this.pacer = new Pacer({ ceiling: opts.rate, shared: opts.cluster !== undefined });
    this.bottleneck = new Bottleneck({
      maxConcurrent: opts.concurrency,
      minTime: 0,
    });
    yieldWithoutTimers(this.bottleneck);
    this.apply();
  }

  /** Runs `send` when the pace allows and feeds its answer back into the pace. */
  async run<T extends Answer>(send: () => Promise<T>): Promise<T> {
    const queuedAt = this.opts.now();
    const job = async (): Promise<T> => {
      await this.gate(queuedAt);
      const sentAt = this.opts.now();
      this.inflight += 1;
      this.requests += 1;
      try {
        const answer = await send();
        this.observe(answer, sentAt);
        return answer;
      } catch (err) {
        this.observe({ status: 0 }, sentAt);
        throw err;
      } finally {
        this.inflight -= 1;
      }
    };
    return this.bottleneck.schedule(() => (this.cluster ? this.throughCluster(this.cluster, job) : job()));
  }

  /**
   * Runs a job when the shared limiter lets it. If Redis fails, every job still runs exactly once:
   * jobs still waiting for the cluster run here instead (the cluster may never answer them once
   * its connection is gone), and a job that had started keeps its own outcome.
   */
  private throughCluster<T>(cluster: Bottleneck, job: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let state: 'waiting' | 'started' | 'local' = 'waiting';
      const runHere = () => {
        if (state !== 'waiting') return;
        state = 'local';
        this.waitingOnCluster.delete(runHere);
        job().then(resolve, reject);
      };
      this.waitingOnCluster.add(runHere);
      cluster
        .schedule(async () => {
          if (state !== 'waiting') return;
          state = 'started';
          this.waitingOnCluster.delete(runHere);
          try {
            resolve(await job());
          } catch (err) {
            reject(err);
          }
        })
        .catch((err: unknown) => {
          this.loseCluster(err);
          runHere();
        });
    });
  }

  private loseCluster(err: unknown): void {
    if (!this.cluster) return;
    const lost = this.cluster;
    this.cluster = undefined;
    this.opts.onSharedLost?.(err);
    void lost.disconnect(false).catch(() => undefined);
    this.applied = undefined;
    this.apply(true);
    for (const runHere of [...this.waitingOnCluster]) runHere();
  }

  /** bottleneck's typings say updateSettings returns the limiter; it returns a promise of it. */
  private onCluster(pending: unknown): void {
    void Promise.resolve(pending).catch((err: unknown) => this.loseCluster(err));
  }


  stats(): LimiterStats {
    const s = this.pacer.settings();
    const pace = s.credits !== null ? s.refillPerSec : s.minTimeMs > 0 ? 1000 / s.minTimeMs : Infinity;
    return { requests: this.requests, throttled: this.pacer.throttled, pace };
  }

  /** Stops timers; pending jobs are dropped. */
  async close(): Promise<void> {
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    if (this.cluster) await this.cluster.disconnect(true).catch(() => undefined);
    await this.bottleneck.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }

  /** Holds a request while the limiter is paused, then releases waiting requests a gap apart. */
  private async gate(queuedAt: number): Promise<void> {
    // The pace is the bottleneck when requests wait for it: others queued, or this one held back
    // by the spacing (one request at a time, like paging, waits too).
    const now0 = this.opts.now();
    const counts = this.bottleneck.counts();
    if ((counts.QUEUED ?? 0) > 0 || now0 - queuedAt > 1) this.pacer.onBusy(now0);
    else this.pacer.onIdle();
    this.apply();

    // Bounded: each round waits for a pause that began while this request was waiting.
    for (let round = 0; round < 1_000; round++) {
      const now = this.opts.now();
      const resumeAt = this.pacer.resumeAt;
      if (resumeAt <= now && this.nextRelease <= now) break;
      const s = this.pacer.settings();
      // Following the server's quota, credits space the requests; otherwise the pace does.
      const gap = s.credits === null ? s.minTimeMs : 0;
      const releaseAt = Math.max(resumeAt, this.nextRelease, now);
      this.nextRelease = releaseAt + gap;
      if (releaseAt > now) await this.opts.sleep(releaseAt - now);
      // A 429 that arrived while we slept starts a new pause: this slot is void, wait again.
      if (this.pacer.resumeAt <= releaseAt) break;
    }
    await this.takeCredit();
  }

  /** Header regime: waits until the mirrored quota holds a credit, and spends it. */
  private async takeCredit(): Promise<void> {
    for (let round = 0; round < 10_000; round++) {
      if (this.credits === null) return;
      const now = this.opts.now();
      const s = this.pacer.settings();
      const capacity = s.capacity ?? Infinity;
      this.credits = Math.min(capacity, this.credits + (Math.max(0, now - this.creditsAt) / 1000) * s.refillPerSec);
      this.creditsAt = now;
      if (this.credits >= 1 && this.pacer.resumeAt <= now) {
        this.credits -= 1;
        return;
      }
      const untilCredit = s.refillPerSec > 0 ? ((1 - this.credits) / s.refillPerSec) * 1000 : CREDIT_WAIT_MAX_MS;
      const untilResume = this.pacer.resumeAt - now;
      await this.opts.sleep(Math.max(5, Math.min(CREDIT_WAIT_MAX_MS, Math.max(untilCredit, untilResume))));
    }
  }

  private observe(answer: Answer, sentAt: number): void {
    const obs: Observation = {
      at: this.opts.now(),
      sentAt,
      status: answer.status,
      rateLimit: answer.rateLimit,
      retryAfterMs: answer.retryAfterMs,
      inflightOthers: this.inflight - 1,
    };
    const pauseMs = this.pacer.observe(obs);
    if (pauseMs > 0) this.pause(pauseMs);
    // The server's count of what remains always replaces our mirror.
    const credits = this.pacer.settings().credits;
    if (credits !== null && sentAt >= this.creditsSentAt && (answer.rateLimit?.remaining !== undefined || answer.status === 429)) {
      this.creditsSentAt = sentAt;
      this.credits = credits;
      this.creditsAt = this.opts.now();
    }
    this.apply();
  }

  /** No new request starts until the pause is over — bottleneck's reservoir is shut meanwhile. */
  private pause(ms: number): void {
    this.opts.onPause?.(ms);
    void this.bottleneck.updateSettings({ reservoir: 0 });
    // Shared budget: every process stops, not only this one.
    if (this.cluster) this.onCluster(this.cluster.updateSettings({ reservoir: 0 }));
    this.applied = undefined;
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    const wait = Math.max(0, this.pacer.resumeAt - this.opts.now());
    this.resumeTimer = setTimeout(() => {
      this.resumeTimer = undefined;
      this.apply(true);
    }, wait);
  }

  /** Pushes the pacer's spacing into bottleneck when it changed enough to matter. */
  private apply(force = false): void {
    if (this.resumeTimer) return; // paused: the reservoir stays shut until the timer fires
    const next = this.pacer.settings();
    const prev = this.applied;
    if (!force && prev && similar(prev, next)) return;
    this.applied = next;
    if (this.cluster) {
      // The spacing lives in Redis: all processes together keep to it. Locally only concurrency.
      this.onCluster(this.cluster.updateSettings({ minTime: Math.round(next.minTimeMs), reservoir: null }));
      void this.bottleneck.updateSettings({ minTime: 0, reservoir: null });
      return;
    }
    void this.bottleneck.updateSettings({ minTime: Math.round(next.minTimeMs), reservoir: null });
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

function close(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 0.02 * Math.max(Math.abs(a), Math.abs(b));
}

function similar(a: PaceSettings, b: PaceSettings): boolean {
  return close(a.minTimeMs, b.minTimeMs);
}
