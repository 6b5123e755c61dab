/**
 * A deterministic simulation of several imports sharing one budget through Redis, on a virtual
 * clock: each process is callctl's own PaceGate, following the shared pace; Redis is modelled as
 * limiter.ts and shared-limiter.ts use it (a slot booked one shared gap after the last, never
 * inside a pause; answers published every 50 ms; the leader feeding every process's answers into
 * the one SharedLearner and writing the gap, which the others read at their next tick); the server
 * is the sandbox's own RateLimit. Real Redis and HTTP confirm it in the benchmark (BENCHMARKS.md).
 */
import { PaceGate, type Ticket } from '../../src/http/gate.js';
import { parseRateLimit, parseRetryAfter } from '../../src/http/ratelimit-headers.js';
import { SharedLearner, type SharedAnswer } from '../../src/http/shared-pace.js';
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
  concurrency?: number;
  seed?: number;
  /** One way on the wire: at least `min` ms, plus up to `spread` (default: loopback, 0.1 + 0–0.6). */
  wire?: { min: number; spread: number };
}

export interface SharedSimResult {
  /** Least wall time the bucket allows over the measured wall time, all processes together. */
  share: number;
  share429: number;
  requests: number;
  /** The shared pace when the first 429 came back (requests per second). */
  paceAtFirst429: number | undefined;
}

const TICK_MS = 50;

export function simulateShared(o: SharedSimOptions): SharedSimResult {
  const random = seeded(o.seed ?? 1);
  // A window's phase at random (a bucket's runs keep the whole second they always had).
  const t0 = 1_700_000_000_000 + (o.shape === undefined || o.shape === 'bucket' ? 0 : Math.floor(random() * 60_000));
  let now = t0;
  const shape = o.shape ?? 'bucket';
  const limit = new RateLimit({ shape, rate: o.rate, burst: o.burst, windowMs: o.windowMs, headers: o.headers }, () => now, () => now);
  const events = new Heap();
  const at = (t: number, fn: () => void) => events.push(t, fn);
  const late = () => random() * 2;
  const wire = () => (o.wire?.min ?? 0.1) + random() * (o.wire?.spread ?? 0.6);

  const shared = { next: 0, pausedUntil: 0, gap: undefined as number | undefined, answers: [] as SharedAnswer[] };
  const learner = new SharedLearner({ random });
  let paceAtFirst429: number | undefined;
  let requests = 0;
  let throttled = 0;
  let done = 0;
  const total = o.processes * o.rowsEach;
  let end = Number.NaN;

  const procs = Array.from({ length: o.processes }, () => ({ gate: new PaceGate({ random }), left: o.rowsEach, active: 0, booking: false, queue: 0, outbox: [] as SharedAnswer[] }));
  type Proc = (typeof procs)[number];

  const dispatch = (p: Proc) => {
    while (p.active < (o.concurrency ?? 8) && p.left > 0) {
      p.left -= 1;
      p.active += 1;
      p.queue += 1;
    }
    book(p);
  };
  // One request of a process books at a time (limiter.ts), then passes the process's own gate.
  const book = (p: Proc) => {
    if (p.booking || p.queue === 0) return;
    p.booking = true;
    const tryBook = () => {
      if (now < shared.pausedUntil) return at(shared.pausedUntil + late(), tryBook);
      const gap = shared.gap ?? p.gate.pacer.settings().minTimeMs;
      const slot = Math.max(shared.next, now);
      shared.next = slot + gap;
      const booked = slot > now;
      at(slot + late(), () => {
        if (booked && now < shared.pausedUntil) return tryBook();
        const v = p.gate.start(now, true);
        if ('retryAt' in v) return at(v.retryAt + late(), tryBook);
        p.booking = false;
        p.queue -= 1;
        send(p, v.ticket);
        book(p);
      });
    };
    tryBook();
  };
  const send = (p: Proc, ticket: Ticket) => {
    requests += 1;
    at(now + wire(), () => {
      const verdict = limit.admit('key');
      const status = verdict.allowed ? 200 : 429;
      at(now + wire(), () => {
        p.active -= 1;
        const answer = { status, rateLimit: parseRateLimit(verdict.headers, now), retryAfterMs: parseRetryAfter(verdict.headers['retry-after'], now) };
        const pauseMs = p.gate.finish(ticket, answer, now);
        p.outbox.push({ at: now, sentAt: ticket.sentAt, ...answer });
        if (pauseMs > 0) {
          shared.pausedUntil = Math.max(shared.pausedUntil, now + pauseMs);
          shared.next = Math.max(shared.next, shared.pausedUntil);
        }
        if (status === 429) {
          throttled += 1;
          paceAtFirst429 ??= learner.pace;
          p.left += 1;
        } else if (++done === total) end = now;
        dispatch(p);
      });
    });
  };
  procs.forEach((p, i) => {
    const phase = random() * TICK_MS;
    const tick = () => {
      shared.answers.push(...p.outbox);
      p.outbox = [];
      if (i === 0) {
        // The leader: every process's answers, then the gap for all.
        learner.feed(shared.answers);
        shared.answers = [];
        learner.busy(now);
        const pace = learner.pace;
        if (pace !== undefined) shared.gap = 1000 / pace;
      }
      if (shared.gap !== undefined) p.gate.follow(shared.gap);
      if (done < total) at(now + TICK_MS, tick);
    };
    at(now + phase, tick);
    dispatch(p);
  });
  for (let guard = 0; events.size > 0 && done < total && guard < 20_000_000; guard++) {
    const e = events.pop();
    now = e.t;
    e.fn();
  }
  const ideal = idealWall({ shape, rate: o.rate, burst: o.burst, windowMs: o.windowMs, headers: o.headers }, total, o.processes * (o.concurrency ?? 8), t0);
  return { share: ideal / (end - t0), share429: throttled / requests, requests, paceAtFirst429 };
}
