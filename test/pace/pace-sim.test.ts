// The pacing, proven on a virtual clock: callctl's own gate and pacer against the sandbox's own
// limiter in every shape and header form, a 30-second import each (docs/pacing.md), with the
// jitter, late timers and event-loop stalls of a loaded machine modelled. No wall clock: a test
// fails because the pacing changed, never because the machine was slow.
//
// The floors are what the pacing reaches today, set a little under the figures (BENCHMARKS.md
// has the table); where they sit under the goal of 95 % of the limit, the reason is in
// docs/pacing.md ("Bounds"). A change that makes any shape slower, or costs more 429s, fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simulate, type SimServer } from '../helpers/pace-sim.js';
import type { PaceGate } from '../../src/pace/index.js';

interface Case {
  name: string;
  server: Omit<SimServer, 'headers'>;
  /** Least share of the ideal wall time, without headers and with each header form. */
  blind: number;
  headers: number;
}

const cases: Case[] = [
  { name: 'bucket 200/s, burst 20', server: { shape: 'bucket', rate: 200, burst: 20 }, blind: 0.88, headers: 0.98 },
  { name: 'bucket 20/s, burst 1', server: { shape: 'bucket', rate: 20, burst: 1 }, blind: 0.84, headers: 0.84 },
  { name: 'bucket 5/s, burst 1', server: { shape: 'bucket', rate: 5, burst: 1 }, blind: 0.82, headers: 0.82 },
  { name: 'bucket 50/s, burst 50', server: { shape: 'bucket', rate: 50, burst: 50 }, blind: 0.96, headers: 0.98 },
  { name: 'bucket 100/s, burst 300', server: { shape: 'bucket', rate: 100, burst: 300 }, blind: 0.95, headers: 0.98 },
  // A second's refill, the commonest setting: each pause's refill goes at once (burstAfter).
  { name: 'bucket 10/s, burst 10', server: { shape: 'bucket', rate: 10, burst: 10 }, blind: 0.97, headers: 0.97 },
  // Half a second's: with draft 6 and X-, whole tokens counted once as dripped in over 30 ms (the
  // refill's lower bound) mirrored it at 65 a second, with a 429 each second (90–91 %).
  { name: 'bucket 40/s, burst 20', server: { shape: 'bucket', rate: 40, burst: 20 }, blind: 0.9, headers: 0.97 },
  // With headers, a log (docs/pacing.md rule 7) since stop 26 for RateLimit-Limit and X- too: 0.93 → 0.95.
  { name: 'fixed window, 100 per 1 s', server: { shape: 'window', rate: 100, windowMs: 1000 }, blind: 0.92, headers: 0.95 },
  // 0.91 without headers: on seed 1 two equal spans are first read as a bucket's (see the small-burst
  // test below), which delays the window's burst by one span — 0.35 s of a 13-s import.
  { name: 'fixed window, 300 per 10 s', server: { shape: 'window', rate: 30, windowMs: 10_000 }, blind: 0.91, headers: 0.9 },
  { name: 'fixed window, 1200 per 60 s', server: { shape: 'window', rate: 20, windowMs: 60_000 }, blind: 0.95, headers: 0.97 },
  { name: 'sliding window, 100 per 1 s', server: { shape: 'sliding', rate: 100, windowMs: 1000 }, blind: 0.94, headers: 0.97 },
  { name: 'sliding window, 300 per 10 s', server: { shape: 'sliding', rate: 30, windowMs: 10_000 }, blind: 0.92, headers: 0.97 },
  { name: 'at most 3 in flight, 40 ms each', server: { shape: 'concurrency', rate: 0, maxInflight: 3, latencyMs: 40 }, blind: 0.92, headers: 0.92 },
  { name: 'at most 2 in flight, 100 ms each', server: { shape: 'concurrency', rate: 0, maxInflight: 2, latencyMs: 100 }, blind: 0.94, headers: 0.94 },
];

for (const c of cases) {
  test(`pace, no headers: ${c.name}`, () => {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ ...c.server, headers: 'none' }, { seed });
      assert.ok(r.share >= c.blind, `seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal (floor ${c.blind * 100} %)`);
      // 5/s is 150 rows in 30 s: the three or four 429s discovery costs are over 2 % on their own.
      assert.ok(r.rows < 500 ? r.throttled <= 4 : r.share429 <= 0.012, `seed ${seed}: ${r.throttled} 429s, ${(r.share429 * 100).toFixed(2)} % of requests`);
    }
  });
  for (const headers of ['draft6', 'draft8', 'x'] as const) {
    test(`pace, ${headers} headers: ${c.name}`, () => {
      const floor = headers === 'draft8' ? Math.max(c.headers, 0.9) : c.headers;
      for (const seed of [1, 2, 3]) {
        const r = simulate({ ...c.server, headers }, { seed });
        assert.ok(r.share >= floor, `seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal (floor ${floor * 100} %)`);
        assert.ok(r.rows < 500 ? r.throttled <= 4 : r.share429 <= 0.011, `seed ${seed}: ${r.throttled} 429s, ${(r.share429 * 100).toFixed(2)} % of requests`);
      }
    });
  }
}

test('once the limit is found, the pace holds at 97 % of it or more (94 % under a concurrency cap, whose window is probed each minute)', () => {
  for (const [server, floor] of [
    [{ shape: 'bucket', rate: 50, burst: 50 }, 0.97],
    [{ shape: 'bucket', rate: 100, burst: 300 }, 0.97],
    [{ shape: 'concurrency', rate: 0, maxInflight: 3, latencyMs: 40 }, 0.94],
  ] as const) {
    const r = simulate({ ...server, headers: 'none' }, { seconds: 60 });
    assert.ok(r.sustained >= floor, `${server.shape}: sustained ${(r.sustained * 100).toFixed(1)} %`);
  }
});

