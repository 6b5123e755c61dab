// One gate for several processes sharing a budget (src/pace/shared-gate.ts, docs/pacing.md "One
// budget, several processes"): driven over three simulated processes on a virtual clock by
// test/helpers/shared-sim.ts. Real Redis and HTTP confirm the figures in BENCHMARKS.md §6.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CentralGate, decodeAnswer, encodeAnswer } from '../../src/pace/index.js';
import { simulateShared } from '../helpers/shared-sim.js';

test('an answer travels between processes whole, and a line that is not one is dropped', () => {
  const a = { at: 1_700_000_000_123, sentAt: 1_700_000_000_100, status: 429, retryAfterMs: 1000, rateLimit: { limit: 10, remaining: 0, resetMs: 1000 } };
  assert.deepEqual(decodeAnswer(encodeAnswer(a)), a);
  assert.deepEqual(decodeAnswer(encodeAnswer({ at: 5, sentAt: 4, status: 200 })), { at: 5, sentAt: 4, status: 200, retryAfterMs: undefined, rateLimit: undefined });
  assert.equal(decodeAnswer('hello'), undefined);
  assert.equal(decodeAnswer('x|1|200|||||'), undefined);
});

test('wants are granted in the order asked, a 429 holds every process, and its pause ends the hold', () => {
  const g = new CentralGate({ seedRate: 10 });
  g.want('a');
  g.want('b');
  g.want('a');
  const first = g.pump(1000);
  // Seeded at 10/s: one start now, the next a gap later.
  assert.deepEqual(first.grants.map((x) => x.proc), ['a']);
  assert.ok(first.wakeAt !== undefined && first.wakeAt > 1000 && first.wakeAt <= 1100, `wake at ${first.wakeAt}`);
  const second = g.pump(first.wakeAt);
  assert.deepEqual(second.grants.map((x) => x.proc), ['b']);
  // b's request meets a 429 with a Retry-After of 2 s: nobody starts until it ends.
  assert.equal(g.answer((second.grants[0] as { id: number }).id, { status: 429, retryAfterMs: 2000 }, 1150), 2000);
  const held = g.pump(1200);
  assert.deepEqual(held.grants, []);
  assert.ok((held.wakeAt as number) >= 3150, `wake at ${held.wakeAt}`);
  assert.deepEqual(g.pump(held.wakeAt as number).grants.map((x) => x.proc), ['a']);
  // An answer to a grant this gate never made (another leader's) is ignored.
  assert.equal(g.answer(999, { status: 429, retryAfterMs: 5000 }, 3200), 0);
});

test('a process closing gives up its wants', () => {
  const g = new CentralGate({ seedRate: 1000 });
  g.want('a');
  g.want('b');
  g.want('a');
  g.cancel('a', 5);
  assert.equal(g.waiting, 1);
  assert.deepEqual(g.pump(0).grants.map((x) => x.proc), ['b']);
  assert.equal(g.inflight, 1);
});

test('a process gone: its wants are dropped and its grants given up at once', () => {
  const g = new CentralGate({ seedRate: 1000 });
  g.want('a');
  g.want('b');
  g.want('a');
  assert.deepEqual(g.pump(0).grants.map((x) => x.proc), ['a']);
  assert.deepEqual(g.procs.sort(), ['a', 'b']);
  g.drop('a', 1);
  assert.equal(g.inflight, 0);
  assert.equal(g.waiting, 1);
  assert.deepEqual(g.procs, ['b']);
  assert.deepEqual(g.pump(5).grants.map((x) => x.proc), ['b']);
});

