/**
 * The sandbox's rate limit: a token bucket per key. A 429 costs no token (a client that backs off
 * is not punished for asking), and every answer says where the bucket stands in the IETF draft ≤ 06
 * headers — unless headers are turned off, to model a service that publishes nothing.
 */
export interface BucketVerdict {
  allowed: boolean;
  headers: Record<string, string>;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly sendHeaders: boolean,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get enabled(): boolean {
    return this.rate > 0;
  }

  /** Takes one token for `key` if there is one. */
  take(key: string): BucketVerdict {
    if (!this.enabled) return { allowed: true, headers: {} };
    const now = this.now();
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = { tokens: this.burst, at: now }));
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.rate);
    b.at = now;
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    const headers: Record<string, string> = {};
    if (this.sendHeaders) {
      headers['ratelimit-limit'] = String(this.burst);
      headers['ratelimit-remaining'] = String(Math.floor(b.tokens));
      headers['ratelimit-reset'] = String(Math.ceil((this.burst - b.tokens) / this.rate));
    }
    if (!allowed) headers['retry-after'] = String(Math.max(1, Math.ceil((1 - b.tokens) / this.rate)));
    return { allowed, headers };
  }
}
