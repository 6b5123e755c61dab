/**
 * The one gate of a key's budget (docs/pacing.md, rules S1–S4). Pure: the Redis side
 * (shared-budget.ts) carries the wants, grants and answers; this part decides, so the simulation
 * drives it as it drives one process's gate. The limit is the key's, so the whole pacing — pace,
 * quota mirror, window's log, burst after a pause, cap — runs in one PaceGate held by the leader,
 * as if one process sent every request: a gap alone, shared, cannot carry a window's log or a cap.
 */
import { PaceGate, type Ticket } from './gate.js';
import type { Answer, RateLimitInfo } from './types.js';
import * as tune from './tuning.js';

/** One answer as it travels between processes: when it arrived and its request was sent (ms since the epoch). */
export interface SharedAnswer extends Answer {
  at: number;
  sentAt: number;
}

const num = (s: string | undefined): number | undefined => (s === undefined || s === '' ? undefined : Number.isFinite(Number(s)) ? Number(s) : undefined);

/** A compact line for Redis: `at|sentAt|status|retryAfter|limit|remaining|reset|window`. */
export function encodeAnswer(a: SharedAnswer): string {
  const rl = a.rateLimit;
  const f = (v: number | undefined) => (v === undefined ? '' : String(Math.round(v)));
  return [f(a.at), f(a.sentAt), f(a.status), f(a.retryAfterMs), f(rl?.limit), f(rl?.remaining), f(rl?.resetMs), f(rl?.windowMs)].join('|');
}

/** The answer a line holds, or undefined for a line that is not one (another version's, say). */
export function decodeAnswer(line: string): SharedAnswer | undefined {
  const p = line.split('|');
  if (p.length !== 8) return undefined;
  const at = num(p[0]);
  const sentAt = num(p[1]);
  const status = num(p[2]);
  if (at === undefined || sentAt === undefined || status === undefined) return undefined;
  const rateLimit: RateLimitInfo = {};
  const fields = ['limit', 'remaining', 'resetMs', 'windowMs'] as const;
  fields.forEach((k, i) => {
    const v = num(p[4 + i]);
    if (v !== undefined) rateLimit[k] = v;
  });
  return { at, sentAt, status, retryAfterMs: num(p[3]), rateLimit: Object.keys(rateLimit).length > 0 ? rateLimit : undefined };
}

/** A start granted to a process: its number comes back with the answer. */
export interface Grant {
  proc: string;
  id: number;
}

/**
 * A start granted ahead, in the place of a request in flight (`after`): its process sends it the
 * moment that one's answer comes, if admitted, and says so with that answer.
 */
export interface FollowOn extends Grant {
  after: number;
}

export interface PumpResult {
  grants: Grant[];
  /** Starts granted ahead while a cap on requests in flight is full (see attach). */
  follows?: FollowOn[];
  /** Follow-ons no longer to be used: a pause began, or the cap was found lower. */
  revokes?: Grant[];
  /** Wants are left waiting: pump again by then at the latest ... */
  wakeAt?: number;
  /** ... or at the next answer, if that comes first. */
  onAnswer?: boolean;
}

export class CentralGate {
  readonly gate: PaceGate;
  /** The processes waiting for a start, one entry per want, in the order they asked. */
  private wants: string[] = [];
  /** The oldest want was held back once already: it waits for the pace (busy). */
  private held = false;
  private readonly granted = new Map<number, { ticket: Ticket; proc: string }>();
  private nextId = 1;
  /** S2. Follow-ons by the grant whose place they take, and those taken back not yet told. */
  private readonly follows = new Map<number, { id: number; proc: string; revoked: boolean }>();
  private revoked: Grant[] = [];
  /**
   * S3. A ramp after a pause, under way until `until` at the latest (see rampLimit), and the most
   * requests in flight together (the count a cap is read from) with one admitted, sent since.
   */
  private ramp: { until: number; sincePause: number } | undefined;
  /** The leader is closing: nothing more is granted. */
  private draining = false;
  /** Per process: the least (arrival here − answer there) seen, its clock's offset from ours. */
  private readonly offsets = new Map<string, number>();
  /** Requests answered lately, on the leader's clock: sent, and answered. */
  private done: Array<{ sent: number; at: number }> = [];