test('requests in flight are counted by when each was sent and answered, not by when the leader heard of it', () => {
  // A cap of 3 at 40 ms; every answer reaches the leader 8 ms after its process had it. The first
  // three are answered (there) before the next four go; the seventh meets a 429 with three others
  // at the server, where the leader, still waiting for news of the first three, counted six.
  const read = (withTiming: boolean) => {
    const g = new CentralGate({ seedRate: 1000 });
    const sends = [0, 1, 2, 41, 42, 43, 44];
    const ids = sends.map((t) => {
      g.want('a');
      const r = g.pump(t);
      assert.equal(r.grants.length, 1, `a grant at ${t}`);
      return (r.grants[0] as { id: number }).id;
    });
    const sent = (i: number) => (sends[i] as number) + 0.2;
    for (const i of [0, 1, 2]) g.answer(ids[i] as number, { status: 200 }, sent(i) + 48, withTiming ? { sentAt: sent(i), at: sent(i) + 40 } : undefined);
    g.answer(ids[6] as number, { status: 429, retryAfterMs: 1000 }, sent(6) + 8.2, withTiming ? { sentAt: sent(6), at: sent(6) + 0.2 } : undefined);
    return g.gate.window;
  };
  assert.equal(read(false), 6, 'counted by the leader alone');
  assert.ok(read(true) <= 4, `read as ${read(true)} with each process's own times`);
});

test('a full cap grants ahead: each want goes in the place of its own process’s request, and a pause takes them back', () => {
  const g = new CentralGate({ seedRate: 1000 });
  // A cap of 2 found (as a last leader hands it over).
  g.gate.capAtMost(2, 0);
  g.want('a');
  g.want('b');
  const one = g.pump(0).grants;
  const two = g.pump(5).grants;
  assert.deepEqual([...one, ...two].map((x) => x.proc), ['a', 'b']);
  const [a1, b1] = [(one[0] as { id: number }).id, (two[0] as { id: number }).id];
  // Full: b's want goes in the place of b's request, a's in a's; c has nothing in flight, so its
  // want — and every one after it — waits for a place freed.
  g.want('b');
  g.want('a');
  g.want('c');
  g.want('a');
  const full = g.pump(10);
  assert.deepEqual(full.grants, []);
  assert.deepEqual(full.follows?.map((f) => [f.proc, f.after]), [['b', b1], ['a', a1]]);
  assert.equal(g.waiting, 2);
  const [b2, a2] = (full.follows ?? []).map((f) => f.id) as [number, number];
  // b's answer: admitted, its follow-on sent at once — the place passed on, still 2 in flight.
  g.answer(b1, { status: 200 }, 45, undefined, true);
  assert.equal(g.inflight, 2);
  assert.deepEqual(g.pump(46).follows, undefined, 'c is at the head, with nothing in flight');
  // a's answer is a 429: its follow-on is not sent, a's want is back at the head, and the pause
  // takes back whatever was granted ahead since.
  g.want('b');
  g.answer(a1, { status: 429, retryAfterMs: 1000 }, 50, undefined, false);
  assert.equal(g.inflight, 1);
  assert.equal(g.waiting, 4);
  const paused = g.pump(51);
  assert.deepEqual(paused.grants, []);
  assert.equal(paused.follows, undefined);
  assert.ok(paused.wakeAt !== undefined && paused.wakeAt >= 1050, `wake at ${paused.wakeAt}`);
  // After the pause, in order: a (put back), then c.
  const after = g.pump(paused.wakeAt);
  assert.deepEqual(after.grants.map((x) => x.proc), ['a']);
  assert.ok(!after.grants.some((x) => x.id === a2), 'the follow-on not sent is void');
});

