/**
 * Whether the service is down, as a bulk job's progress tells it (docs/network.md, "Failures,
 * timeouts and waits"): one line kept up to date — "service unreachable for 12 s, retrying in 4 s" — rather
 * than a line per retry. An outage is failures (no connection, a dropped one, a timeout, a 5xx)
 * with no answer in between for OUTAGE_AFTER_MS: a lone fault among answers (`--faults`) is not
 * one. Any answer of the service ends it.
 */

/** Failing this long with no answer in between is an outage. */
export const OUTAGE_AFTER_MS = 2_000;

/**
 * How long a bulk job's rows wait out an outage beyond their six attempts: a restart or a deploy
 * of the service heals in this, and a row that failed in it would only cost a `--resume`.
 */
export const OUTAGE_PATIENCE_MS = 120_000;

/** The service as the requests have met it, for a progress line. */
export interface OutageView {
  /** The outage under way: since when, why, and when the next retry leaves (if one is waiting). */
  down?: { since: number; reason: string; retryAt: number | undefined };
  /** Outages over so far, and how long the last one lasted. */
  ended: number;
  lastMs: number | undefined;
}

export class OutageWatch {
  private failingSince: number | undefined;
  private reason = '';
  private ended = 0;
  private lastMs: number | undefined;
  /** Back-offs under way: when each retry leaves. */
  private readonly retries = new Map<number, number>();
  private nextToken = 0;

  /** An attempt failed in a way a retry may heal. */
  failed(now: number, reason: string): void {
    this.failingSince ??= now;
    this.reason = reason;
  }

  /** The service answered (any status but a 5xx). */
  answered(now: number): void {
    if (this.failingSince !== undefined && now - this.failingSince >= OUTAGE_AFTER_MS) {
      this.ended += 1;
      this.lastMs = now - this.failingSince;
    }
    this.failingSince = undefined;
  }

  /** A retry waits until `at`; the returned function is called when it leaves. */
  retrying(at: number): () => void {
    const token = this.nextToken++;
    this.retries.set(token, at);
    return () => this.retries.delete(token);
  }

  /** How long the outage under way has lasted, or undefined when none is (a lone fault among answers is none). */
  downForMs(now: number): number | undefined {
    return this.failingSince !== undefined && now - this.failingSince >= OUTAGE_AFTER_MS ? now - this.failingSince : undefined;
  }

  view(now: number): OutageView {
    const out: OutageView = { ended: this.ended, lastMs: this.lastMs };
    if (this.failingSince !== undefined && now - this.failingSince >= OUTAGE_AFTER_MS) {
      const next = Math.min(...this.retries.values());
      out.down = { since: this.failingSince, reason: this.reason, retryAt: Number.isFinite(next) ? next : undefined };
    }
    return out;
  }
}