  /**
   * `seedRate`, `seedWindow`: the pace the previous leader left (requests per second) and the cap on
   * requests in flight it had found, taken up without a slow start.
   */
  constructor(opts: { ceiling?: number | undefined; seedRate?: number | undefined; seedWindow?: number | undefined; now?: number; random?: () => number }) {
    this.gate = new PaceGate({ ceiling: opts.ceiling, random: opts.random });
    if (opts.seedRate !== undefined && opts.seedRate > 0) this.gate.seedPace(opts.seedRate);
    if (opts.seedWindow !== undefined && opts.seedWindow > 0) {
      this.gate.capAtMost(opts.seedWindow, opts.now ?? 0);
      this.ramp = { until: (opts.now ?? 0) + tune.RAMP_MS, sincePause: 0 };
    }
  }

  /** A process asks for a start. */
  want(proc: string): void {
    this.wants.push(proc);
  }

  /** A process no longer wants `n` of the starts it asked for (it is closing). */
  cancel(proc: string, n: number): void {
    for (let i = this.wants.length - 1; i >= 0 && n > 0; i--) {
      if (this.wants[i] === proc) {
        this.wants.splice(i, 1);
        n -= 1;
      }
    }
  }

  get waiting(): number {
    return this.wants.length;
  }

  get inflight(): number {
    return this.granted.size;
  }

  /** The leader is closing: nothing more is granted, and what was granted ahead is taken back. */
  drain(): void {
    this.draining = true;
    this.revokeAll();
  }

  private revokeAll(): void {
    for (const f of this.follows.values()) {
      if (f.revoked) continue;
      f.revoked = true;
      this.revoked.push({ proc: f.proc, id: f.id });
    }
  }

  /** Grants what the gate lets go at `now`, in the order asked. */
  pump(now: number): PumpResult {
    const grants: Grant[] = [];
    if (this.draining) return { grants, ...this.extras([]) };
    // Bounded by the wants: each round grants one or returns.
    while (this.wants.length > 0) {
      if (this.granted.size >= this.rampLimit(now)) {
        this.held = true;
        return { grants, ...this.extras([]), onAnswer: true };
      }
      // As in one process (limiter.ts): the pace is the bottleneck when others wait behind this
      // want, or this one was held back already.
      const verdict = this.gate.start(now, this.held || this.wants.length > 1);
      if (!('ticket' in verdict)) {
        const follows = verdict.cap ? this.attach() : [];
        this.held = this.wants.length > 0;
        return { grants, ...this.extras(follows), wakeAt: verdict.retryAt, ...(verdict.onFinish ? { onAnswer: true } : {}) };
      }
      const proc = this.wants.shift() as string;
      this.held = false;
      const id = this.nextId++;
      this.granted.set(id, { ticket: verdict.ticket, proc });
      grants.push({ proc, id });
    }
    this.held = false;
    return { grants, ...this.extras([]) };
  }

  /**
   * S3. Most requests in flight the gate grants after a pause (or as a new leader given a cap), once
   * a cap is known: half the window at first (two at least), then half as many again as were in
   * flight together with one admitted since, until that reaches the window or RAMP_MS has passed.
   * Shared, answers come late through Redis, so a cap may be read too high: sending its whole window
   * after each pause would meet a 429 per place over; the ramp meets one, after an admitted answer
   * whose service time lets the leader's count lower the cap (blind-learner.ts, B6).
   */
  private rampLimit(now: number): number {
    const window = this.gate.window;
    if (this.ramp === undefined || window === Infinity) return Infinity;
    const { sincePause, until } = this.ramp;
    const limit = Math.max(2, Math.floor(window / 2), sincePause + 1, Math.floor(1.5 * sincePause));
    // (At the window, the gate's own count holds it, and grants ahead while it is full.)
    if (limit < window && now < until) return limit;
    this.ramp = undefined;
    return Infinity;
  }

  /** Whether a ramp after a pause is under way (for tests). */
  get ramping(): boolean {
    return this.ramp !== undefined;
  }

  private extras(follows: FollowOn[]): Pick<PumpResult, 'follows' | 'revokes'> {
    const revokes = this.revoked.splice(0);
    return { ...(follows.length > 0 ? { follows } : {}), ...(revokes.length > 0 ? { revokes } : {}) };
  }