test('a cap found too high: a 429 granted with fewer in flight lowers it while it is new, and leaves the pace as it was', () => {
  const read = (foundAt: number, refusedFirst = false) => {
    const g = new CentralGate({ seedRate: 100 });
    g.gate.capAtMost(5, foundAt);
    const grant = (t: number) => {
      g.want('a');
      const r = g.pump(t);
      assert.equal(r.grants.length, 1, `a grant at ${t}`);
      return (r.grants[0] as { id: number }).id;
    };
    for (const t of [0, 10, 20]) grant(t);
    const fourth = grant(30);
    // The server holds each admitted request 40 ms, and refuses at once. The fourth was admitted
    // with three in flight (it reached the server as the first left), so three in flight is no
    // proof of a cap by the rule one process uses.
    if (!refusedFirst) g.answer(fourth, { status: 200 }, 70.5, { sentAt: 30.2, at: 70.2 });
    const pace = g.gate.pace;
    // The next, granted with three in flight by the leader's count, is refused: the cap is 3 at
    // most. (One process's exact count would have read it as the rate's, and cut the pace.)
    const refused = grant(refusedFirst ? 40 : 71);
    if (refusedFirst) g.answer(refused, { status: 429, retryAfterMs: 1000 }, 43, { sentAt: 40.2, at: 42.5 });
    else g.answer(refused, { status: 429, retryAfterMs: 1000 }, 74, { sentAt: 71.2, at: 73.5 });
    return { window: g.gate.window, paceKept: g.gate.pace === pace };
  };
  assert.deepEqual(read(0), { window: 3, paceKept: true });
  // A 429 heard before any admitted answer of its span shows no service time: it may be a rate
  // limit's, behind a slow handler, whose cap was misread. (Read with the least round trip seen
  // before, buckets of 10–20 a second behind 150–200 ms handlers had their window cut to one: 32–53 %
  // of the limit in the simulation, from 60–84 %.) The ramp after a pause (below) is what makes an
  // admitted answer come first.
  assert.deepEqual(read(0, true), { window: 5, paceKept: false });
  // A cap found 20 s ago is no longer lowered this way: the gate never grants past it, so every
  // later 429 would — a rate limit's too, its cap misread.
  assert.equal(read(-20_000).window, 5);
});

test('after a pause, a known cap fills again from half its window as answers show more in flight — or after a second — not all at once', () => {
  // A cap of 6 found (as handed over), the pace 1,000 a second; requests take 40 ms.
  const paused = () => {
    const g = new CentralGate({ seedRate: 1000 });
    g.gate.capAtMost(6, 0);
    const grantAt = (t: number) => {
      g.want('a');
      const r = g.pump(t);
      assert.equal(r.grants.length, 1, `a grant at ${t}`);
      return (r.grants[0] as { id: number }).id;
    };
    // Five in flight together, all admitted: before the pause, they count for nothing after it.
    const first = [0, 1, 2, 3, 4].map(grantAt);
    first.forEach((id, i) => g.answer(id, { status: 200 }, 40 + i, { sentAt: i + 0.1, at: 40 + i }));
    // Four more; the last is refused: a second's pause. The other three, admitted, were sent before it.
    const more = [50, 51, 52, 53].map(grantAt);
    g.answer(more[3] as number, { status: 429, retryAfterMs: 1000 }, 56);
    more.slice(0, 3).forEach((id, i) => g.answer(id, { status: 200 }, 90 + i, { sentAt: 50.1 + i, at: 90 + i }));
    assert.equal(g.inflight, 0);
    const resume = g.gate.resumeAt;
    assert.ok(resume >= 1056, `paused until ${resume}`);
    for (let i = 0; i < 12; i++) g.want('a');
    const ids: number[] = [];
    const sentAt = new Map<number, number>();
    const pumpUntil = (to: number, from: number) => {
      for (let t = from; t < to; t++) {
        for (const x of g.pump(t).grants) {
          ids.push(x.id);
          sentAt.set(x.id, t + 0.1);
        }
      }
    };
    pumpUntil(resume + 20, resume);
    return { g, ids, sentAt, pumpUntil, resume };
  };
  const { g, ids, sentAt, pumpUntil, resume } = paused();
  const admit = (id: number) => g.answer(id, { status: 200 }, (sentAt.get(id) as number) + 40, { sentAt: sentAt.get(id) as number, at: (sentAt.get(id) as number) + 40 });
  // Half the window: had it been read too high, one 429 in this round trip, not three (shared, a
  // cap of 2 read as 5 met three at each of two pauses).
  assert.equal(g.inflight, 3);
  // The third was admitted with two others: four in flight together at most now ...
  assert.equal(ids.length, 3);
  admit(ids[2] as number);
  pumpUntil(resume + 80, resume + 45);
  assert.equal(g.inflight, 4);
  // ... and with three others admitted (the fifth, sent beside the first two and the fourth), the
  // window — once the gate's own rule after a pause lets it: no more started than the span before
  // the pause admitted, plus one (six), until as many are admitted (gate.ts, restartCap).
  admit(ids[4] as number);
  assert.equal(g.ramping, true);
  pumpUntil(resume + 121, resume + 82);
  assert.equal(g.ramping, false, 'the ramp reached the window');
  assert.equal(ids.length, 6);
  for (const i of [0, 1, 3, 5]) admit(ids[i] as number);
  pumpUntil(resume + 200, resume + 170);
  assert.equal(g.inflight, 6);
  // With no answer for a second, the ramp ends, and that rule alone holds: six started.
  const late = paused();
  assert.equal(late.g.inflight, 3);
  late.pumpUntil(late.resume + 990, late.resume + 20);
  assert.equal(late.g.inflight, 3);
  late.pumpUntil(late.resume + 1010, late.resume + 990);
  assert.equal(late.g.inflight, 6);
});

