// Keeps `npm run bench` working: a seconds-long run of its sections. No figure is asserted —
// speed is measured by the benchmark, never by a test — only that each section ran and reported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { smoke } from '../helpers/bench.js';
import { redisOrSkip } from '../helpers/redis.js';

test('bench/run.mjs --smoke runs every section and prints its tables', async () => {
  const out = await smoke('--only=pace,unthrottled,dryrun,startup,listing,bulk');
  for (const section of ['## 1. Pace', '## 2. Unthrottled', '## 3. Dry run', '## 4. Start-up', '## 5. Listing', '## 7. Bulk jobs']) assert.ok(out.includes(section), `${section} missing`);
  // The pace row, callctl's share beside a client told the limit (bench/oracle.mjs).
  assert.match(out, /\| server's limiter \| none: share \/ 429s \| told the limit: share \/ 429s \|/);
  assert.match(out, /\| token bucket 40\/s, burst 10 \| [\d.]+ % \/ [\d.]+ % \| [\d.]+ % \/ [\d.]+ % \|/);
});

// The shared-budget section needs a Redis (the tests' own, helpers/redis.ts): three imports on one
// key, against a bucket and a window.
const { url: redisUrl, skip } = await redisOrSkip();
test('bench/run.mjs --smoke --only=shared runs three imports on one Redis budget per row', { skip }, async () => {
  const out = await smoke('--only=shared', { CALLCTL_BENCH_REDIS_URL: redisUrl as string });
  assert.ok(out.includes('## 6. Shared budget'), out);
  // Each row: its share of the limit, and every row of the three imports stored exactly once.
  assert.match(out, /\| token bucket 60\/s, burst 10 \| draft6 \| one budget on Redis \| 3 × 30 \| [\d.]+ s \| [\d.]+ % \| [\d.]+ % \| yes \|/);
  assert.match(out, /\| fixed window, 30 per 1 s \| none \| one budget on Redis \| 3 × 30 \| [\d.]+ s \| [\d.]+ % \| [\d.]+ % \| yes \|/);
});
