/**
 * No wait is silent or endless (docs/network.md, "Failures, timeouts and waits"): a 429 pause
 * longer than a minute is said on stderr with when it ends; one longer than --max-pause — or 429s
 * that go on past it without a pause that ends them (`Retry-After: 0`) — stops the client: every
 * request then ends with the one error, whose hint is when to try again (a job: with --resume).
 */
import { RuntimeError } from '../errors.js';
import type { Logger } from '../output/log.js';

/** --max-pause's default, in seconds. */
export const DEFAULT_MAX_PAUSE_S = 600;
/** A pause (or 429s without end) longer than this is said on stderr. */
const LONG_PAUSE_MS = 60_000;

export interface PauseOptions {
  log: Logger;
  now: () => number;
  maxPauseMs: number;
  /** Whether a bulk job runs (its advice is --resume). */
  bulk: () => boolean;
  /** Stops every request with `err`. */
  halt: (err: Error) => void;
}

export class PauseWatch {
  /** Since when every answer has been a 429 (undefined: the last one was not). */
  private throttledSince: number | undefined;
  private throttleSaid = false;
  private pauseSaidUntil = 0;

  constructor(private readonly o: PauseOptions) {}

  /** An answer other than a 429. */
  answered(): void {
    this.throttledSince = undefined;
  }

  /** A 429: after a minute of nothing else it is said; past --max-pause, everything stops. */
  throttled(): void {
    const now = this.o.now();
    this.throttledSince ??= now;
    const forMs = now - this.throttledSince;
    if (forMs > this.o.maxPauseMs) {
      this.o.halt(new RuntimeError('rate_limited', `the service has answered only 429 (too many requests) for ${duration(forMs)}, past --max-pause ${this.o.maxPauseMs / 1000} s`, this.laterHint(undefined)));
    } else if (forMs > LONG_PAUSE_MS && !this.throttleSaid) {
      this.throttleSaid = true;
      this.o.log.warn(`the service has answered only 429 (too many requests) for ${duration(forMs)}; still trying, until --max-pause (${this.o.maxPauseMs / 1000} s)`);
    }
  }

  /**
   * The limiter paused every request for `ms`, for `cause` (pauseCause): a long pause is said with
   * its end; one past --max-pause stops everything.
   */
  paused(ms: number, cause: PauseCause): void {
    this.o.log.debug(`· rate limited: pausing all requests for ${Math.round(ms)} ms`);
    const end = this.o.now() + ms;
    if (ms > this.o.maxPauseMs) {
      this.o.halt(new RuntimeError('pause_too_long', `${cause(duration(ms))}, past --max-pause ${this.o.maxPauseMs / 1000} s`, this.laterHint(end)));
      return;
    }
    if (ms > LONG_PAUSE_MS && end > this.pauseSaidUntil + 1_000) {
      this.pauseSaidUntil = end;
      this.o.log.warn(`${cause(duration(ms))}: waiting until ${clock(end)} (Ctrl-C stops${this.o.bulk() ? '; --resume continues' : ''})`);
    }
  }

  private laterHint(at: number | undefined): string {
    const when = at === undefined ? 'later' : `after ${clock(at)}`;
    return this.o.bulk() ? `run the same command with --resume ${when}, or raise --max-pause` : `try again ${when}, or raise --max-pause`;
  }
}

/** Says a pause of a given length and what called for it. */
export type PauseCause = (duration: string) => string;

/**
 * What called for a pause, as the 429 showed it — never a header it did not send: its Retry-After,
 * else callctl's own back-off (src/pace/backoff.ts).
 */
export function pauseCause(answer: { status: number; retryAfterMs?: number | undefined }): PauseCause {
  if (answer.retryAfterMs !== undefined) return (d) => `the service asks for a pause of ${d} (${answer.status}, Retry-After)`;
  return (d) => `a back-off of ${d} (callctl's own, after a ${answer.status} with no Retry-After)`;
}

/** "40 s", "5 min", "2.8 h". */
function duration(ms: number): string {
  const s = ms / 1000;
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** A time of day on this machine's clock: 14:32:10 (with the date when not today). */
function clock(at: number): string {
  const d = new Date(at);
  const time = d.toTimeString().slice(0, 8);
  return d.toDateString() === new Date().toDateString() ? time : `${d.toISOString().slice(0, 10)} ${time}`;
}
