// The quota mirror of the header regime (gate.ts, docs/pacing.md "With headers"): the instant the
// server says its quota is whole again fills the mirror once, to what the quota holds — it does not
// let every request waiting at that instant go. Driven by hand on a virtual clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PaceGate, type Ticket } from '../../src/pace/index.js';
import type { RateLimitInfo } from '../../src/pace/index.js';

/** How many of `waiting` requests asking at `now` start then. */
function startsAt(gate: PaceGate, now: number, waiting: number): Ticket[] {
  const started: Ticket[] = [];
  for (let i = 0; i < waiting; i++) {
    const v = gate.start(now, true);
    if ('ticket' in v) started.push(v.ticket);
  }
  return started;
}

test('a bucket of one (draft 8, 20 a second): when a 429 pause ends on the "whole again" instant, one request goes, not all four waiting', () => {
  const info = (remaining: number): RateLimitInfo => ({ limit: 20, remaining, resetMs: 1000, windowMs: 1000 });
  const gate = new PaceGate({ random: () => 0.5 });
  const [first] = startsAt(gate, 0, 1);
  assert.ok(first);
  gate.finish(first, { status: 200, rateLimit: info(0) }, 2);
  // (The first went before any count was known, at the blind regime's first pace, 10 a second.)
  const [second] = startsAt(gate, 100, 1);
  assert.ok(second, 'the refill (20 a second) lets the next one go');
  // Another client took the token: a 429 asking back in a second, its quota whole by then too.
  const pause = gate.finish(second, { status: 429, rateLimit: info(0), retryAfterMs: 1000 }, 102);
  assert.equal(pause, 1000);
  assert.deepEqual(startsAt(gate, 500, 4), [], 'nothing goes during the pause');
  const resumed = startsAt(gate, 1102, 4);
  assert.equal(resumed.length, 1, 'the bucket holds one: one request goes when the pause ends');
  // The rest wait for its answer or the refill, and then go one a refill apart (the policy's 20 a
  // second, less what the 429 it did not prevent says it overstates: 17).
  gate.finish(resumed[0] as Ticket, { status: 200, rateLimit: info(0) }, 1104);
  assert.equal(startsAt(gate, 1110, 4).length, 0);
  assert.equal(startsAt(gate, 1155, 4).length, 0);
  assert.equal(startsAt(gate, 1165, 4).length, 1);
});

test('a fixed window of 10 (RateLimit-Limit/-Remaining/-Reset, no refill between resets): the whole quota goes when the reset comes, once', () => {
  const info = (remaining: number, resetMs: number): RateLimitInfo => ({ limit: 10, remaining, resetMs });
  const gate = new PaceGate({ random: () => 0.5 });
  let now = 0;
  // The first span: ten admitted at once, counts 9…0, each reporting the window's end 1 s away.
  const sent: Ticket[] = [];
  for (let i = 0; i < 10 && sent.length < 10; i++) {
    const v = gate.start(now, true);
    if ('ticket' in v) sent.push(v.ticket);
    else now = v.retryAt;
  }
  assert.ok(sent.length >= 1);
  now += 3;
  sent.forEach((t, i) => gate.finish(t, { status: 200, rateLimit: info(sent.length - 1 - i, 1000) }, now));
  // The last count said nothing is left until the reset (1 s after it): at the reset, the whole
  // quota is there again and goes at once; a second ask at the same instant gets nothing more.
  const atReset = now + 1000;
  const burst = startsAt(gate, atReset, 20);
  assert.ok(burst.length <= 10, `no more than the quota goes at the reset (${burst.length})`);
  assert.ok(burst.length >= 1, 'the reset lets requests go');
  assert.equal(startsAt(gate, atReset, 5).length, 0, 'the reset fills the mirror once');
});