test('a leader closing grants nothing more and takes back what it granted ahead', () => {
  const g = new CentralGate({ seedRate: 1000 });
  g.gate.capAtMost(1, 0);
  g.want('a');
  const a1 = (g.pump(0).grants[0] as { id: number }).id;
  g.want('a');
  g.want('b');
  const ahead = g.pump(1).follows ?? [];
  assert.deepEqual(ahead.map((f) => [f.proc, f.after]), [['a', a1]]);
  g.drain();
  const drained = g.pump(2);
  assert.deepEqual(drained.grants, []);
  assert.deepEqual(drained.revokes, [{ proc: 'a', id: (ahead[0] as { id: number }).id }]);
  // Its answer without the follow-on: the place is free, but nothing more is granted.
  g.answer(a1, { status: 200 }, 40, undefined, false);
  assert.equal(g.inflight, 0);
  assert.deepEqual(g.pump(41).grants, []);
});

test('a new leader takes up the pace the last one left, without a new slow start, and the cap it had found', () => {
  const g = new CentralGate({ seedRate: 57 });
  assert.ok(Math.abs((g.pace as number) - 57) < 1, `pace ${g.pace}`);
  assert.equal(g.gate.window, Infinity);
  const c = new CentralGate({ seedRate: 75, seedWindow: 3, now: 1_000 });
  assert.equal(c.gate.window, 3);
  for (const t of [1_000, 1_001, 1_002, 1_003]) c.want(String(t));
  // Two at first (the ramp: nothing was yet admitted under this leader) ...
  const first: number[] = [];
  for (let t = 1_010; t < 1_200; t += 5) first.push(...c.pump(t).grants.map((x) => x.id));
  assert.equal(first.length, 2, 'two in flight before an answer');
  // ... and once two in flight together were admitted, the cap it had found: three, not four.
  c.answer(first[1] as number, { status: 200 }, 1_200);
  let granted = 0;
  for (let t = 1_205; t < 1_500; t += 5) granted += c.pump(t).grants.length;
  assert.equal(c.inflight, 3, 'three in flight, not four');
  assert.equal(granted, 2);
});