test('a bucket with a small burst, without headers: two spans fit its rate, and the pace holds at 98 % of the limit or more', () => {
  // Each span after a pause admits what the pause refilled plus what dripped in (A = b + r·T):
  // two of them give the rate exactly, and the burst, which lets late timers be made up for. The
  // rate admitted over one span alone (the rule before) also counted some of the burst.
  for (const server of [
    { shape: 'bucket', rate: 200, burst: 20 },
    { shape: 'bucket', rate: 100, burst: 10 },
  ] as const) {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ ...server, headers: 'none' }, { seconds: 60, seed });
      assert.ok(r.sustained >= 0.98, `${server.rate}/${server.burst}, seed ${seed}: sustained ${(r.sustained * 100).toFixed(1)} %`);
      assert.ok(r.share429 <= 0.002, `${server.rate}/${server.burst}, seed ${seed}: ${r.throttled} 429s of ${r.requests}`);
    }
  }
});

test('a bucket with a small burst, without headers: found with three 429s — the slow start, one that brackets it, one that pins it', () => {
  // Every span bounds the bucket (bucketBounds): the least rate that could have admitted what it
  // admitted, the most that could have refused what it refused. Once they agree within 5 %, the pace
  // holds under the least. Before, a fourth to eighth 429 came: two spans that happened to admit the
  // same count were taken for a window (a burst into a bucket of 10), and two further spans were
  // needed for the fit.
  for (const server of [
    { shape: 'bucket', rate: 200, burst: 20 },
    { shape: 'bucket', rate: 100, burst: 10 },
    { shape: 'bucket', rate: 50, burst: 5 },
  ] as const) {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ ...server, headers: 'none' }, { seed });
      assert.ok(r.throttled <= 3, `${server.rate}/${server.burst}, seed ${seed}: ${r.throttled} 429s`);
      assert.ok(r.share >= 0.885, `${server.rate}/${server.burst}, seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal`);
    }
  }
  // Two minutes: the probe's 429 (about one a minute and a half) must not be read as a window's
  // quota from the early spans' equal counts once the long span between them is left out of the
  // bounds (it was: seed 2 then met seven 429s and held 94.8 %).
  for (const seed of [1, 2, 3]) {
    const r = simulate({ shape: 'bucket', rate: 200, burst: 20, headers: 'none' }, { seed, seconds: 120 });
    assert.ok(r.throttled <= 4, `120 s, seed ${seed}: ${r.throttled} 429s`);
    assert.ok(r.sustained >= 0.97, `120 s, seed ${seed}: sustained ${(r.sustained * 100).toFixed(1)} %`);
  }
});

test('a bucket that holds what a pause refills, without headers: the refill goes at once after each pause, the pace at the rate, and few 429s', () => {
  // Left to the pace by span, such a bucket met a 429 each time it ran dry (10/s burst 10: 4.5 % of
  // requests; 4/s burst 40: 14 %; 10/s burst 30: 8 %), or, paced at its measured rate, lost each
  // pause whole (50/s burst 50: 95.5 %): what the pause refilled was never spent.
  for (const [rate, burst] of [[10, 10], [4, 40], [10, 30], [25, 100], [50, 50]] as const) {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ shape: 'bucket', rate, burst, headers: 'none' }, { seed });
      assert.ok(r.share >= 0.97, `${rate}/${burst}, seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal`);
      assert.ok(r.throttled <= 4, `${rate}/${burst}, seed ${seed}: ${r.throttled} 429s of ${r.requests}`);
    }
  }
});

test('a bucket of 5 refilling 10 a second is no window of 5 or 6, and no cap is read from a burst', () => {
  // Its quick spans after pauses admit 5 or 6, as a window's would. Read as a window, the quota once
  // went at once after every pause with a 429 to end it, and the 429 after one such burst was read
  // as a cap of 3 that set the pace free: 65 % of the limit, one request in ten a 429. Then the
  // log's first 429 ended the reading (88 %, 5–6 429s); now counts under 10 that differ by one are
  // no window's at all.
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    const r = simulate({ shape: 'bucket', rate: 10, burst: 5, headers: 'none' }, { seed });
    assert.ok(r.share >= 0.9, `seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal`);
    assert.ok(r.throttled <= 4, `seed ${seed}: ${r.throttled} 429s of ${r.requests}`);
  }
});

