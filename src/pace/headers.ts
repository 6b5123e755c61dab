/**
 * Reads what a server says about its rate limit, in every published form (docs/pacing.md, docs/cli.md "Throttling, retries and waits"):
 * IETF draft ≤ 06 (`RateLimit-Limit/-Remaining/-Reset`, `RateLimit-Policy: 100;w=60`), draft 07
 * (`RateLimit: limit=100, remaining=50, reset=5`), drafts 08+ (`RateLimit-Policy: "p";q=100;w=60`
 * with `RateLimit: "p";r=50;t=30`), and `X-RateLimit-*` (reset in seconds or as a Unix time).
 * A malformed field is ignored, never an error.
 */

import type { HeaderForm, RateLimitInfo } from './types.js';

export type { RateLimitInfo };
export type HeaderBag = Record<string, string | string[] | undefined>;

/** Unix times in seconds are above this; delta-seconds are far below it. */
const EPOCH_SECONDS_FLOOR = 1_000_000_000;

function header(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(', ') : v;
}

function nonNegative(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const t = text.trim().replace(/^"|"$/g, '');
  if (!/^\d+(\.\d+)?$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

/** A reset field: delta seconds, or a Unix time in seconds (or milliseconds) — told apart by size. */
function resetToMs(value: number | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  if (value > EPOCH_SECONDS_FLOOR * 1000) return Math.max(0, value - nowMs);
  if (value > EPOCH_SECONDS_FLOOR) return Math.max(0, value * 1000 - nowMs);
  return value * 1000;
}

/** `a=1, b=2` or `"name";q=1;w=2` items → list of parameter maps (one per comma item). */
function parseItems(text: string): Array<Map<string, string>> {
  return text
    .split(',')
    .map((item) => {
      const params = new Map<string, string>();
      for (const part of item.split(';')) {
        const eq = part.indexOf('=');
        if (eq < 0) {
          const name = part.trim();
          if (name) params.set('', name.replace(/^"|"$/g, ''));
          continue;
        }
        params.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
      }
      return params;
    })
    .filter((m) => m.size > 0);
}

/** The first number of a `RateLimit-Limit` value, which may carry policies after it (`100, 100;w=60`). */
function leadingNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const first = text.split(',')[0];
  return nonNegative(first?.split(';')[0]);
}

function windowFromPolicy(text: string | undefined, limit: number | undefined): number | undefined {
  if (text === undefined) return undefined;
  for (const item of parseItems(text)) {
    const w = nonNegative(item.get('w'));
    const q = nonNegative(item.get('q') ?? item.get(''));
    if (w !== undefined && w > 0 && (limit === undefined || q === undefined || q === limit)) return w * 1000;
  }
  return undefined;
}

function fromDraft08(rl: string, policy: string | undefined, nowMs: number): RateLimitInfo | undefined {
  // Several policies may be listed; the one with the fewest requests left is the one that binds.
  const policies = new Map<string, { q?: number; w?: number }>();
  for (const item of parseItems(policy ?? '')) {
    const name = item.get('') ?? '';
    const q = nonNegative(item.get('q'));
    const w = nonNegative(item.get('w'));
    policies.set(name, { ...(q !== undefined ? { q } : {}), ...(w !== undefined ? { w } : {}) });
  }
  let best: RateLimitInfo | undefined;
  for (const item of parseItems(rl)) {
    const r = nonNegative(item.get('r'));
    if (r === undefined) continue;
    const p = policies.get(item.get('') ?? '');
    const info: RateLimitInfo = { remaining: r };
    const t = resetToMs(nonNegative(item.get('t')), nowMs);
    if (t !== undefined) info.resetMs = t;
    if (p?.q !== undefined) info.limit = p.q;
    if (p?.w !== undefined && p.w > 0) info.windowMs = p.w * 1000;
    if (best === undefined || r < (best.remaining ?? Infinity)) best = info;
  }
  return best;
}

function fromDraft07(rl: string, policy: string | undefined, nowMs: number): RateLimitInfo | undefined {
  const params = new Map<string, string>();
  for (const item of parseItems(rl)) for (const [k, v] of item) params.set(k, v);
  return fields(nonNegative(params.get('limit')), nonNegative(params.get('remaining')), nonNegative(params.get('reset')), policy, nowMs);
}

function fromTriple(headers: HeaderBag, prefix: string, nowMs: number): RateLimitInfo | undefined {
  const limit = header(headers, `${prefix}-limit`);
  return fields(leadingNumber(limit), nonNegative(header(headers, `${prefix}-remaining`)), nonNegative(header(headers, `${prefix}-reset`)), header(headers, `${prefix}-policy`) ?? limit, nowMs);
}

/** What a draft-7 or triple form said (undefined: nothing), the window read from its policy. */
function fields(limit: number | undefined, remaining: number | undefined, reset: number | undefined, policy: string | undefined, nowMs: number): RateLimitInfo | undefined {
  const info: RateLimitInfo = {};
  const resetMs = resetToMs(reset, nowMs);
  const windowMs = windowFromPolicy(policy, limit);
  if (limit !== undefined) info.limit = limit;
  if (remaining !== undefined) info.remaining = remaining;
  if (resetMs !== undefined) info.resetMs = resetMs;
  if (windowMs !== undefined) info.windowMs = windowMs;
  return Object.keys(info).length > 0 ? info : undefined;
}

/**
 * The rate-limit state a response reports, or undefined when it reports none.
 * `headers` must have lower-case names (as undici and node:http give them).
 */
export function parseRateLimit(headers: HeaderBag, nowMs: number): RateLimitInfo | undefined {
  const combined = header(headers, 'ratelimit');
  const policy = header(headers, 'ratelimit-policy');
  if (combined !== undefined) {
    const draft8 = /(^|[;,\s])r=/.test(combined);
    const info = draft8 ? fromDraft08(combined, policy, nowMs) : fromDraft07(combined, policy, nowMs);
    if (info) return formed(info, draft8 ? 'draft8' : 'draft7');
  }
  return formed(fromTriple(headers, 'ratelimit', nowMs), 'draft6') ?? formed(fromTriple(headers, 'x-ratelimit', nowMs) ?? fromTriple(headers, 'x-rate-limit', nowMs), 'x');
}

function formed(info: RateLimitInfo | undefined, form: HeaderForm): RateLimitInfo | undefined {
  if (info !== undefined) info.form = form;
  return info;
}

/** `Retry-After` in milliseconds: delta seconds or an HTTP date; undefined when absent or malformed. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  const seconds = nonNegative(text);
  if (seconds !== undefined) return seconds * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
