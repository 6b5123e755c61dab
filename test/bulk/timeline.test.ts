// The timeline a journal keeps (src/bulk/timeline.ts), on an injected clock: answers counted per
// second, a 429's Retry-After counted as pause, buckets twice as wide after a cap so a day-long
// job stays small, and the chart's columns holding every request the buckets hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Bucket, bucketOf, CAP, resample, TimelineRecorder } from '../../src/bulk/timeline.js';

const T0 = Date.UTC(2026, 0, 1);

test('answers by the second; a 429 counts as throttled and its Retry-After as pause; the last bucket is cut where the job ends', () => {
  let pace = 5;
  const rec = new TimelineRecorder({ jobStart: T0, runStart: T0, pace: () => pace });
  rec.seen({ at: T0 + 100, status: 201 });
  rec.seen({ at: T0 + 900, status: 200 });
  rec.seen({ at: T0 + 1200, status: 429, retryAfterMs: 2500 });
  rec.seen({ at: T0 + 1300, status: undefined }); // a failed attempt: neither admitted nor 429
  pace = 3;
  rec.seen({ at: T0 + 3800, status: 201 });
  assert.deepEqual(rec.take(T0 + 3900), [
    [0, 1, 2, 0, 0, 5],
    [1, 1, 0, 1, 800, 3],
    [2, 1, 0, 0, 1000, 3],
  ]);
  assert.deepEqual(rec.take(T0 + 4250, true), [
    [3, 1, 1, 0, 700, 3],
    [4, 0.25, 0, 0, 0, 3],
  ]);
  assert.deepEqual(rec.take(T0 + 5000, true), [[4.25, 0.75, 0, 0, 0, 3]], 'each bucket given once');
});

test('a resumed run counts from the job\'s first start; past the cap, buckets are twice as wide', () => {
  const rec = new TimelineRecorder({ jobStart: T0, runStart: T0 + 3_600_000, cap: 3 });
  for (let s = 0; s < 12; s++) rec.seen({ at: T0 + 3_600_000 + s * 1000 + 10, status: 201 });
  const rows = rec.take(T0 + 3_600_000 + 13_000);
  assert.deepEqual(rows.map((r) => [r[0], r[1]]), [[3600, 1], [3601, 1], [3602, 1], [3603, 2], [3605, 2], [3607, 2], [3609, 4]]);
  assert.deepEqual(rows.map((r) => r[2]), [1, 1, 1, 2, 2, 2, 3]);
});

test('a day-long job at 10 requests per second: a few thousand buckets, every request in them', () => {
  const rec = new TimelineRecorder({ jobStart: T0, runStart: T0 });
  const rows: number[][] = [];
  for (let ms = 0; ms < 86_400_000; ms += 100) {
    rec.seen({ at: T0 + ms, status: ms % 60_000 === 0 ? 429 : 201, retryAfterMs: 1000 });
    if (ms % 2000 === 0) rows.push(...rec.take(T0 + ms));
  }
  rows.push(...rec.take(T0 + 86_400_000, true));
  assert.ok(rows.length <= 7 * CAP, `${rows.length} buckets`);
  assert.ok(JSON.stringify(rows).length < 300_000, `${JSON.stringify(rows).length} bytes`);
  assert.equal(rows.reduce((s, r) => s + (r[2] as number), 0), 864_000 - 1440);
  assert.equal(rows.reduce((s, r) => s + (r[3] as number), 0), 1440);
  assert.equal(rows.reduce((s, r) => s + (r[1] as number), 0), 86_400);
  assert.equal(rows.reduce((s, r) => s + (r[4] as number), 0), 1440 * 1000, 'every pause, whole');
});

test('the chart\'s columns hold what the buckets hold; the time between two runs is left out and marked', () => {
  const rows = [
    [0, 1, 10, 0, 0],
    [1, 1, 4, 2, 600],
    [2, 2, 20, 0, 0],
    // resumed an hour later
    [3600, 1, 8, 1, 1000, 7.5],
    [3601, 0.5, 3, 0, 0, 7.5],
  ];
  const buckets = rows.map((r) => bucketOf(r)).filter((b): b is Bucket => b !== undefined);
  for (const n of [1, 3, 7, 11, 100]) {
    const { columns, seconds } = resample(buckets, n);
    assert.equal(seconds, 5.5);
    assert.equal(columns.length, n);
    const span = seconds / n;
    assert.ok(Math.abs(columns.reduce((s, c) => s + c.rate * span, 0) - 45) < 1e-9, `${n} columns: every admitted request`);
    assert.equal(columns.reduce((s, c) => s + c.throttled, 0), 3);
    assert.ok(Math.abs(columns.reduce((s, c) => s + c.paused * span, 0) - 1.6) < 1e-9, `${n} columns: every pause`);
    if (n >= 11) assert.equal(columns.findIndex((c) => c.resumed), Math.floor(4 / span), 'the resume is marked where the second run starts');
  }
  assert.equal(bucketOf([1, 0, 1, 1, 1]), undefined, 'a bucket of no width is not one');
  assert.equal(bucketOf(['x', 1, 1, 1, 1] as unknown as number[]), undefined);
});

test('every pause of the limiter is marked: a 429 without Retry-After is paused for as long as the limiter paused, not a guess', () => {
  const rec = new TimelineRecorder({ jobStart: T0, runStart: T0 });
  // A 429 that said nothing, and the 8-s pause the limiter made after it; then a 50-ms probe's pause.
  rec.seen({ at: T0 + 500, status: 429 });
  rec.seen({ at: T0 + 500, pauseMs: 8000 });
  rec.seen({ at: T0 + 9000, status: 429 });
  rec.seen({ at: T0 + 9000, pauseMs: 50 });
  const rows = rec.take(T0 + 10_000, true);
  assert.deepEqual(rows.map((r) => r[4]), [500, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 500, 50]);
  assert.equal(rows.reduce((s, r) => s + (r[3] as number), 0), 2, 'two 429s');
});