test('over a real network (40 ms each way, the default 4 in flight), a 429 is not multiplied by the round trip', () => {
  // On loopback an answer comes back before the next request leaves; 40 ms away, a round trip's
  // worth of requests has left before the 429 that ends a span comes back, and each met a 429 too.
  // After each pause now no more go than the span before admitted, until that many are admitted;
  // a span that was one burst sets the pace by its refill per pause, not by 70 % steps from slow
  // start's pace; and the pace grows only while it holds requests back, not while --concurrency
  // does. Before: 52–60 429s on 4/s burst 40 and 10/s burst 10, 65–80 % on 10/s burst 5.
  const wire = { min: 40, spread: 5 };
  for (const [rate, burst] of [[4, 40], [10, 10], [10, 5]] as const) {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ shape: 'bucket', rate, burst, headers: 'none' }, { seed, wire });
      assert.ok(r.throttled <= 12, `${rate}/${burst}, seed ${seed}: ${r.throttled} 429s of ${r.requests}`);
      assert.ok(r.share >= 0.85, `${rate}/${burst}, seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal`);
    }
  }
  // With --concurrency 8, a round trip's worth is eight: 80 ms away, 10/s burst 5 held 42–51 % and
  // 4/s burst 40 met 22 429s without the cap after a pause, the burst's reading, or the most in
  // flight ever admitted (a span's first few are admitted with few in flight, and the 429 after
  // them was read as a cap that set the pace free).
  // (10/s burst 5 over 80 ms: 75 % on seed 1 — its refill per pause is half its rate, and the probe
  // climbs from there at 3 % a second.)
  for (const [rate, burst, w, most429, least] of [[10, 5, { min: 80, spread: 10 }, 24, 0.72], [10, 10, { min: 40, spread: 5 }, 24, 0.9], [4, 40, { min: 80, spread: 10 }, 18, 0.9]] as const) {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ shape: 'bucket', rate, burst, headers: 'none' }, { seed, wire: w, concurrency: 8 });
      assert.ok(r.throttled <= most429 && r.share >= least, `--concurrency 8, ${rate}/${burst} over ${w.min} ms, seed ${seed}: ${(r.share * 100).toFixed(1)} %, ${r.throttled} 429s`);
    }
  }
  // 4 in flight over 85-ms round trips send 47 a second at most: a window of 100 never refuses,
  // and the pace must not have doubled on and on meanwhile (it reached 10^180).
  const bound = simulate({ shape: 'window', rate: 100, windowMs: 1000, headers: 'none' }, { wire });
  assert.equal(bound.throttled, 0);
  assert.ok(bound.pace < 1000, `pace ${bound.pace.toExponential(2)}/s`);
});

test('a small bucket over a real network: equal counts from bursts after pauses are no window that would hold it under its rate', () => {
  // 20–60 ms away, each span after a pause is one burst of what the span before admitted plus
  // one, and a small bucket admits its size and a token of refill each time: equal counts, over
  // spans of alike lengths, that any refill from a few a second to the bucket's own fits. Read as
  // a window of that count per second, the log held the import to it with no 429 ever to say so:
  // 23–50 % of the limit for the whole import (14 of 150 such cells).
  for (const [rate, burst, wireMs, concurrency] of [[15, 3, 40, 4], [15, 4, 20, 4], [20, 5, 40, 8], [12, 5, 60, 8]] as const) {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ shape: 'bucket', rate, burst, headers: 'none' }, { seed, concurrency, wire: { min: wireMs, spread: 2 } });
      assert.ok(!r.anchored && r.share >= 0.82, `${rate}/${burst} over ${wireMs} ms with ${concurrency} in flight, seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal${r.anchored ? ', kept to as a window' : ''}`);
    }
  }
  // Three such spans, each exactly one count, are a window only when one was refused too late for a
  // bucket the log would hold back: 40–50 ms away with 8 in flight, a bucket of 3 refilling 12 a
  // second admitted 4 after each of three pauses, was read as a window of 4 per second, and ran at
  // 30 % of what 8 in flight allow for the whole import.
  const wire = { min: 40, spread: 10 };
  for (const seed of [2, 3]) {
    const r = simulate({ shape: 'bucket', rate: 12, burst: 3, headers: 'none' }, { seed, concurrency: 8, wire });
    assert.ok(!r.anchored && r.share >= 0.75, `12/3 over 40–50 ms with 8 in flight, seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal${r.anchored ? ', kept to as a window' : ''}`);
  }
  // Small windows are still read as windows (a span later than before, once equal counts over
  // unequal lengths leave no bucket fast enough to outrun them three times): ruling out any bucket
  // that outran the quota at all had held a fixed window of 5 per second over 5 ms at 74 %.
  for (const [shape, quota, wireMs, least] of [['sliding', 10, 0.1, 0.95], ['window', 5, 5, 0.92], ['sliding', 5, 5, 0.94]] as const) {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ shape, rate: quota, windowMs: 1000, headers: 'none' }, { seed, wire: { min: wireMs, spread: wireMs < 1 ? 0.6 : 2 } });
      assert.ok(r.anchored && r.share >= least, `${shape} ${quota} per 1 s over ${wireMs} ms, seed ${seed}: ${(r.share * 100).toFixed(1)} %${r.anchored ? '' : ', not read as a window'}`);
    }
  }
});

test('a window over a wire: its log credits half the shortest round trip, so each quota starts less late', () => {
  // A quota's answers come back a way back after the server counted them, and a request leaving
  // now reaches it a way there later: timed from the answers alone, each 1-s window's quota started
  // a round trip late, 120–140 ms in every second over a wire of 60–70 ms (sliding 5 per 1 s
  // without headers 85–86 %, 10 per 1 s with draft 6 84 %, with draft 8 85 %).
  const wire = { min: 60, spread: 10 };
  for (const [quota, headers] of [[5, 'none'], [10, 'draft6'], [10, 'draft8']] as const) {
    for (const seed of [1, 2]) {
      const r = simulate({ shape: 'sliding', rate: quota, windowMs: 1000, headers }, { seed, wire, concurrency: 8 });
      assert.ok(r.anchored && r.share >= 0.87, `sliding ${quota} per 1 s ${headers}, seed ${seed}: ${(r.share * 100).toFixed(1)} %${r.anchored ? '' : ', not kept to a log'}`);
    }
  }
});

test('a fixed window of 50 per 2 s, without headers: its equal counts are not paced as a bucket the bounds can fit them to', () => {
  // Two spans after pauses that admit the same count are a window's as well as a big bucket's: a
  // bucket's bounds (with the wire's slack) fitted 22 a second, and paced there the window was
  // never recognised (63–79 %).
  for (const seed of [1, 2, 3]) {
    const r = simulate({ shape: 'window', rate: 25, windowMs: 2000, headers: 'none' }, { seed });
    assert.ok(r.share >= 0.88, `seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal`);
    assert.ok(r.share429 <= 0.02, `seed ${seed}: ${r.throttled} 429s of ${r.requests}`);
  }
});

