// The pace without headers, driven answer by answer (the simulation drives it whole:
// pace-sim.test.ts). Here: a concurrency cap's probe that the next 429 takes back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlindLearner, type Observation } from '../../src/pace/index.js';

/** Feeds one answer as the gate does (the learner keeps its own pause). */
function feed(pace: BlindLearner, o: Omit<Observation, 'inflightOthers'>): void {
  pace.observe({ inflightOthers: 0, ...o }, o.status === 429 ? (o.retryAfterMs ?? 0) : 0);
}

test('a 429 soon after the window of requests in flight grew by one takes the growth back, and leaves the rate alone', () => {
  const pace = new BlindLearner(undefined);
  // Three admitted with up to two others in flight, then a 429 with three others: a cap of 3.
  pace.onSend(0);
  for (const [sentAt, inflightAtSend] of [[0, 0], [300, 1], [600, 2]] as const) feed(pace, { at: sentAt + 40, sentAt, status: 200, inflightAtSend });
  feed(pace, { at: 1040, sentAt: 1000, status: 429, retryAfterMs: 1000, inflightAtSend: 3 });
  assert.equal(pace.window, 3);
  const rate = pace.rate;
  // A quiet minute with the window full: an answer to a request sent with two others in flight
  // probes it one wider.
  feed(pace, { at: 63_010, sentAt: 62_970, status: 200, inflightAtSend: 2 });
  assert.equal(pace.window, 4);
  const probed = pace.rate;
  // The next 429, with the window full as the server counts it — one answer still on its way back
  // is in flight there, so this request saw only two others at its send.
  pace.onSend(63_020);
  feed(pace, { at: 63_060, sentAt: 63_020, status: 429, retryAfterMs: 1000, inflightAtSend: 2 });
  assert.equal(pace.window, 3, 'the probe is taken back');
  assert.equal(pace.rate, probed, 'the rate is not cut for a cap');
  assert.ok(rate > 0);
});

test('from 100 requests a second up, a start a timer made late is made up for by the next; under it, never', async () => {
  const { PaceGate } = await import('../../src/pace/index.js');
  const nextAfterLateStart = (rate: number) => {
    const gate = new PaceGate({ random: () => 0.5 });
    gate.seedPace(rate);
    const gap = 1000 / rate;
    assert.ok('ticket' in gate.start(0, false));
    // The timer for the next slot (at one gap) fires half a gap late: that request starts then…
    assert.ok('ticket' in gate.start(1.5 * gap, false));
    // …and the one after may start one gap after the slot it missed, not one gap after it started.
    const v = gate.start(1.5 * gap, false);
    assert.ok('retryAt' in v);
    return v.retryAt / gap;
  };
  assert.ok(Math.abs(nextAfterLateStart(200) - 2) < 0.05, `200/s: ${nextAfterLateStart(200)} gaps`);
  // A bucket of one at 20/s may refuse two requests closer than its gap: no catch-up.
  assert.ok(Math.abs(nextAfterLateStart(20) - 2.5) < 0.05, `20/s: ${nextAfterLateStart(20)} gaps`);
});

/** Sends at `pace(t)` from `start` into an exact token bucket until it refuses one: a span. */
function bucketSpan(bucket: { tokens: number; at: number; rate: number; burst: number }, start: number, pace: (t: number) => number, pauseMs: number) {
  const sends: number[] = [];
  for (let t = start; ; t += 1000 / pace(t - start)) {
    bucket.tokens = Math.min(bucket.burst, bucket.tokens + ((t - bucket.at) * bucket.rate) / 1000);
    bucket.at = t;
    sends.push(t);
    if (bucket.tokens < 1) return { sends, refusedAt: t, jitterMs: 1, pauseMs };
    bucket.tokens -= 1;
  }
}

test('bucketBounds: three spans into a small bucket bound its rate to within 5 %, and the truth lies inside', async () => {
  const { bucketBounds } = await import('../../src/pace/index.js');
  for (const [rate, burst] of [[200, 20], [100, 10], [20, 2]] as const) {
    const bucket = { tokens: burst, at: 0, rate, burst };
    // Slow start: the pace doubles every 100 ms from 10/s.
    const s1 = bucketSpan(bucket, 0, (t) => 10 * 2 ** (t / 100), Infinity);
    // After a second's pause: half the pace that met the 429 (above the rate: a short span)…
    const s2 = bucketSpan(bucket, s1.refusedAt + 1000, () => 1.35 * rate, 1000);
    // …then 5 % under the rate, probing up 3 %/s: it crosses the rate and drains the bucket slowly.
    const s3 = bucketSpan(bucket, s2.refusedAt + 1000, (t) => 0.95 * rate * (1 + (0.03 * t) / 1000), 1000);
    const two = bucketBounds([s1, s2], 1.35 * rate);
    assert.ok(two !== undefined && two.rate <= rate && rate <= two.upper, `${rate}/${burst} after two spans: ${JSON.stringify(two)}`);
    const three = bucketBounds([s1, s2, s3], 1.1 * rate);
    assert.ok(three !== undefined && three.rate <= rate && rate <= three.upper, `${rate}/${burst} after three: ${JSON.stringify(three)}`);
    assert.ok(three.upper <= 1.05 * three.rate, `${rate}/${burst}: ${three.rate.toFixed(1)}..${three.upper.toFixed(1)}`);
    assert.ok(Math.abs(three.burst - burst) <= 2, `${rate}/${burst}: burst ${three.burst.toFixed(1)}`);
  }
});

