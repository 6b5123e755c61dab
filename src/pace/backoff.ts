/**
 * The one back-off of callctl: the wait before attempt `attempt + 1` (1-based), exponential from
 * `baseMs` up to `capMs`, with full jitter on its upper half. A 429 without Retry-After pauses the
 * limiter by it (the pace's base), a failed request waits it before its retry (src/http/retry.ts).
 */
export function backoffMs(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const exp = Math.min(capMs, baseMs * 2 ** Math.min(Math.max(0, attempt - 1), 16));
  return Math.round(exp / 2 + random() * (exp / 2));
}