// Three imports of about 10 s each at the limit, four seeds; floors a little under the worst seed,
// and each near what one process alone reaches on the same shape (BENCHMARKS.md §1). Before the
// one gate, the processes followed one shared gap learnt from every answer: windows ran at 46–82 %
// of the limit, a cap of 3 at 61–66 %; before that, each learnt from its own answers: buckets at
// 41–52 % (BENCHMARKS.md §6).
const cells = [
  { headers: 'none', shape: 'bucket', rate: 60, burst: 60, share: 0.93, max429: 0.02 },
  { headers: 'none', shape: 'bucket', rate: 20, burst: 20, share: 0.93, max429: 0.02 },
  { headers: 'draft6', shape: 'bucket', rate: 60, burst: 10, share: 0.95, max429: 0.01 },
  { headers: 'draft8', shape: 'bucket', rate: 60, burst: 10, share: 0.97, max429: 0.01 },
  { headers: 'x', shape: 'bucket', rate: 200, burst: 20, share: 0.97, max429: 0.01 },
  // Spent, its refill estimate was still the first pace: 19 went at once after the first pause,
  // and 15–17 % of requests met a 429 (src/pace/, the reset's bound).
  { headers: 'draft6', shape: 'bucket', rate: 4, burst: 40, share: 0.95, max429: 0.02 },
  { headers: 'none', shape: 'window', rate: 100, windowMs: 1000, share: 0.9, max429: 0.02 },
  { headers: 'draft6', shape: 'window', rate: 100, windowMs: 1000, share: 0.95, max429: 0.01 },
  { headers: 'x', shape: 'window', rate: 30, windowMs: 10_000, share: 0.9, max429: 0.01 },
  { headers: 'none', shape: 'sliding', rate: 100, windowMs: 1000, share: 0.93, max429: 0.02 },
  { headers: 'draft8', shape: 'sliding', rate: 100, windowMs: 1000, share: 0.97, max429: 0.01 },
  { headers: 'none', shape: 'concurrency', rate: 0, maxInflight: 3, latencyMs: 40, share: 0.9, max429: 0.01 },
  // Through a slower Redis (1–6 ms each way, as on this machine with three imports busy): a place
  // freed reached the leader, and its next grant the process, that much later — 74–81 % of the
  // limit until a full cap granted ahead (the follow-ons).
  { headers: 'none', shape: 'concurrency', rate: 0, maxInflight: 3, latencyMs: 40, hop: { min: 1, spread: 5 }, share: 0.88, max429: 0.01 },
] as const;

for (const c of cells) {
  const what = c.shape === 'bucket' ? `bucket ${c.rate}/s burst ${c.burst}` : c.shape === 'concurrency' ? `at most ${c.maxInflight} in flight, ${c.latencyMs} ms each` : `${c.shape === 'window' ? 'fixed' : 'sliding'} window of ${(c.rate * c.windowMs) / 1000} per ${c.windowMs / 1000} s`;
  test(`three processes on one budget, ${c.headers} headers, ${what}${'hop' in c ? `, ${c.hop.min}–${c.hop.min + c.hop.spread} ms to Redis` : ''}: ≥ ${c.share * 100} % combined, ≤ ${c.max429 * 100} % 429s`, () => {
    const rate = c.shape === 'concurrency' ? (c.maxInflight * 1000) / c.latencyMs : c.rate;
    const quota = 'windowMs' in c ? (c.rate * c.windowMs) / 1000 : 0;
    for (const seed of [1, 2, 3, 4]) {
      const r = simulateShared({ processes: 3, rowsEach: Math.max(Math.round(rate * 10), quota), rate: c.rate, burst: 'burst' in c ? c.burst : 0, shape: c.shape, windowMs: 'windowMs' in c ? c.windowMs : undefined, maxInflight: 'maxInflight' in c ? c.maxInflight : undefined, latencyMs: 'latencyMs' in c ? c.latencyMs : undefined, headers: c.headers, seed, ...('hop' in c ? { hop: c.hop } : {}) });
      assert.ok(r.share >= c.share, `seed ${seed}: ${(r.share * 100).toFixed(1)} % of the limit`);
      assert.ok(r.share429 <= c.max429, `seed ${seed}: ${(r.share429 * 100).toFixed(2)} % 429s`);
    }
  });
}
