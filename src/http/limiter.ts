/**
 * The one limiter every request of the process passes: bottleneck holds the requests in flight
 * (--concurrency, narrowed when the pacer finds a concurrency cap); the gate (gate.ts, pure)
 * decides when each may start — the pace, the server's quota, a 429 pause. With a budget shared
 * through Redis, bottleneck's cluster holds the spacing and the pause for every process.
 */
import Bottleneck from 'bottleneck';
import { PaceGate, type Answer, type Ticket } from './gate.js';

export type { Answer } from './gate.js';

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

export class RequestLimiter {
  private readonly bottleneck: Bottleneck;
  private readonly gate: PaceGate;
  private requests = 0;
  /** Requests waiting in the gate (for a slot, a credit or the end of a pause). */
  private waiting = 0;
  private windowApplied = Infinity;
  private minTimeApplied: number | undefined;
  private resumeTimer: NodeJS.Timeout | undefined;

  private cluster: Bottleneck | undefined;
  /** Jobs waiting for the shared limiter, each able to run here instead if Redis goes away. */
  private readonly waitingOnCluster = new Set<() => void>();

  constructor(private readonly opts: LimiterOptions) {
    this.cluster = opts.cluster;
    // A connection that drops may fail no call at all: the client's error is the signal.
    this.cluster?.on('error', (err: unknown) => this.loseCluster(err));
    this.gate = new PaceGate({ ceiling: opts.rate, shared: opts.cluster !== undefined });
    this.bottleneck = new Bottleneck({ maxConcurrent: opts.concurrency, minTime: 0 });
    yieldWithoutTimers(this.bottleneck);
    this.applyShared();
  }

  /** Runs `send` when the pace allows and feeds its answer back into the pace. */
  async run<T extends Answer>(send: () => Promise<T>): Promise<T> {
    const job = async (): Promise<T> => {
      const ticket = await this.admit();
      this.requests += 1;
      try {
        const answer = await send();
        this.finish(ticket, answer);
        return answer;
      } catch (err) {
        this.finish(ticket, { status: 0 });
        throw err;
      }
    };
    return this.bottleneck.schedule(() => (this.cluster ? this.throughCluster(this.cluster, job) : job()));
  }

  /** Waits until the gate lets this request start. */
  private async admit(): Promise<Ticket> {
    // Bounded: every round either starts the request or sleeps until the gate's next moment.
    for (let round = 0; round < 1_000_000; round++) {
      const now = this.opts.now();
      // The pace is the bottleneck when requests wait for it: others queued or held in the gate,
      // or this one held back already (one request at a time, like paging, waits too).
      const busy = round > 0 || (this.bottleneck.counts().QUEUED ?? 0) > 0 || this.waiting > 0;
      const verdict = this.gate.start(now, busy);
      if ('ticket' in verdict) return verdict.ticket;
      this.waiting += 1;
      try {
        await this.opts.sleep(Math.max(0, verdict.retryAt - now));
      } finally {
        this.waiting -= 1;
      }
    }
    throw new Error('the rate limiter never let the request start');
  }

  private finish(ticket: Ticket, answer: Answer): void {
    const pauseMs = this.gate.finish(ticket, answer, this.opts.now());
    if (pauseMs > 0) this.pause(pauseMs);
    const window = Math.max(1, Math.min(this.opts.concurrency, this.gate.pacer.window));
    if (window !== this.windowApplied && !(window === this.opts.concurrency && this.windowApplied === Infinity)) {
      this.windowApplied = window;
      void this.bottleneck.updateSettings({ maxConcurrent: window });
    }
    this.applyShared();
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
    for (const runHere of [...this.waitingOnCluster]) runHere();
  }

  /** bottleneck's typings say updateSettings returns the limiter; it returns a promise of it. */
  private onCluster(pending: unknown): void {
    void Promise.resolve(pending).catch((err: unknown) => this.loseCluster(err));
  }


  stats(): LimiterStats {
    const s = this.gate.pacer.settings();
    const pace = s.credits !== null ? s.refillPerSec : s.minTimeMs > 0 ? 1000 / s.minTimeMs : Infinity;
    return { requests: this.requests, throttled: this.gate.pacer.throttled, pace };
  }

  /** Stops timers; pending jobs are dropped. */
  async close(): Promise<void> {
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    if (this.cluster) await this.cluster.disconnect(true).catch(() => undefined);
    await this.bottleneck.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }

  /** Told of a pause; with a shared budget, every process stops until it ends. */
  private pause(ms: number): void {
    this.opts.onPause?.(ms);
    if (!this.cluster) return;
    this.onCluster(this.cluster.updateSettings({ reservoir: 0 }));
    this.minTimeApplied = undefined;
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    const wait = Math.max(0, this.gate.pacer.resumeAt - this.opts.now());
    this.resumeTimer = setTimeout(() => {
      this.resumeTimer = undefined;
      this.applyShared(true);
    }, wait);
  }

  /** Shared budget: the spacing lives in Redis, so all processes together keep to it. */
  private applyShared(force = false): void {
    if (!this.cluster || this.resumeTimer) return;
    const minTime = Math.round(this.gate.pacer.settings().minTimeMs);
    if (!force && this.minTimeApplied !== undefined && aboutEqual(minTime, this.minTimeApplied)) return;
    this.minTimeApplied = minTime;
    this.onCluster(this.cluster.updateSettings({ minTime, reservoir: null }));
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

/** Within 2 %: not worth a round trip to Redis. */
function aboutEqual(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 0.02 * Math.max(Math.abs(a), Math.abs(b));
}
