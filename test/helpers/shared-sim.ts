/**
 * A deterministic simulation of several imports sharing one budget through Redis, on a virtual
 * clock, modelled as shared-limiter.ts uses Redis: each process asks for every start (a want, one
 * hop to the leader), the leader's one CentralGate grants them (one hop back), the process sends at
 * once, and its answer goes back to the leader (a hop) under its grant's number. The server is the sandbox's own RateLimit in any shape. Real Redis and HTTP confirm it in
 * the benchmark (BENCHMARKS.md §6).
 */
import { CentralGate, parseRateLimit, parseRetryAfter, type Limit } from '../../src/pace/index.js';
import { RateLimit, type HeaderStyle, type LimiterShape } from '../../src/sandbox/ratelimit.js';
import { Heap, idealWall, seeded } from './pace-sim.js';

export interface SharedSimOptions {
  processes: number;
  rowsEach: number;
  rate: number;
  burst: number;
  headers: HeaderStyle;
  /** The server's limiter (default: a token bucket of `rate` and `burst`). */
  shape?: LimiterShape;
  /** Fixed and sliding windows: quota = rate × windowMs. */
  windowMs?: number;
  /** A cap on requests in flight: at most this many, each held `latencyMs` by the server. */
  maxInflight?: number;
  latencyMs?: number;
  /** Each process's --concurrency (default 8). */
  concurrency?: number;
  seed?: number;
  /** One way on the wire: at least `min` ms, plus up to `spread` (default: loopback, 0.1 + 0–0.6). */
  wire?: { min: number; spread: number };
  /** One way between a process and the leader through Redis (default: loopback, 0.1 + 0–0.3). */
  hop?: { min: number; spread: number };
  /** The limit an earlier run left: the leader's gate starts from it (shared-budget.ts, takeLead). */
  remembered?: Limit;
}

export interface SharedSimResult {
  /** Least wall time the limiter allows over the measured wall time, all processes together. */
  share: number;
  share429: number;
  requests: number;
  /** 429 answers. */
  throttled: number;
  /** What the leader's gate knows of the limit at the end (what the memory keeps). */
  snapshot: Limit | undefined;
}

export function simulateShared(o: SharedSimOptions): SharedSimResult {
  const random = seeded(o.seed ?? 1);
  const shape = o.shape ?? 'bucket';
  // A window's phase at random (a bucket's runs keep the whole second they always had).
  const t0 = 1_700_000_000_000 + (shape === 'bucket' ? 0 : Math.floor(random() * 60_000));
  let now = t0;
  const server = { shape, rate: o.rate, burst: o.burst, windowMs: o.windowMs, maxInflight: o.maxInflight, headers: o.headers };
  const limit = new RateLimit(server, () => now, () => now);
  const latency = o.latencyMs ?? 0;
  const events = new Heap();
  const at = (t: number, fn: () => void) => events.push(t, fn);
  const late = () => random() * 2;
  const wire = () => (o.wire?.min ?? 0.1) + random() * (o.wire?.spread ?? 0.6);
  const hop = () => (o.hop?.min ?? 0.1) + random() * (o.hop?.spread ?? 0.3);
  const concurrency = o.concurrency ?? 8;

  const central = new CentralGate({ random });
  if (o.remembered) central.gate.seed({ ...o.remembered, endedAt: t0 - 3_600_000 }, t0);
  let requests = 0;
  let throttled = 0;
  let done = 0;
  const total = o.processes * o.rowsEach;
  let end = Number.NaN;

  // The leader pumps on every want and answer, and at the gate's next moment (one timer at a time).
  let timerGen = 0;
  const pump = () => {
    const r = central.pump(now);
    for (const g of r.grants) at(now + hop(), () => procs[Number(g.proc)]!.granted(g.id));
    for (const f of r.follows ?? []) at(now + hop(), () => procs[Number(f.proc)]!.follow(f.after, f.id));
    for (const v of r.revokes ?? []) at(now + hop(), () => procs[Number(v.proc)]!.revoke(v.id));
    // As the leader's one timer (shared-limiter.ts): each pump replaces the last, also with none.
    const gen = ++timerGen;
    if (r.wakeAt !== undefined) at(Math.max(now, r.wakeAt) + late(), () => gen === timerGen && pump());
  };

  class Proc {
    left = o.rowsEach;
    active = 0;
    /** Rows whose want is out and not yet granted; grants that came with none waiting. */
    waiting = 0;
    spare: number[] = [];
    /** Grants sent and not yet answered, and the follow-on granted in the place of each. */
    held = new Set<number>();
    follows = new Map<number, number>();
    constructor(readonly name: string) {}
    dispatch(): void {
      while (this.active < concurrency && this.left > 0) {
        this.left -= 1;
        this.active += 1;
        const spare = this.spare.shift();
        if (spare !== undefined) {
          this.send(spare);
          continue;
        }
        this.waiting += 1;
        at(now + hop(), () => {
          central.want(this.name);
          pump();
        });
      }
    }
    granted(id: number): void {
      if (this.waiting === 0) return void this.spare.push(id);
      this.waiting -= 1;
      this.send(id);
    }
    /** A follow-on counts only while the request whose place it takes is unanswered. */
    follow(after: number, id: number): void {
      if (this.held.has(after)) this.follows.set(after, id);
    }
    revoke(id: number): void {
      for (const [after, f] of this.follows) if (f === id) this.follows.delete(after);
    }
    send(id: number): void {
      requests += 1;
      this.held.add(id);
      const sentAt = now;
      at(now + wire(), () => {
        const verdict = limit.admit('key');
        at(now + (verdict.allowed ? latency : 0), () => {
          verdict.release?.();
          at(now + wire(), () => {
            this.active -= 1;
            this.held.delete(id);
            const status = verdict.allowed ? 200 : 429;
            const next = this.follows.get(id);
            this.follows.delete(id);
            const followed = next !== undefined && status !== 429 && this.waiting > 0;
            if (followed) {
              this.waiting -= 1;
              this.send(next);
            }
            const answer = { status, rateLimit: parseRateLimit(verdict.headers, now), retryAfterMs: parseRetryAfter(verdict.headers['retry-after'], now) };
            const gotAt = now;
            at(now + hop(), () => {
              central.answer(id, answer, now, { sentAt, at: gotAt }, followed);
              pump();
            });
            if (status === 429) {
              throttled += 1;
              this.left += 1;
            } else if (++done === total) end = now;
            this.dispatch();
          });
        });
      });
    }
  }
  const procs = Array.from({ length: o.processes }, (_, i) => new Proc(String(i)));
  for (const p of procs) p.dispatch();
  for (let guard = 0; events.size > 0 && done < total && guard < 20_000_000; guard++) {
    const e = events.pop();
    now = e.t;
    e.fn();
  }
  const ideal = idealWall({ ...server, latencyMs: o.latencyMs }, total, o.processes * concurrency, t0);
  return { share: ideal / (end - t0), share429: throttled / requests, requests, throttled, snapshot: central.gate.snapshot(now) };
}