test('a bucket of 40 refilling 2 a second with draft 6 or X- headers: a refill misread as nothing is not waited out until the bucket is full', () => {
  // Answers that overtook each other can make the measured refill nothing; with no credit left the
  // mirror then waited for the reset — for a bucket, when it is full: 20 s (47 % of the limit on
  // seed 2). A 429 asking back within a second while the reset is 20 s away proves a bucket, and
  // the refill it lacks over that time.
  for (const headers of ['draft6', 'x'] as const) {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ shape: 'bucket', rate: 2, burst: 40, headers }, { seed });
      assert.ok(r.share >= 0.9, `${headers}, seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal`);
    }
  }
});

test('the bucket bounds never run the pace away: over a jittery wire, and for three processes on one budget', async () => {
  // Found in review: a coarse search stepped over the narrow stretch of rates that fit and landed on
  // a false one above it (a bucket of one or two at a high rate, refusing only through the jitter's
  // slack), and the pace was then raised above the one that had just met a 429 — three processes on
  // 80/s burst 8 reached 29.7 % with 76 429s, one process on 50/s burst 5 over a 2–12 ms wire 72 %.
  for (const [rate, burst] of [[50, 5], [100, 10], [200, 20]] as const) {
    for (const wire of [{ min: 1, spread: 5 }, { min: 2, spread: 10 }]) {
      for (const seed of [1, 2, 3]) {
        const r = simulate({ shape: 'bucket', rate, burst, headers: 'none' }, { seed, concurrency: 8, wire });
        // (0.8: the pacer before the bounds gave 80.7 % on 100/10 over 2–12 ms, seed 3, and so does
        // this one; the others are at 85–90 %.)
        assert.ok(r.share >= 0.8 && r.throttled <= 12, `${rate}/${burst}, wire ${wire.min}+${wire.spread} ms, seed ${seed}: ${(r.share * 100).toFixed(1)} %, ${r.throttled} 429s`);
      }
    }
  }
  const { simulateShared } = await import('../helpers/shared-sim.js');
  for (const [rate, burst] of [[80, 8], [120, 10], [100, 10], [200, 20]] as const) {
    for (const wire of [undefined, { min: 1, spread: 5 }]) {
      for (const seed of [1, 2, 3]) {
        const r = simulateShared({ processes: 3, rowsEach: rate * 10, rate, burst, headers: 'none', seed, wire });
        const n429 = Math.round(r.share429 * r.requests);
        // (One gate grants every process's starts, so three processes of 8 in flight meet what one
        // process of 24 does over the jittery wire: 4–8 429s in ~3,000 requests, 0.3 %. 0.8 as for
        // one process: 100/10 over the jittery wire holds 80.4 % on seed 1 since the two-span fit
        // went — it gained that cell 1.6 points and cost the hunt's bucket of one up to 24.)
        assert.ok(r.share >= 0.8 && n429 <= (wire ? 9 : 5), `shared ${rate}/${burst}, seed ${seed}: ${(r.share * 100).toFixed(1)} %, ${n429} 429s`);
      }
    }
  }
});

test('a concurrency cap shrinks the requests in flight instead of the rate', () => {
  for (const seed of [1, 2, 3]) {
    const capped = simulate({ shape: 'concurrency', rate: 0, maxInflight: 3, latencyMs: 40, headers: 'none' }, { concurrency: 8, seed });
    // With 8 allowed and 3 admitted, a rate cut alone would keep meeting 429s; and the requests
    // already waiting when the cap was found must keep to it too (one 429 then, not two).
    assert.ok(capped.throttled <= 1, `seed ${seed}: ${capped.throttled} 429s`);
    assert.ok(capped.share >= 0.92, `seed ${seed}: ${(capped.share * 100).toFixed(1)} %`);
  }
});

test('a concurrency cap over a wire: the window spans the round trip, not the server\'s cap alone', () => {
  // A request holds a place on the server for its service time, and one here for the whole round
  // trip: a window of the cap itself left the server idle while answers travelled (a cap of 2
  // taking 100 ms, 60–70 ms away: 71 %; a cap of 3 taking 40 ms, 8 in flight: 83 %). Each figure is
  // against what the cap and the requests in flight over that wire allow together.
  const wire = { min: 60, spread: 10 };
  for (const [maxInflight, latencyMs, concurrency, least] of [[2, 100, 4, 0.8], [3, 40, 8, 0.88]] as const) {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ shape: 'concurrency', rate: 0, maxInflight, latencyMs, headers: 'none' }, { concurrency, seed, wire });
      assert.ok(r.share >= least && r.share429 <= 0.02, `cap ${maxInflight} @ ${latencyMs} ms, ${concurrency} in flight, seed ${seed}: ${(r.share * 100).toFixed(1)} %, ${r.throttled} 429s of ${r.requests}`);
    }
  }
});

test('--rate is a ceiling the pace never passes, even on a server that would take more — and says so in its headers', () => {
  for (const headers of ['none', 'draft6', 'draft8', 'x'] as const) {
    const r = simulate({ shape: 'bucket', rate: 1000, burst: 1000, headers }, { rows: 300, ceiling: 50 });
    const rate = r.rows / (r.wallMs / 1000);
    assert.ok(rate <= 51, `${headers}: ${rate.toFixed(1)} rows/s`);
    assert.ok(rate >= 45, `${headers}: ${rate.toFixed(1)} rows/s`);
    assert.equal(r.throttled, 0);
  }
});