test('bucketBounds: a window (the same count over spans of unequal length) leaves a bucket only a trickle of refill', async () => {
  const { bucketBounds } = await import('../../src/pace/index.js');
  // 100 per window, each span sent at a constant pace after a pause: 100 admitted, the next refused.
  const span = (start: number, pace: number, pauseMs: number) => {
    const sends = Array.from({ length: 101 }, (_, i) => start + (i * 1000) / pace);
    return { sends, refusedAt: sends[100] as number, jitterMs: 1, pauseMs };
  };
  const s1 = span(0, 400, Infinity);
  const s2 = span(1300, 250, 1000);
  const s3 = span(2800, 150, 1000);
  const b = bucketBounds([s1, s2, s3], 400);
  assert.ok(b === undefined || b.rate < 0.4 * 150, JSON.stringify(b));
});

test('bucketBounds: the rates that fit can be two stretches; the bound from above comes from the higher one', async () => {
  const { bucketBounds } = await import('../../src/pace/index.js');
  // The first two spans against a bucket of one at 20/s in the simulation (seed 7): slow start's
  // five requests (the fifth refused), and after a second's pause two (the second refused, 32 ms
  // after the first). A bucket of four that refills a tenth of a request a second fits them, and so
  // does the real one; rates between do not. Read as one stretch from the least, the bound from
  // above was 1.94/s — and a small bucket's pace is held under that bound.
  const spans = [
    { sends: [0, 100.19, 150.94, 244.72, 263.69], refusedAt: 263.69, jitterMs: 1.42, pauseMs: Infinity },
    { sends: [1264.41, 1296.75], refusedAt: 1296.75, jitterMs: 1, pauseMs: 1000 },
  ];
  const b = bucketBounds(spans, 21.9);
  assert.ok(b !== undefined && b.rate <= 20, JSON.stringify(b));
  assert.ok(b.upper >= 20, `the rate is 20, the bound from above says under ${b.upper.toFixed(2)}`);
});

test('after a pause, a 429 that calls for no new pause (Retry-After 0) frees its place: the next request is not held for good', async () => {
  // Found in review: the cap after a pause (restartCap) counted such a 429 neither admitted nor
  // failed, and with nothing left in flight nothing would ever wake the held requests.
  const { PaceGate } = await import('../../src/pace/index.js');
  const gate = new PaceGate({ random: () => 0.5 });
  const start = (now: number) => {
    const v = gate.start(now, false);
    assert.ok('ticket' in v, `a request may start at ${now} ms: ${JSON.stringify(v)}`);
    return v.ticket;
  };
  // A span that admitted nothing: the cap after its pause is one request.
  gate.finish(start(0), { status: 429, retryAfterMs: 1000 }, 10);
  const r1 = start(1010);
  gate.finish(r1, { status: 429, retryAfterMs: 0 }, 1010);
  // Nothing is in flight: the next request starts once the pace allows, not "when an answer comes".
  let now = 1010;
  let v = gate.start(now, false);
  for (let i = 0; i < 20 && 'retryAt' in v; i++) {
    assert.ok(!v.onFinish, `held for an answer that will never come, at ${now} ms`);
    now = v.retryAt;
    v = gate.start(now, false);
  }
  assert.ok('ticket' in v && now < 5000, `started at ${now} ms`);
});


test('an echo 429 that calls for a shorter pause leaves the pause as it was: two spans after pauses of a second read as a window', () => {
  // Found in review: every 429 rewrote the pause's length, an echo (sent before the pause) too.
  // One with Retry-After 0.1 s made the next span one "after a pause of 100 ms", and the window
  // its equal count shows was not read (nor the burst after a pause sized by the right length).
  const pace = new BlindLearner(undefined);
  const answer = (sentAt: number, status: number, retryAfterMs?: number) => feed(pace, { at: sentAt + 0.5, sentAt, status, retryAfterMs, inflightAtSend: 0 });
  // Ten admitted over 1.4 s, then ten at once after the pause: a bucket would have admitted more in
  // the longer span (what dripped in), so equal counts are a window's.
  for (let t = 0; t < 1400; t += 140) {
    pace.onSend(t);
    answer(t, 200);
  }
  pace.onSend(1400);
  pace.onSend(1400.2);
  answer(1400, 429, 1000);
  answer(1400.2, 429, 100); // the echo
  for (let t = 2401; t < 2411; t += 1) {
    pace.onSend(t);
    answer(t, 200);
  }
  pace.onSend(2411);
  answer(2411, 429, 1000);
  assert.equal(pace.burstAfter(), 9, 'a window of 10 recognised: 9 go at once after the pause');
});

