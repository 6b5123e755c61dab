/**
 * The rate limiters services really run, as the simulations' servers (test/helpers/pace-sim.ts):
 * each keeps to its library's own algorithm, read from its source, so that the pace is tuned
 * against them on a virtual clock and only confirmed over real HTTP (bench/limiters.mjs runs the
 * real nginx, express-rate-limit and rate-limiter-flexible).
 *
 * - nginx `limit_req rate=R burst=B nodelay` (ngx_http_limit_req_module): `excess` in thousandths
 *   of a request, drained at R per second by the millisecond; a request is refused when
 *   excess − R·ms + 1 exceeds B, and a refusal changes nothing. A bucket of B + 1 at R a second.
 *   No Retry-After unless the configuration adds one (`add_header Retry-After 1 always`).
 * - express-rate-limit's MemoryStore: a window of `windowMs` from a client's first hit after the
 *   last one ended; every hit counts, refused ones too; Retry-After (the seconds left, rounded up)
 *   and the draft-8 headers only with `standardHeaders`: with them off, a bare 429.
 * - rate-limiter-flexible's RateLimiterMemory: the same window from the first request (refused
 *   ones counted), and the headers of its README: `Retry-After: msBeforeNext / 1000` (fractional),
 *   `X-RateLimit-Limit/-Remaining/-Reset` (a Unix time in whole seconds).
 * - nginx `limit_conn N` in front of a backend that takes `latencyMs`: at most N requests at the
 *   backend at once; a bare 429 over it.
 */
import type { Admission } from '../../src/sandbox/ratelimit.js';

/** A limiter as the simulation asks it: one verdict per request, `now` the server's clock (ms). */
export interface SimLimiter {
  admit(now: number, wallNow: number): Admission;
}

export type RealLimiter =
  | { kind: 'nginx-req'; rate: number; burst: number; retryAfter?: number }
  | { kind: 'express'; quota: number; windowMs: number; headers: 'draft8' | 'none' }
  | { kind: 'flexible'; points: number; durationMs: number }
  | { kind: 'nginx-conn'; max: number };

export function realLimiter(spec: RealLimiter): SimLimiter {
  switch (spec.kind) {
    case 'nginx-req': {
      let excess = 0;
      let last: number | undefined;
      const rate = spec.rate * 1000;
      return {
        admit(now): Admission {
          const ms = Math.floor(now);
          if (last === undefined) {
            last = ms;
            excess = 0;
            return { allowed: true, headers: {} };
          }
          const e = Math.max(0, excess - (rate * Math.abs(ms - last)) / 1000 + 1000);
          if (e > spec.burst * 1000) return { allowed: false, headers: spec.retryAfter !== undefined ? { 'retry-after': String(spec.retryAfter) } : {} };
          excess = e;
          last = ms;
          return { allowed: true, headers: {} };
        },
      };
    }
    case 'express': {
      let hits = 0;
      let resetAt = -Infinity;
      return {
        admit(now) {
          if (resetAt <= now) {
            hits = 0;
            resetAt = now + spec.windowMs;
          }
          hits += 1;
          const allowed = hits <= spec.quota;
          if (spec.headers === 'none') return { allowed, headers: {} };
          const t = Math.max(0, Math.ceil((resetAt - now) / 1000));
          const w = Math.ceil(spec.windowMs / 1000);
          const headers: Record<string, string> = {
            ratelimit: `"${spec.quota}-in-${w}sec"; r=${Math.max(0, spec.quota - hits)}; t=${t}`,
            'ratelimit-policy': `"${spec.quota}-in-${w}sec"; q=${spec.quota}; w=${w}; pk=:0123abcd:`,
          };
          if (!allowed) headers['retry-after'] = String(t);
          return { allowed, headers };
        },
      };
    }
    case 'flexible': {
      let used = 0;
      let expiresAt = -Infinity;
      return {
        admit(now, wallNow) {
          if (expiresAt <= now) {
            used = 0;
            expiresAt = now + spec.durationMs;
          }
          used += 1;
          const allowed = used <= spec.points;
          const msBeforeNext = expiresAt - now;
          const headers: Record<string, string> = {
            'x-ratelimit-limit': String(spec.points),
            'x-ratelimit-remaining': String(Math.max(0, spec.points - used)),
            'x-ratelimit-reset': String(Math.ceil((wallNow + msBeforeNext) / 1000)),
          };
          if (!allowed) headers['retry-after'] = String(msBeforeNext / 1000);
          return { allowed, headers };
        },
      };
    }
    case 'nginx-conn': {
      let inflight = 0;
      return {
        admit() {
          if (inflight >= spec.max) return { allowed: false, headers: {} };
          inflight += 1;
          let released = false;
          return {
            allowed: true,
            headers: {},
            release: () => {
              if (!released) inflight -= 1;
              released = true;
            },
          };
        },
      };
    }
  }
}

/**
 * The limiters of the pace's table (BENCHMARKS.md §1, issue 46), as the simulation's servers: the
 * shape and figures describe each for the ideal (idealWall) — nginx's bucket holds B + 1, a window
 * from the first request times its quotas as a sliding one would.
 */
export const REAL_LIMITERS: Array<[string, { shape: 'bucket' | 'sliding' | 'concurrency'; rate: number; burst?: number; windowMs?: number; maxInflight?: number; latencyMs?: number; headers: 'none' | 'draft8' | 'x'; real: RealLimiter }]> = [
  ['nginx limit_req 20 r/s burst 5, no Retry-After', { shape: 'bucket', rate: 20, burst: 6, headers: 'none', real: { kind: 'nginx-req', rate: 20, burst: 5 } }],
  ['nginx limit_req 20 r/s burst 5, Retry-After: 1', { shape: 'bucket', rate: 20, burst: 6, headers: 'none', real: { kind: 'nginx-req', rate: 20, burst: 5, retryAfter: 1 } }],
  ['nginx limit_req 100 r/s burst 50, no Retry-After', { shape: 'bucket', rate: 100, burst: 51, headers: 'none', real: { kind: 'nginx-req', rate: 100, burst: 50 } }],
  ['express-rate-limit 600 / 10 s, draft-8', { shape: 'sliding', rate: 60, windowMs: 10_000, headers: 'draft8', real: { kind: 'express', quota: 600, windowMs: 10_000, headers: 'draft8' } }],
  ['express-rate-limit 600 / 10 s, no headers', { shape: 'sliding', rate: 60, windowMs: 10_000, headers: 'none', real: { kind: 'express', quota: 600, windowMs: 10_000, headers: 'none' } }],
  ['express-rate-limit 100 / 1 s, draft-8', { shape: 'sliding', rate: 100, windowMs: 1000, headers: 'draft8', real: { kind: 'express', quota: 100, windowMs: 1000, headers: 'draft8' } }],
  ['express-rate-limit 100 / 1 s, no headers', { shape: 'sliding', rate: 100, windowMs: 1000, headers: 'none', real: { kind: 'express', quota: 100, windowMs: 1000, headers: 'none' } }],
  ['rate-limiter-flexible 40 / 1 s, X-RateLimit, fractional Retry-After', { shape: 'sliding', rate: 40, windowMs: 1000, headers: 'x', real: { kind: 'flexible', points: 40, durationMs: 1000 } }],
  ['nginx limit_conn 3, 40 ms a request', { shape: 'concurrency', rate: 0, maxInflight: 3, latencyMs: 40, headers: 'none', real: { kind: 'nginx-conn', max: 3 } }],
];