test('a 429 without Retry-After is probed at a short interval, and the import still ends', () => {
  // A bucket whose Retry-After is stripped: only the probes (B10) remain.
  const r = simulate({ shape: 'bucket', rate: 20, burst: 5, headers: 'none', dropRetryAfter: true }, { rows: 200 });
  assert.equal(r.rows, 200);
  assert.ok(Number.isFinite(r.wallMs) && r.wallMs > 0, 'finished');
  assert.ok(r.share >= 0.5, `${(r.share * 100).toFixed(1)} %`);
});

test('a window-like limit is sent at once after each pause; a bucket that refutes it is paced again', () => {
  // A sliding window of one second: each pause restores the whole quota.
  const windowed = simulate({ shape: 'sliding', rate: 100, windowMs: 1000, headers: 'none' }, { seed: 1 });
  assert.ok(windowed.share >= 0.88, `${(windowed.share * 100).toFixed(1)} %`);
  // A bucket whose spans admit alike for a while must not be burst into for the rest of the run.
  const bucket = simulate({ shape: 'bucket', rate: 200, burst: 20, headers: 'none' }, { seed: 1, seconds: 60 });
  assert.ok(bucket.sustained >= 0.95, `sustained ${(bucket.sustained * 100).toFixed(1)} %`);
  assert.ok(bucket.share429 <= 0.005, `${(bucket.share429 * 100).toFixed(2)} % 429s`);
});

test('one request at a time (paging) is waiting for the pace too: the pace grows instead of holding at its start', async () => {
  const { PaceGate } = await import('../../src/pace/index.js');
  const gate = new PaceGate({});
  let now = 0;
  for (let i = 0; i < 200; i++) {
    // As the limiter asks: alone, and once held back, as one that waited (limiter.ts admit()).
    let v = gate.start(now, false);
    while ('retryAt' in v) {
      now = v.retryAt;
      v = gate.start(now, true);
    }
    now += 2; // answered in 2 ms, and the next page is asked for at once
    gate.finish(v.ticket, { status: 200 }, now);
  }
  // Held at the starting pace (10/s) this would take 20 s.
  assert.ok(now < 3_000, `200 pages took ${now} ms of virtual time`);
});

/** Starts a request on `gate` at `now`, which the test expects the gate to allow. */
function startNow(gate: PaceGate, now: number) {
  const v = gate.start(now, true);
  assert.ok('ticket' in v, `a request may start at ${now} ms`);
  return v.ticket;
}

test('counts that overtake each other on the wire never raise the quota mirror; a new window does', async () => {
  const { PaceGate } = await import('../../src/pace/index.js');
  const gate = new PaceGate({});
  const go = (now: number) => startNow(gate, now);
  const quota = (remaining: number, resetMs = 1000) => ({ status: 200, rateLimit: { limit: 20, remaining, resetMs } });
  // The first request goes at the starting pace (10/s, nothing known yet); its answer tells the quota.
  gate.finish(go(0), quota(2), 1);
  // Two requests in the same millisecond; the server counts the second first: its answer says 1
  // left, the first's says 0 — and the 0 arrives first.
  const [b, c] = [go(200), go(200)];
  gate.finish(b, quota(0), 201);
  gate.finish(c, quota(1), 201.5);
  // One left by the later answer alone; none in truth. Held until the refill brings one (~17/s).
  const held = gate.start(201.5, true);
  assert.ok('retryAt' in held && held.retryAt > 240, JSON.stringify(held));
  // A new window: two requests in flight, one counted just before the reset (1 left), one just
  // after (19 left), answered in that order reversed. The rise is far beyond what was in flight,
  // so it is believed at once, and the count from before the reset does not take it back.
  const fresh = new PaceGate({});
  const go2 = (now: number) => startNow(fresh, now);
  fresh.finish(go2(0), quota(2, 150), 1);
  const [f, g] = [go2(200), go2(200)];
  fresh.finish(g, quota(19, 60_000), 201);
  fresh.finish(f, quota(1, 150), 202);
  for (let i = 0; i < 19; i++) go2(203);
  assert.ok('retryAt' in fresh.start(203, true), 'the 20th is held');
});

test('four requests sent in the same millisecond and answered out of order: the last answer, the highest count, does not lift the quota mirror', async () => {
  const { PaceGate } = await import('../../src/pace/index.js');
  const gate = new PaceGate({});
  const go = (now: number) => startNow(gate, now);
  const quota = (remaining: number) => ({ status: 200, rateLimit: { limit: 5, remaining, resetMs: 1000 } });
  gate.finish(go(0), quota(4), 1);
  // Four left: four go at once (the first request went at the starting pace, 10 a second). The server counts the first of them first (3 left) and its answer
  // comes last, when nothing is in flight any more; the others say 2, 0 and 1.
  const [a, b, c, d] = [go(200), go(200), go(200), go(200)];
  gate.finish(b, quota(2), 201);
  gate.finish(d, quota(0), 201.2);
  gate.finish(c, quota(1), 201.4);
  gate.finish(a, quota(3), 201.6);
  // None is left in truth: the next waits for the refill (a few a second, nothing measured yet).
  // Read as a refill, the 3 let the next go at once, and it met a 429 (a bucket of 5 refilling 200
  // a second with X- headers and 8 in flight: 94 % of the limit).
  const held = gate.start(201.6, true);
  assert.ok('retryAt' in held && held.retryAt > 250, JSON.stringify(held));
});

