/** The shapes the pace module speaks in (docs/pacing.md has the glossary). */

/** What a server says about its rate limit in its headers, normalised (headers.ts). */
export interface RateLimitInfo {
  /** Requests allowed per window (the quota), or a bucket's size. */
  limit?: number;
  /** Requests left now. */
  remaining?: number;
  /** Milliseconds until the quota is whole again. */
  resetMs?: number;
  /** The policy's window in milliseconds, when published. */
  windowMs?: number;
  /** The header form it came in. */
  form?: HeaderForm;
}

export type HeaderForm = 'draft6' | 'draft7' | 'draft8' | 'x';

/** One answer as the pace sees it: the status (0 when the request failed in transport) and what it said of the limit. */
export interface Answer {
  status: number;
  rateLimit?: RateLimitInfo | undefined;
  retryAfterMs?: number | undefined;
}

/** A limit as learnt, and as remembered between runs (memory.ts). */
export interface Limit {
  /** `rate`: a pace whose shape was not told apart. */
  shape: 'bucket' | 'window' | 'concurrency' | 'rate';
  /** Requests per second it lets through: a bucket's refill, a window's quota over its length, what a cap admitted. */
  rate: number;
  /** A bucket's size. */
  burst?: number;
  /** A window's length (ms) and quota. */
  windowMs?: number;
  quota?: number;
  /** A window measured from 429s that said nothing (no Retry-After), from when they started and stopped. */
  silent?: boolean;
  /** A pace that met 429s but was never measured over a long span: where to start, not a rate. */
  unconfirmed?: boolean;
  /** A bucket's refill guessed from a count and its reset (one listing's answers), not measured: where to start, not a rate. */
  guess?: boolean;
  /** Most requests in flight it admits (counted here, over the wire). */
  maxInFlight?: number;
  /** The header form it published, null for none. */
  headers: HeaderForm | null;
  /** `headers`: read from them; `learnt`: from the 429s met. */
  source: 'headers' | 'learnt';
  /** When it was learnt or last confirmed (ms since the epoch). */
  learntAt: number;
  /** When the job that learnt it sent its last request: a bucket has refilled since. */
  endedAt?: number;
}

/** What the limiter reports: for summaries, progress and a job's record. */
export interface PaceStats {
  /** Requests sent (attempts, retries included). */
  requests: number;
  /** 429 answers received. */
  throttled: number;
  /** The pace in requests per second (Infinity: unpaced, or a share of a shared pace). */
  pace: number;
  /** The limit as known now (remembered, then confirmed or learnt), if any. */
  limit?: Limit | undefined;
}

/** One answer as the learners see it: when it came, when its request left, and what was in flight. */
export interface Observation extends Answer {
  /** When the answer arrived, and when its request was sent (ms). */
  at: number;
  sentAt: number;
  /** Requests still in flight besides this one. */
  inflightOthers: number;
  /** Requests in flight besides this one when it was sent. */
  inflightAtSend: number;
  /**
   * Sharing a budget (shared-gate.ts): the leader's own count of them, from each grant to its
   * answer's arrival there — never fewer than the server had, where `inflightAtSend` may fall short.
   */
  inflightBound?: number | undefined;
}

/** A window's quota and length: no more than `quota` start within `windowMs` (the gate's log). */
export interface Anchor {
  quota: number;
  windowMs: number;
}

/** What the gate applies now (the learner in charge says). */
export interface PaceSettings {
  /** Least gap between request starts, in ms (0: no spacing). */
  minTimeMs: number;
  /** With headers: what the server says remains, less what is in flight; null without. */
  credits: number | null;
  /** With headers: credits regained per second. */
  refillPerSec: number;
  /** With headers: credits never exceed this. */
  capacity: number | null;
  /** With headers: when the server said its quota is whole again (ms), if it said. */
  fullAt?: number | undefined;
  /** With headers: no request starts before this (a window's proof, header-learner.ts). */
  holdUntil?: number | undefined;
  /** With headers: after `holdUntil`, one request goes and the rest wait for its answer. */
  holdOne?: boolean;
  /** Spacing: requests that may start back to back after a late timer (1: none). */
  catchUp?: number;
}

/** What a learner knows of the limit, and whether this run learnt it (a 429 met, a count read). */
export interface Learnt {
  limit: Omit<Limit, 'source' | 'learntAt'>;
  learnt: boolean;
}

/**
 * What the gate (gate.ts) asks of a learner: the one without headers (blind-learner.ts) until an
 * answer carries a count, then the one that reads them (header-learner.ts). The optional members
 * only the learner without headers has: with headers, the server's counts pace, and say the rest.
 */
export interface Learner {
  /** The pace in requests per second (for progress and stats). */
  readonly pace: number;
  /** Most requests in flight the limit allows (none: only --concurrency binds). */
  readonly window?: number;
  settings(): PaceSettings;
  /** A request goes out now. */
  onSend?(now: number): void;
  /** A request is about to start while others wait for the pace: the pace may grow. */
  onBusy?(now: number): void;
  /** Nothing waits: growth restarts from the next busy moment. */
  onIdle?(): void;
  /** Feeds one answer (status 0: a transport failure); `wait`: the pause a 429 calls for; `pausedUntil`: the limiter's pause so far. */
  observe(o: Observation, wait: number, pausedUntil: number): void;
  /** Requests that may go at once when a pause ends (none: 0). */
  burstAfter?(): number;
  /** After a pause, the requests that may be in flight until one sent after it is admitted (none: no cap). */
  restartCap?(): number;
  /** Refusals that say nothing are probed: after a pause, one request goes alone. */
  probing?(): boolean;
  /** A window's quota and length the gate keeps to, once recognised. */
  anchor(): Anchor | undefined;
  /** A request the anchor let go met a 429. */
  anchorMissed(): void;
  /** Starts from a pace found elsewhere (a shared budget's). */
  seedPace(rate: number): void;
  /** Starts from a limit remembered from an earlier run. */
  seed(limit: Limit, now: number): void;
  snapshot(now: number): Learnt | undefined;
}
