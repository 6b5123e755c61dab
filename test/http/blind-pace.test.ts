// The pace without headers, driven answer by answer (the simulation drives it whole:
// pace-sim.test.ts). Here: a concurrency cap's probe that the next 429 takes back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlindPace } from '../../src/http/blind-pace.js';

test('a 429 soon after the window of requests in flight grew by one takes the growth back, and leaves the rate alone', () => {
  const pace = new BlindPace({}, () => 0.5);
  // Three admitted with up to two others in flight, then a 429 with three others: a cap of 3.
  pace.onSend(0);
  for (const [sentAt, inflightAtSend] of [[0, 0], [300, 1], [600, 2]] as const) pace.observe({ at: sentAt + 40, sentAt, status: 200, inflightAtSend });
  pace.observe({ at: 1040, sentAt: 1000, status: 429, retryAfterMs: 1000, inflightAtSend: 3 });
  assert.equal(pace.window, 3);
  const rate = pace.rate;
  // A quiet minute, requests waiting: the window is probed one wider.
  pace.onBusy(63_000);
  pace.onBusy(63_010);
  assert.equal(pace.window, 4);
  const probed = pace.rate;
  // The next 429, with the window full as the server counts it — one answer still on its way back
  // is in flight there, so this request saw only two others at its send.
  pace.onSend(63_020);
  pace.observe({ at: 63_060, sentAt: 63_020, status: 429, retryAfterMs: 1000, inflightAtSend: 2 });
  assert.equal(pace.window, 3, 'the probe is taken back');
  assert.equal(pace.rate, probed, 'the rate is not cut for a cap');
  assert.ok(rate > 0);
});

test('from 100 requests a second up, a start a timer made late is made up for by the next; under it, never', async () => {
  const { PaceGate } = await import('../../src/http/gate.js');
  const nextAfterLateStart = (rate: number) => {
    const gate = new PaceGate({ random: () => 0.5 });
    gate.pacer.seed(rate);
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