test('buckets with draft 6 or X- headers and 8 in flight: a count answered last with nothing left in flight is no refill', () => {
  // Requests that go at once are answered in any order; the count that comes back last, with
  // nothing in flight, may be the one the server counted first. Read as a refill, it let a request
  // go that met a 429 and its second of pause: 200/s burst 5 with X- 94.0 %, 300/s burst 7 91.0 %,
  // 200/s burst 20 with draft 6 96.7 % with two 429s.
  for (const [rate, burst] of [[200, 5], [300, 7], [200, 20]] as const) {
    for (const headers of ['draft6', 'x'] as const) {
      for (const seed of [1, 2, 3]) {
        const r = simulate({ shape: 'bucket', rate, burst, headers }, { seed, concurrency: 8 });
        const where = `${rate}/${burst} ${headers}, seed ${seed}`;
        assert.ok(r.share >= 0.965, `${where}: ${(r.share * 100).toFixed(1)} % of the ideal`);
        assert.ok(r.throttled <= 1, `${where}: ${r.throttled} 429s of ${r.requests}`);
      }
    }
  }
});

test('a 1-s window of 10 with draft 6 or X- headers: the refusal that proves it a window takes one request', () => {
  // After a quota spent in one quick span, the next request waits until its refusal would prove a
  // window. The quota coming back at a reset had lifted the refill estimate, and four went at once
  // there: three met a 429 that taught nothing (9–14 429s in 300 requests, 3–4.7 %).
  for (const headers of ['draft6', 'x'] as const) {
    for (const [wire, concurrency] of [[undefined, 4], [undefined, 8], [{ min: 1, spread: 5 }, 8]] as const) {
      for (const seed of [1, 2, 3]) {
        const r = simulate({ shape: 'window', rate: 10, windowMs: 1000, headers }, { seed, wire, concurrency });
        const where = `${headers}, ${wire ? 'over 1–6 ms' : 'loopback'}, ${concurrency} in flight, seed ${seed}`;
        assert.ok(r.throttled <= 4, `${where}: ${r.throttled} 429s of ${r.requests}`);
        assert.ok(r.share >= 0.94, `${where}: ${(r.share * 100).toFixed(1)} % of the ideal`);
      }
    }
  }
});

test('a span that ran across a window\'s end neither proves a window nor refutes one: the two proofs need not be in a row', () => {
  // A pause that ended shortly before a window's end let a span admit the rest of one quota and
  // the whole of the next; it had cleared the evidence of the span before, and a third proof, a
  // third 429, was needed (fixed 10 per 1 s with draft 8: 5 429s in 305 requests; 5 per 1 s with
  // draft 6: 5 in 155).
  for (const [rate, headers] of [[10, 'draft8'], [5, 'draft6']] as const) {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ shape: 'window', rate, windowMs: 1000, headers }, { seed });
      assert.ok(r.throttled <= 4, `${rate} per 1 s, ${headers}, seed ${seed}: ${r.throttled} 429s of ${r.requests}`);
      assert.ok(r.anchored, `${rate} per 1 s, ${headers}, seed ${seed}: the window is kept to by its log`);
    }
  }
});

test('a span counts as one across a window\'s end only when its count came back whole on a request sent after its 0: a bucket that reported 0 twice clears the proof', async () => {
  const { HeaderLearner } = await import('../../src/pace/index.js');
  const anchorAfter = (middle: 'bucket' | 'window') => {
    const p = new HeaderLearner(undefined);
    let paused = 0;
    // As the gate feeds it: every count read, then the answer observed, then a 429's pause.
    const feed = (o: Parameters<typeof p.read>[0]) => {
      p.read(o);
      const wait = o.status === 429 ? (o.retryAfterMs ?? 0) : 0;
      p.observe(o, wait, paused);
      if (o.status === 429) paused = Math.max(paused, o.at + wait);
    };
    const rl = (remaining: number) => ({ limit: 5, remaining, resetMs: 1000 });
    const admit = (sentAt: number, remaining: number, inflight = 0) => feed({ at: sentAt + 1, sentAt, status: 200, rateLimit: rl(remaining), inflightOthers: inflight, inflightAtSend: inflight });
    const refuse = (sentAt: number) => feed({ at: sentAt + 1, sentAt, status: 429, rateLimit: rl(0), retryAfterMs: 1000, inflightOthers: 0, inflightAtSend: 0 });
    // A span after a pause of 1 s that admits exactly the limit, each count once, and is refused
    // late enough to prove no bucket a log of 5 a second would hold back: a window's proof.
    const proof = (from: number) => {
      [4, 3, 2, 1, 0].forEach((left, i) => admit(from + i, left));
      refuse(from + 300);
    };
    refuse(0);
    proof(1001);
    if (middle === 'bucket') {
      // A bucket that refilled one: 0 twice, with 7 in flight. It refutes the window.
      [4, 3, 2, 1, 0, 0].forEach((left, i) => admit(2302 + i, left, 7));
    } else {
      // The rest of one quota, then the whole next, sent after the 0 came back: neither.
      [4, 3, 2, 1, 0].forEach((left, i) => admit(2302 + i, left));
      [4, 3, 2, 1, 0].forEach((left, i) => admit(2400 + i, left));
    }
    refuse(2420);
    proof(3422);
    return p.anchor();
  };
  assert.equal(anchorAfter('bucket'), undefined, 'a bucket between two proofs leaves no window');
  assert.deepEqual(anchorAfter('window'), { quota: 5, windowMs: 1000 });
});

