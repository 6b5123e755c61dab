// The rate-limit headers in every published form, read as one shape (src/pace/headers.ts),
// and Retry-After as seconds or an HTTP date. A malformed field is ignored, never an error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRateLimit, parseRetryAfter } from '../../src/pace/index.js';

const NOW = 1_800_000_000_000;

test('IETF draft 6: RateLimit-Limit / -Remaining / -Reset, with a policy on the limit; each form is told (the memory keeps it)', () => {
  assert.deepEqual(parseRateLimit({ 'ratelimit-limit': '100', 'ratelimit-remaining': '42', 'ratelimit-reset': '7' }, NOW), { limit: 100, remaining: 42, resetMs: 7000, form: 'draft6' });
  assert.deepEqual(parseRateLimit({ 'ratelimit-limit': '100, 100;w=60', 'ratelimit-remaining': '5', 'ratelimit-reset': '30' }, NOW), { limit: 100, remaining: 5, resetMs: 30_000, windowMs: 60_000, form: 'draft6' });
});

test('draft 7: one RateLimit field with limit, remaining and reset', () => {
  assert.deepEqual(parseRateLimit({ ratelimit: 'limit=100, remaining=50, reset=5' }, NOW), { limit: 100, remaining: 50, resetMs: 5000, form: 'draft7' });
});

test('drafts 8+: RateLimit-Policy q and w with RateLimit r and t; of several policies, the one with least left binds', () => {
  assert.deepEqual(parseRateLimit({ 'ratelimit-policy': '"burst";q=100;w=60', ratelimit: '"burst";r=50;t=30' }, NOW), { remaining: 50, resetMs: 30_000, limit: 100, windowMs: 60_000, form: 'draft8' });
  const two = parseRateLimit({ 'ratelimit-policy': '"second";q=20;w=1, "day";q=5000;w=86400', ratelimit: '"second";r=12;t=1, "day";r=3;t=4000' }, NOW);
  assert.deepEqual(two, { remaining: 3, resetMs: 4_000_000, limit: 5000, windowMs: 86_400_000, form: 'draft8' });
});

test('X-RateLimit-*: reset as delta seconds or as a Unix time in seconds', () => {
  assert.deepEqual(parseRateLimit({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '12' }, NOW), { limit: 60, remaining: 0, resetMs: 12_000, form: 'x' });
  assert.deepEqual(parseRateLimit({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': String(NOW / 1000 + 9) }, NOW), { limit: 60, remaining: 1, resetMs: 9000, form: 'x' });
});

test('no headers, or malformed ones, say nothing', () => {
  assert.equal(parseRateLimit({}, NOW), undefined);
  assert.equal(parseRateLimit({ 'ratelimit-remaining': 'lots', 'ratelimit-limit': '-1' }, NOW), undefined);
  assert.deepEqual(parseRateLimit({ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': 'soon' }, NOW), { remaining: 3, form: 'x' });
});

test('Retry-After: delta seconds or an HTTP date; anything else is none', () => {
  assert.equal(parseRetryAfter('2', NOW), 2000);
  assert.equal(parseRetryAfter(new Date(NOW + 1500).toUTCString(), NOW), 1000); // HTTP dates have whole seconds
  assert.equal(parseRetryAfter(new Date(NOW - 5000).toUTCString(), NOW), 0);
  assert.equal(parseRetryAfter('soon', NOW), undefined);
  assert.equal(parseRetryAfter(undefined, NOW), undefined);
});
