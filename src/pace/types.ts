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
  /** A pace that met 429s but was never measured over a long span: where to start, not a rate. */
  unconfirmed?: boolean;
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