test('after the request that would prove a window fails on the way, the rest are no longer sent one at a time', async () => {
  const { PaceGate } = await import('../../src/pace/index.js');
  const gate = new PaceGate({});
  const quota = (remaining: number, status = 200) => ({ status, rateLimit: { limit: 10, remaining, resetMs: 1000 }, retryAfterMs: status === 429 ? 1000 : undefined });
  let now = 0;
  const go = () => {
    let v = gate.start(now, true);
    while ('retryAt' in v) {
      now = v.retryAt;
      v = gate.start(now, true);
    }
    return v.ticket;
  };
  const answer = (status = 200, remaining = 0) => {
    const t = go();
    now += 1;
    gate.finish(t, quota(remaining, status), now);
  };
  // A quota of 10, a 429 and its second of pause, then a span after it that admits exactly 10,
  // each count once: the next request waits until its refusal would prove a window, and goes alone.
  for (let i = 9; i >= 0; i--) answer(200, i);
  answer(429);
  for (let i = 9; i >= 0; i--) answer(200, i);
  const probe = go();
  assert.ok('retryAt' in gate.start(now, true), 'the rest wait for the answer to the one that would prove a window');
  // It never reaches the server: it proves nothing, and the rest must not be held one at a time
  // for good (every later request waited for the one before it).
  now += 1;
  gate.finish(probe, { status: 0 }, now);
  now += 500;
  go();
  const next = gate.start(now, true);
  assert.ok('ticket' in next, `a second request may go beside the first: ${JSON.stringify(next)}`);
});

test('a bucket of two with draft 6 or X- headers is paced as one that says nothing, not at the first guess of its refill', () => {
  // Its count is 1 whenever it was full (what overflowed is hidden) and 0 otherwise (one token of a
  // rise may not have dripped in between): no answer bounds its refill from below, and the mirror
  // stayed at its first guess from a reset of one whole second — 2 a second where the bucket
  // refilled 100 (2 % of the limit), 20 a second for 200 with a burst of 2 behind jitter.
  for (const rate of [10, 100, 200]) {
    for (const headers of ['draft6', 'x'] as const) {
      for (const seed of [1, 2, 3]) {
        const r = simulate({ shape: 'bucket', rate, burst: 2, headers }, { seed });
        const blind = simulate({ shape: 'bucket', rate, burst: 2, headers: 'none' }, { seed });
        assert.ok(r.share >= 0.78, `${rate}/2 ${headers}, seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal`);
        assert.ok(r.share >= blind.share - 0.01, `${rate}/2 ${headers}, seed ${seed}: ${(r.share * 100).toFixed(1)} % against ${(blind.share * 100).toFixed(1)} % without headers`);
      }
    }
  }
});

test('a small bucket with headers over a wire: the mirror credits the round trip\'s refill once its answers show it held requests back', () => {
  // The mirror took each count as of its answer's arrival and spent every request in flight from
  // it at once, so what refilled during the round trip was never credited: a bucket of 3 refilling
  // 150 a second, 60–70 ms away with 4 in flight, ran at 50 % of what 4 in flight allow, and its
  // answers, finding it full, never measured its refill (held at its first guess, raised only by
  // the counts' rises). A bucket of 2 with draft 8's policy: 86 %. Each figure is against what the
  // limit and the requests in flight over that wire allow together.
  const wire = { min: 60, spread: 10 };
  for (const [rate, burst, headers, least] of [[150, 3, 'draft6', 0.68], [150, 3, 'x', 0.68], [60, 3, 'draft6', 0.66], [5, 2, 'draft8', 0.94]] as const) {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ shape: 'bucket', rate, burst, headers }, { seed, wire });
      assert.ok(r.share >= least && r.share429 <= 0.02, `${rate}/${burst} ${headers}, seed ${seed}: ${(r.share * 100).toFixed(1)} % of what 4 in flight allow, ${r.throttled} 429s of ${r.requests}`);
    }
  }
  // A bucket found full says its refill is above our pace, not how far: with 8 in flight, the
  // estimate grew 5 % an answer without end (10^22 a second, shown as the pace); it stops at four
  // times what was admitted over the last second. (This cell is still held under what 8 in flight
  // allow, docs/pacing.md "Bounds": 43 %, and 25 % before the round trip's credit.)
  const held = simulate({ shape: 'bucket', rate: 150, burst: 3, headers: 'draft6' }, { wire, concurrency: 8 });
  const rowsPerSec = held.rows / (held.wallMs / 1000);
  assert.ok(held.pace <= 5 * rowsPerSec && held.share >= 0.38, `pace ${held.pace.toExponential(2)}/s for ${rowsPerSec.toFixed(1)} rows/s, ${(held.share * 100).toFixed(1)} % of what 8 in flight allow`);
});

test('a bucket refilling a few a second, with draft 6 or X- headers: its refill is measured a whole token low, and few 429s come', () => {
  // `remaining` counts whole tokens, so the rises summed over the refill's memory are one token too
  // many at worst. At 2 a second a count that rose by one over half a second read 4 a second; the
  // mirror ran 5 % over the refill and met a 429 every 2 s (2/s burst 10: 13 429s in 73 requests;
  // 4/s burst 40: 5–6 in 124; 10/s burst 5 with X-: 86 % of the limit).
  // (10/s burst 5 with X-, seed 3: 4 429s and 92 % since a span that looks like a window's quota
  // waits for the request that would prove it one — a bucket loses a token or two per pause there.)
  for (const [rate, burst, most] of [[2, 10, 3], [4, 40, 2], [2, 20, 3], [10, 5, 4], [5, 5, 1]] as const) {
    for (const headers of ['draft6', 'x'] as const) {
      for (const seed of [1, 2, 3]) {
        const r = simulate({ shape: 'bucket', rate, burst, headers }, { seed });
        const where = `${rate}/${burst} ${headers}, seed ${seed}`;
        assert.ok(r.throttled <= most, `${where}: ${r.throttled} 429s of ${r.requests}`);
        assert.ok(r.share >= 0.92, `${where}: ${(r.share * 100).toFixed(1)} % of the ideal`);
      }
    }
  }
});