test('two counts answered out of order: the lower one is the later, even once the refill estimate has added a fraction of a token', () => {
  // A bucket of 3 (RateLimit-Limit: 3). Two requests leave together with 2 left; the server counts
  // the second first (1 left) and then the first (0 left), and the answers come back in that order.
  // The lower count, 0.15 ms later, was read as stale against the mirror's 1 plus 0.15 ms of refill
  // (1.009 > 0 + the one request of slack), so the mirror kept 1, and the request it let go met a
  // 429: a bucket of 3 refilling 300 a second held 4 % of the limit with hundreds of 429s.
  const info = (remaining: number): RateLimitInfo => ({ limit: 3, remaining, resetMs: 1000 });
  const gate = new PaceGate({ random: () => 0.5 });
  const [first] = startsAt(gate, 0, 1);
  gate.finish(first as Ticket, { status: 200, rateLimit: info(2) }, 1);
  gate.seedPace(57); // the refill as measured so far
  // (The first went at the blind regime's first pace, 10 a second: the next slot is at 100 ms.)
  const pair = startsAt(gate, 100, 2);
  assert.equal(pair.length, 2, 'the two credits go at once');
  gate.finish(pair[1] as Ticket, { status: 200, rateLimit: info(1) }, 101);
  gate.finish(pair[0] as Ticket, { status: 200, rateLimit: info(0) }, 101.15);
  assert.equal(startsAt(gate, 101.15, 1).length, 0, 'nothing is left: the next waits for the refill');
  assert.equal(startsAt(gate, 101.15 + 1000 / 57 + 0.1, 1).length, 1, 'one goes a refill later');
});

test('no refill to wait for and nothing in flight: after the reset, a request still goes (no wait for good)', () => {
  // A count with nothing left and a reset already due (an X-RateLimit-Reset epoch behind the
  // client's clock reads as 0): no refill is guessed. The reset's instant fills the mirror once;
  // then a 429 without a count empties it, and with nothing on its way to tell more, the gate
  // asked again every 250 ms for good.
  const gate = new PaceGate({ random: () => 0.5 });
  const [first] = startsAt(gate, 0, 1);
  gate.finish(first as Ticket, { status: 200, rateLimit: { limit: 10, remaining: 0, resetMs: 0 } }, 1);
  const [second] = startsAt(gate, 100, 1);
  assert.ok(second, 'the reset has passed: the mirror is whole');
  const pause = gate.finish(second, { status: 429, retryAfterMs: 1000 }, 101);
  assert.equal(pause, 1000);
  let now = 1101;
  let went = false;
  for (let i = 0; i < 20 && !went; i++) {
    const v = gate.start(now, true);
    if ('ticket' in v) went = true;
    else now = v.retryAt;
  }
  assert.ok(went, `nothing went by ${now} ms`);
  assert.ok(now <= 1101 + 300, `the request went at ${now} ms`);
});

test('over real HTTP: a bucket of one (draft 8) shared with another client — each token it takes costs one 429, not a loop of them', async (t) => {
  const { runCli, tempDir } = await import('../helpers/cli.js');
  const { envFor, startTestSandbox, sandboxRequest } = await import('../helpers/sandbox.js');
  const { assertEachOnce, writeLeads } = await import('../helpers/leads.js');
  // 20 a second, a bucket of one; another client on the same key takes a token every 400 ms. Each
  // of its requests can cost the import one 429. Before, the pause each 429 called for ended on the
  // reset the server had reported, where every waiting request went at once: 3 429s a request,
  // each pause ending on the next reset (measured: 610 429s in 1,178 requests for 300 rows).
  const sb = await startTestSandbox(t, { limiter: 'bucket', rateLimit: 20, burst: 1, rateLimitHeaders: 'draft8' });
  const file = writeLeads(tempDir(t), 100);
  let others = 0;
  let running = true;
  const other = (async () => {
    while (running) {
      await new Promise((r) => setTimeout(r, 400));
      if (!running) break;
      await sandboxRequest(sb, 'GET', '/contacts?limit=1');
      others += 1;
    }
  })();
  const r = await runCli(['import', file, '--json'], { env: envFor(sb, t) });
  running = false;
  await other;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).created, 100);
  assertEachOnce(sb.contacts().map((c) => c.phone), 100);
  // (The count is the server's: the other client's own 429s are in it too.)
  assert.ok(sb.stats().throttled <= 2 * others + 3, `${sb.stats().throttled} 429s beside ${others} requests of the other client`);
});