/**
 * Spans sent at a steady pace into fixed windows of `quota` per `windowMs` starting at `phase`
 * (by arrival, each request `oneWay(i)` ms on the wire each way), each until its first refusal.
 */
function gridSpans(quota: number, windowMs: number, phase: number, runs: Array<[from: number, pace: number]>, oneWay: (i: number) => number, back: (i: number) => number = oneWay, unansweredMs = 0) {
  const used = new Map<number, number>();
  let n = 0;
  return runs.map(([from, pace]) => {
    const sp = { sends: [] as number[], admits: [] as Array<{ sentAt: number; rtt: number }>, refusedAt: Number.NaN, refusedRttMs: 0 };
    for (let t = from; ; t += 1000 / pace) {
      const i = n++;
      const d = oneWay(i);
      const k = Math.floor((t + d - phase) / windowMs);
      const c = used.get(k) ?? 0;
      sp.sends.push(t);
      if (c >= quota) {
        sp.refusedAt = t;
        sp.refusedRttMs = d + back(i);
        // Answers to the last requests before the refused one may not have come yet.
        sp.admits = sp.admits.filter((a) => a.sentAt < t - unansweredMs);
        return sp;
      }
      used.set(k, c + 1);
      sp.admits.push({ sentAt: t, rtt: d + back(i) });
    }
  });
}

test('fixedGridQuota: spans that ran across fixed windows’ ends give the quota from their phase; never more than it, and a bucket no window', async () => {
  const { fixedGridQuota } = await import('../../src/pace/index.js');
  const wire = (i: number) => 10 + ((i * 7919) % 5);
  // 50 per second from 300 ms past each second: spans that admitted 94, 50 and 64 — no two equal
  // counts, as rule 5 would need.
  const spans = gridSpans(50, 1000, 300, [[1750, 80], [3800, 130], [6100, 70]], wire);
  assert.deepEqual(spans.map((s) => s.admits.length), [94, 50, 64]);
  assert.equal(fixedGridQuota(spans, 1000), 50);
  // Whatever the phase and the paces, a quota read is the truth or a little under it (one too many
  // would meet a 429 each window); spans at alike paces may fit a band of quotas, and read none.
  let read = 0;
  for (let k = 0; k < 40; k++) {
    const quota = 20 + ((k * 37) % 180);
    const pace = (j: number) => quota * (1.05 + (((k + 3) * (j + 5) * 13) % 100) / 100);
    const runs: Array<[number, number]> = [0, 1, 2, 3].map((j) => [j * 2500 + ((k * 131 + j * 337) % 1000), pace(j)]);
    const q = fixedGridQuota(gridSpans(quota, 1000, (k * 97) % 1000, runs, wire), 1000);
    if (q !== undefined) read += 1;
    assert.ok(q === undefined || (q <= quota && q >= 0.95 * quota), `quota ${quota}, case ${k}: read ${q}`);
  }
  assert.ok(read >= 30, `a window read in ${read} cases of 40`);
  // The same over a wire whose delays differ each way, with a request now and then 80 ms late on
  // the way out, and the answers to what went in the last 15 ms before each refusal not come yet.
  const out = (i: number) => 5 + ((i * 7919) % 9) + (i % 37 === 0 ? 80 : 0);
  let readUneven = 0;
  for (let k = 0; k < 40; k++) {
    const quota = 20 + ((k * 37) % 180);
    const pace = (j: number) => quota * (1.05 + (((k + 3) * (j + 5) * 13) % 100) / 100);
    const runs: Array<[number, number]> = [0, 1, 2, 3].map((j) => [j * 2500 + ((k * 131 + j * 337) % 1000), pace(j)]);
    const q = fixedGridQuota(gridSpans(quota, 1000, (k * 97) % 1000, runs, out, () => 10, 15), 1000);
    if (q !== undefined) readUneven += 1;
    assert.ok(q === undefined || (q <= quota && q >= 0.95 * quota), `uneven wire, quota ${quota}, case ${k}: read ${q}`);
  }
  assert.ok(readUneven >= 10, `over the uneven wire, a window read in ${readUneven} cases of 40`);
  // A token bucket's spans at the same paces.
  for (const [rate, burst] of [[40, 20], [50, 50], [60, 10], [30, 40]] as Array<[number, number]>) {
    const bucket = { tokens: burst, at: 0, rate, burst };
    const bucketRuns = [[1650, 80], [3700, 120], [5950, 70]].map(([from, p]) => {
      const sp = { sends: [] as number[], admits: [] as Array<{ sentAt: number; rtt: number }>, refusedAt: Number.NaN, refusedRttMs: 20 };
      for (let t = from as number; ; t += 1000 / (p as number)) {
        bucket.tokens = Math.min(burst, bucket.tokens + ((t - bucket.at) * rate) / 1000);
        bucket.at = t;
        sp.sends.push(t);
        if (bucket.tokens < 1) {
          sp.refusedAt = t;
          return sp;
        }
        bucket.tokens -= 1;
        sp.admits.push({ sentAt: t, rtt: 20 });
      }
    });
    assert.equal(fixedGridQuota(bucketRuns, 1000), undefined, `bucket ${rate}/s, burst ${burst}`);
  }
});