test('a sliding window of 300 per 10 s over a 1–6 ms wire: a pause that freed one request is no bucket refilling one per pause', () => {
  // Slow start spent the quota within a second; the 429 asked back in 9 s, when only the request
  // sent first had aged out of the window. That span admitted one, and the next 429 asked back in
  // 1 s. Read as a bucket refilling one per 9-s pause, the pace went to 0.1 a second: 5.3 % of the
  // limit on seed 2 (a 30-second import ran 378 s).
  for (const seed of [1, 2, 3]) {
    const r = simulate({ shape: 'sliding', rate: 30, windowMs: 10_000, headers: 'none' }, { seed, wire: { min: 1, spread: 5 } });
    assert.ok(r.share >= 0.85, `seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal`);
    assert.ok(r.throttled <= 14, `seed ${seed}: ${r.throttled} 429s of ${r.requests}`);
  }
});

test('a bucket of three with draft 6 or X- headers, at 30 to 300 a second: counts answered out of order do not lift the mirror', () => {
  // A count one lower that overtook nothing was read as stale once the refill estimate had added a
  // fraction of a token since the higher one: the mirror kept the higher, the request it let go met
  // a 429, and each 429's pause was lost (300/s: 3–4.5 % of the limit, 258–451 429s; 60/s: 15–18 %).
  for (const rate of [30, 60, 300]) {
    for (const headers of ['draft6', 'x'] as const) {
      for (const seed of [1, 2, 3]) {
        const r = simulate({ shape: 'bucket', rate, burst: 3, headers }, { seed });
        const where = `${rate}/3 ${headers}, seed ${seed}`;
        assert.ok(r.share >= (rate === 300 ? 0.75 : 0.9), `${where}: ${(r.share * 100).toFixed(1)} % of the ideal`);
        assert.ok(r.throttled <= 3, `${where}: ${r.throttled} 429s of ${r.requests}`);
      }
    }
  }
});

test('without headers, a measured bucket of three makes up for late timers within a gap', () => {
  // Its burst is too small for a whole request back to back, and each timer a millisecond late in a
  // 17-ms gap was lost: 96 % sustained at a pace of 99 %, 89.7–90.2 % of the ideal in 30 s.
  for (const seed of [1, 2, 3]) {
    const r = simulate({ shape: 'bucket', rate: 60, burst: 3, headers: 'none' }, { seed });
    assert.ok(r.sustained >= 0.975, `seed ${seed}: ${(r.sustained * 100).toFixed(1)} % sustained`);
    assert.ok(r.share >= 0.91, `seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal`);
    assert.ok(r.throttled <= 2, `seed ${seed}: ${r.throttled} 429s`);
  }
});

test('without headers, a long span that ended in a fast regrowth reads the rate it ended at, not its average', () => {
  // A bucket of one refilling 12 a second over 60–70 ms: the pace regrew by doubling each second and
  // met a 429 at 11.5 a second; its last two seconds admitted 6 a second, and the pace was held
  // there to the import's end (47–54 % of what the limit and the wire allow).
  const wire = { min: 60, spread: 10 };
  for (const seed of [1, 2, 3]) {
    const r = simulate({ shape: 'bucket', rate: 12, burst: 1, headers: 'none' }, { seed, wire });
    assert.ok(r.pace >= 9, `seed ${seed}: held at ${r.pace.toFixed(1)} a second`);
    assert.ok(r.share >= 0.65, `seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal`);
  }
});

test('without headers, a window’s quota counts the request that overtook the refused one on the wire', () => {
  // Sliding 300 per 10 s over 1–6 ms with 8 in flight: the 300th admitted request was sent just
  // after the one refused and arrived first; left out, the quota read 299 and the import's last row
  // waited a whole window (64 % of the ideal).
  for (const seed of [1, 2, 3]) {
    const r = simulate({ shape: 'sliding', rate: 30, windowMs: 10_000, headers: 'none' }, { seed, concurrency: 8, wire: { min: 1, spread: 5 } });
    assert.ok(r.share >= 0.88, `seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal`);
  }
});

test('without headers, a pace read as a bucket’s least refill regrows fast, and a long pause that freed a few is no slow bucket', () => {
  // Over a wire, a span after a pause leaves in one burst, and a bucket smaller than what the pause
  // refills admits only its size: paced at that least refill (3 per second for 30/s with a burst
  // of 3, 1 for 20/s with a burst of 1), the probe's 3 % a second took 110 s to climb back.
  for (const [rate, burst, wire, floor] of [[30, 3, { min: 1, spread: 5 }, 0.7], [20, 1, { min: 40, spread: 5 }, 0.65], [15, 3, { min: 1, spread: 5 }, 0.75]] as const) {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ shape: 'bucket', rate, burst, headers: 'none' }, { seed, wire });
      assert.ok(r.share >= floor, `${rate}/${burst} over ${wire.min} ms, seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal`);
      assert.ok(r.throttled <= 10, `${rate}/${burst} over ${wire.min} ms, seed ${seed}: ${r.throttled} 429s of ${r.requests}`);
    }
  }
  // Sliding windows whose quota slow start spent: the pause freed one or two requests, and the next
  // 429 asked back in half the pause or less, which a bucket that slow would not. Read as a bucket
  // of a quota refilling one per pause, the pace went to 0.1–1 a second (8–21 % of the limit).
  for (const [rate, windowMs, wire, concurrency] of [[10, 10_000, { min: 1, spread: 5 }, 1], [100, 10_000, undefined, 1], [30, 3000, { min: 15, spread: 5 }, 4]] as const) {
    for (const seed of [1, 2, 3]) {
      const r = simulate({ shape: 'sliding', rate, windowMs, headers: 'none' }, { seed, wire, concurrency });
      assert.ok(r.share >= 0.75, `sliding ${rate * windowMs / 1000} per ${windowMs / 1000} s, seed ${seed}: ${(r.share * 100).toFixed(1)} % of the ideal`);
    }
  }
});
