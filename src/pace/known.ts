/**
 * What callctl knows of a service's limit, for a person and for scripts (`callctl limit`, the dry
 * run's estimate): the limit remembered or learnt, else the `--rate` ceiling, else nothing.
 */
import type { Limit } from './types.js';

export interface Known {
  source: 'headers' | 'learnt' | '--rate';
  limit: Limit | undefined;
  /** The --rate ceiling, if one is set. */
  ceiling: number | undefined;
}

/** The limit to go by: a remembered or learnt one, else --rate (a ceiling: the pace never passes it). */
export function knownLimit(limit: Limit | undefined, ceiling: number | undefined): Known | undefined {
  if (limit !== undefined) return { source: limit.source, limit, ceiling };
  return ceiling !== undefined && ceiling > 0 ? { source: '--rate', limit: undefined, ceiling } : undefined;
}

/** Requests per second the pace holds at most: the limit's, under --rate. */
export function knownRate(k: Known): number {
  return Math.min(k.limit?.rate ?? Infinity, k.ceiling ?? Infinity);
}

/**
 * How long `requests` take at the known limit (ms): a bucket's burst goes at once and the rest at
 * its refill; a window's quotas one a window; anything else at its rate.
 */
export function estimateMs(k: Known, requests: number): number {
  const rate = knownRate(k);
  const l = k.limit;
  if (requests <= 0) return 0;
  if (l?.shape === 'window' && l.quota !== undefined && l.windowMs !== undefined && rate >= l.rate) return Math.ceil(requests / l.quota - 1) * l.windowMs;
  const atOnce = l?.shape === 'bucket' && rate >= l.rate ? Math.min(requests, l.burst ?? 0) : 0;
  return ((requests - atOnce) / rate) * 1000;
}

/** `callctl limit --json`'s object (docs/commands/auth.md, "limit"): a window in seconds, `learntAt` as ISO 8601. */
export function limitJson(baseUrl: string, k: Known): Record<string, unknown> {
  const l = k.limit;
  return {
    baseUrl,
    source: k.source,
    shape: l?.shape ?? null,
    rate: round(knownRate(k)),
    burst: l?.burst !== undefined ? Math.round(l.burst) : null,
    window: l?.windowMs !== undefined ? l.windowMs / 1000 : null,
    quota: l?.quota ?? null,
    maxInFlight: l?.maxInFlight ?? null,
    headers: l?.headers ?? null,
    learntAt: l !== undefined ? new Date(l.learntAt).toISOString() : null,
  };
}

const FORM: Record<string, string> = { draft6: 'RateLimit-Limit/-Remaining/-Reset', draft7: 'RateLimit (draft 7)', draft8: 'RateLimit-Policy + RateLimit (draft 8)', x: 'X-RateLimit-*' };

/** `callctl limit`'s lines for a person. */
export function limitLines(k: Known): string[] {
  const l = k.limit;
  const lines: string[] = [];
  if (l !== undefined) {
    const per = (n: number) => `${round(n)} request${n === 1 ? '' : 's'}/s`;
    if (l.shape === 'bucket') lines.push(`shape      token bucket: ${per(l.rate)}${l.burst !== undefined ? `, burst ${Math.round(l.burst)}` : ''}${l.guess ? ' (a first guess from a count and its reset, not yet measured: a real run measures it)' : ''}`);
    else if (l.shape === 'window') lines.push(`shape      window: ${l.quota ?? '?'} requests per ${(l.windowMs ?? 0) / 1000} s`);
    else if (l.shape === 'concurrency') lines.push(`shape      at most ${l.maxInFlight} requests in flight (${per(l.rate)} reached)`);
    else lines.push(`shape      a pace of ${per(l.rate)} (its shape not told apart${l.unconfirmed ? '; not yet measured over a long run' : ''})`);
    if (l.maxInFlight !== undefined && l.shape !== 'concurrency') lines.push(`in flight  at most ${l.maxInFlight}`);
    lines.push(`headers    ${l.headers ? FORM[l.headers] : 'none (only 429 and Retry-After)'}`);
    lines.push(`${l.source === 'headers' ? 'read' : 'learnt'}     ${new Date(l.learntAt).toISOString().slice(0, 16).replace('T', ' ')} UTC (${l.source === 'headers' ? 'from rate-limit headers' : 'from the 429s met'})`);
  }
  if (k.ceiling !== undefined) lines.push(`--rate     ${round(k.ceiling)} requests/s: a ceiling the pace never passes${l !== undefined && l.rate > k.ceiling ? ' (under the limit above)' : ''}`);
  return lines;
}

function round(n: number): number {
  return n >= 10 ? Math.round(n * 10) / 10 : Math.round(n * 100) / 100;
}

/** The dry run's line: how long the real run would take at the known limit, or that it is not known yet. */
export function estimateLine(k: Known | undefined, requests: number): string {
  if (requests <= 0) return 'the real run would send no request';
  if (k === undefined) return 'the rate limit is not known yet (the first real run learns it and remembers it; --rate sets a ceiling): no estimate of its time';
  const s = estimateMs(k, requests) / 1000;
  const took = s < 90 ? `${Math.max(1, Math.round(s))} s` : s < 5400 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${(s / 3600).toFixed(1)} h`;
  const guess = k.limit?.guess === true && (k.ceiling === undefined || k.ceiling >= k.limit.rate);
  if (guess) return `the real run would take about ${took} for ${requests} request${requests === 1 ? '' : 's'} at ${round(knownRate(k))} requests/s, a first guess from the headers of a listing, not a measured limit (the real run measures it; callctl limit shows it)`;
  const from = k.source === '--rate' ? `--rate ${round(knownRate(k))}/s` : `the limit ${k.source === 'headers' ? 'read from headers' : 'learnt'} on ${new Date(k.limit?.learntAt ?? 0).toISOString().slice(0, 10)}, ${round(knownRate(k))} requests/s${k.ceiling !== undefined && k.limit !== undefined && k.ceiling < k.limit.rate ? ' (under --rate)' : ''}`;
  return `the real run would take about ${took} for ${requests} request${requests === 1 ? '' : 's'} at ${from}`;
}