  /**
   * S2. A cap on requests in flight is full: a place freed reaches the leader and its next start
   * reaches a process only through Redis, and would stand idle meanwhile. So the wants at the head
   * of the line, in order, are granted ahead, each in the place of a request in flight of its own
   * process, which sends it the moment that answer comes (if admitted) and says so with the answer:
   * the cap is never exceeded. A want whose process has nothing in flight stops it.
   */
  private attach(): FollowOn[] {
    const out: FollowOn[] = [];
    if (this.gate.inflightCount > this.gate.window) return out;
    while (this.wants.length > 0) {
      const proc = this.wants[0] as string;
      let after: number | undefined;
      // The oldest of its own without one: likely the first answered.
      for (const [id, g] of this.granted) {
        if (g.proc === proc && !this.follows.has(id)) {
          after = id;
          break;
        }
      }
      if (after === undefined) break;
      this.wants.shift();
      const id = this.nextId++;
      this.follows.set(after, { id, proc, revoked: false });
      out.push({ proc, id, after });
    }
    return out;
  }

  /**
   * The answer to grant `id` (status 0: it failed, or was never sent), `timing` on its process's
   * clock; `followed`: its follow-on was sent at once (if none was, its want is back at the head of
   * the line). Returns the pause it calls for (ms); an unknown number (another leader's grant, or
   * one of a process dropped) is ignored.
   */
  answer(id: number, answer: Answer, now: number, timing?: { sentAt: number; at: number }, followed = false): number {
    const g = this.granted.get(id);
    if (!g) return 0;
    this.granted.delete(id);
    const pause = this.finish(id, g, answer, now, timing);
    const f = this.follows.get(id);
    if (f !== undefined) {
      this.follows.delete(id);
      if (followed) this.granted.set(f.id, { ticket: this.gate.startNow(now), proc: f.proc });
      else this.wants.unshift(f.proc);
    }
    return pause;
  }

  private finish(id: number, g: { ticket: Ticket; proc: string }, answer: Answer, now: number, timing: { sentAt: number; at: number } | undefined): number {
    let ticket = g.ticket;
    // What was in flight at the server when this request was sent: the leader's own count (grant to
    // answer, through Redis) runs high by two hops and two event loops, which reads a cap too high.
    // The process says when it sent and when the answer came, on its own clock; the leader counts
    // every request sent before this one and not yet answered then, and takes the lower count.
    if (timing !== undefined && timing.sentAt > 0 && timing.at >= timing.sentAt) {
      // On the leader's clock: each process's offset is the least its answers took to arrive here.
      const offset = Math.min(this.offsets.get(g.proc) ?? Infinity, now - timing.at);
      this.offsets.set(g.proc, offset);
      const sent = timing.sentAt + offset;
      this.done = this.done.filter((d) => now - d.at < tune.DONE_KEEP_MS);
      let others = 0;
      for (const [otherId, o] of this.granted) if (otherId < id && o.ticket.sentAt <= sent) others += 1;
      for (const d of this.done) if (d.sent <= sent && d.at > sent) others += 1;
      this.done.push({ sent, at: timing.at + offset });
      ticket = { ...ticket, atServerAtSend: Math.min(ticket.inflightAtSend, others) };
    }
    const window = this.gate.window;
    const resumeAt = this.gate.resumeAt;
    const pause = this.gate.finish(ticket, answer, now);
    const paused = this.gate.resumeAt > resumeAt;
    if (paused) this.ramp = { until: this.gate.resumeAt + tune.RAMP_MS, sincePause: 0 };
    else if (this.ramp !== undefined && answer.status !== 429 && answer.status !== 0 && ticket.sentAt >= resumeAt) this.ramp.sincePause = Math.max(this.ramp.sincePause, (ticket.atServerAtSend ?? ticket.inflightAtSend) + 1);
    // A new pause, or a cap found lower: the places granted ahead are taken back where the word
    // arrives before the answer they wait for.
    if (paused || this.gate.window < window) this.revokeAll();
    return pause;
  }

  /** The processes with a want waiting or a grant unanswered. */
  get procs(): string[] {
    return [...new Set([...this.wants, ...[...this.granted.values()].map((g) => g.proc)])];
  }

  /**
   * A process is gone (killed, or closed): its wants are dropped and its grants given up as never
   * sent: in flight for good, they would hold a window's log and a cap.
   */
  drop(proc: string, now: number): void {
    for (const [id, g] of this.granted) if (g.proc === proc) this.answer(id, { status: 0 }, now);
    // (After: the wants its follow-ons took come back with their grants' answers.)
    this.wants = this.wants.filter((w) => w !== proc);
  }

  /** The pace for every process together (requests per second), for a process going on alone. */
  get pace(): number | undefined {
    const spacing = this.gate.spacing;
    const p = spacing !== Infinity ? spacing : this.gate.pace;
    return Number.isFinite(p) && p > 0 ? p : undefined;
  }
}
