/**
 * The pace of requests (docs/pacing.md): the one limiter of the process, what it learns of the
 * service's rate limit, the limit remembered between runs, and the budget shared through Redis.
 * Nothing outside src/pace/ imports any other file of it (test/pace/boundary.test.ts).
 */
export type { Answer, HeaderForm, Limit, Observation, PaceStats, RateLimitInfo } from './types.js';
export { parseRateLimit, parseRetryAfter, type HeaderBag } from './headers.js';
export { createPace, type LimiterOptions as PaceOptions, type Pace } from './limiter.js';
export { fingerprint, openMemory, sharedLimiterId, type Memory } from './memory.js';
export { estimateLine, estimateMs, knownLimit, knownRate, limitJson, limitLines, type Known } from './known.js';
export type { SharedBudget } from './shared-budget.js';

/** The budget shared through Redis (loaded only with a URL: it brings ioredis). */
export async function connectShared(o: import('./shared-budget.js').SharedLimiterOptions): Promise<import('./shared-budget.js').SharedBudget | undefined> {
  return (await import('./shared-budget.js')).connectSharedLimiter(o);
}

// The pure parts, driven on a virtual clock by the simulations and the tests.
export { PaceGate, type Ticket } from './gate.js';
export { CentralGate, decodeAnswer, encodeAnswer } from './shared-gate.js';
export { bucketBounds, fixedGridQuota } from './bucket-fit.js';
export { BlindLearner } from './blind-learner.js';
export { HeaderLearner } from './header-learner.js';
export { backoffMs } from './backoff.js';
