// The pace against the rate limiters services really run (nginx limit_req and limit_conn,
// express-rate-limit, rate-limiter-flexible: test/helpers/real-limiters.ts), on the virtual clock,
// beside a naive client told the rate (test/helpers/naive-sim.ts). docs/pacing.md, B8 and B10;
// the same over real HTTP: `npm run bench -- --only=limiters` (BENCHMARKS.md §1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PaceGate } from '../../src/pace/index.js';
import { simulate, type SimServer } from '../helpers/pace-sim.js';
import { simulateNaive } from '../helpers/naive-sim.js';
import { REAL_LIMITERS } from '../helpers/real-limiters.js';

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const limiter = (text: string) => (REAL_LIMITERS.find(([n]) => n.includes(text)) as [string, SimServer])[1];

test('every limiter of the table: a first run within 5 points of a client told the rate and 90 % or more; a second 97 % or more; the limit learnt as its shape, within 5 % and never above', () => {
  for (const [name, s] of REAL_LIMITERS) {
    for (const seed of [1, 2, 3]) {
      const naive = simulateNaive(s, { seed, seconds: 40 });
      const first = simulate(s, { seed, seconds: 40 });
      const second = simulate(s, { seed: seed + 100, seconds: 40, remembered: first.snapshot });
      const at = `${name}, seed ${seed}: naive ${pct(naive.share)} (${naive.throttled}), first ${pct(first.share)} (${first.throttled}), second ${pct(second.share)} (${second.throttled})`;
      assert.ok(first.share >= 0.9, at);
      // (nginx's constant `Retry-After: 1` makes each of a bucket of six's discovery 429s a second:
      // the first run's bound, docs/pacing.md "Bounds".)
      if (!name.includes('Retry-After: 1')) assert.ok(first.share >= naive.share - 0.05, at);
      // (…and the raise probe's one 429 on a second run costs most of that second: B8.)
      assert.ok(second.share >= (name.includes('Retry-After: 1') ? 0.965 : 0.97), at);
      // (One more than the naive client at most: a bucket's raise probe, a window's phase — B8.)
      assert.ok(second.throttled <= naive.throttled + 1, at);
      const l = first.snapshot;
      assert.ok(l !== undefined, at);
      const rate = s.shape === 'concurrency' ? undefined : s.rate;
      if (s.shape === 'sliding') {
        assert.equal(l.shape, 'window', at);
        assert.equal(l.quota, Math.round(((s.rate as number) * (s.windowMs as number)) / 1000), at);
      } else if (s.shape === 'bucket') assert.equal(l.shape, 'bucket', at);
      else assert.equal(l.maxInFlight, s.maxInflight, at);
      if (rate !== undefined) assert.ok(l.rate <= rate * 1.0001 && l.rate >= rate * 0.95, `${at}: learnt ${l.rate.toFixed(2)}/s of ${rate}/s`);
    }
  }
});

test('a fixed window that says nothing (no headers, no Retry-After): probed at a short interval, never backed off past a window, measured from when the refusals start and stop', () => {
  for (const text of ['600 / 10 s, no headers', '100 / 1 s, no headers']) {
    const s = limiter(text);
    for (const seed of [1, 2, 3]) {
      const r = simulate(s, { seed, seconds: 40 });
      // No pause is longer than the window (the wait for its measured end), and those of probes a second at most.
      assert.ok(Math.max(...r.pauseAfter429) <= (s.windowMs as number), `${text}, seed ${seed}: pauses up to ${Math.max(...r.pauseAfter429)} ms`);
      assert.ok(r.pauseAfter429.filter((p) => p > 1000).length <= 2, `${text}, seed ${seed}: ${r.pauseAfter429.filter((p) => p > 1000).length} pauses over a second`);
      assert.equal(r.snapshot?.shape, 'window');
      assert.equal(r.snapshot?.silent, true, 'remembered as measured from refusals that say nothing');
      assert.ok((r.snapshot?.windowMs as number) >= (s.windowMs as number) && (r.snapshot?.windowMs as number) <= 1.05 * (s.windowMs as number), `${text}, seed ${seed}: window ${r.snapshot?.windowMs} ms`);
    }
  }
});

test('the refusals of one burst count once: four 429s that say nothing pause for one probe, not a back-off raised four times', () => {
  for (const headers of [undefined, { limit: 10, remaining: 0, resetMs: 1000, form: 'x' as const }]) {
    const gate = new PaceGate({ random: () => 0.999 });
    const tickets = [0, 1, 2, 3].map(() => gate.startNow(0));
    for (const t of tickets) gate.finish(t, { status: 429, ...(headers ? { rateLimit: headers } : {}) }, 5);
    const pause = gate.resumeAt - 5;
    // Without headers, one probe's interval (B10); with counts and no Retry-After, the back-off's first step.
    assert.ok(pause > 0 && pause <= (headers ? 1000 : 100), `${headers ? 'X-RateLimit' : 'no headers'}: paused ${pause} ms`);
  }
});

test('a limit raised since the memory was written is found about as soon as a fresh start finds it', () => {
  // The case: 20 a second with a burst of one raised to 40 (an 800-row import ran at 36 %).
  const cases: Array<[SimServer, SimServer]> = [
    [{ shape: 'bucket', rate: 20, burst: 1, headers: 'none' }, { shape: 'bucket', rate: 40, burst: 1, headers: 'none' }],
    [{ shape: 'bucket', rate: 20, burst: 5, headers: 'none' }, { shape: 'bucket', rate: 40, burst: 5, headers: 'none' }],
    [{ shape: 'bucket', rate: 200, burst: 20, headers: 'none' }, { shape: 'bucket', rate: 400, burst: 20, headers: 'none' }],
  ];
  for (const [before, after] of cases) {
    for (const seed of [1, 2, 3]) {
      const learnt = simulate(before, { seed }).snapshot;
      const remembered = simulate(after, { seed: seed + 100, rows: 20 * after.rate, remembered: learnt });
      const fresh = simulate(after, { seed: seed + 100, rows: 20 * after.rate });
      assert.ok(remembered.share >= fresh.share - 0.05, `${before.rate}→${after.rate}/s burst ${after.burst}, seed ${seed}: from memory ${pct(remembered.share)}, fresh ${pct(fresh.share)}`);
    }
  }
});
