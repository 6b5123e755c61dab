/**
 * The reference beside callctl in the simulations of the real limiters: a naive client told the
 * rate (or a cap's number of places), on the same virtual clock, wire, late timers and stalls as
 * pace-sim.ts's. It sends one request every 1000 / rate ms, four in flight at most (a cap: that
 * many loops, unspaced), and after a 429 waits its Retry-After, if any (without one it keeps to
 * its pace, the refused row sent again in turn). No discovery, no memory: what the table calls "naive, told the rate".
 */
import { Heap, idealWall, limitRate, seeded, serverLimit, type SimServer } from './pace-sim.js';

export interface NaiveResult {
  rows: number;
  wallMs: number;
  share: number;
  requests: number;
  throttled: number;
}

export function simulateNaive(server: SimServer, opts: { seed?: number; seconds?: number; rows?: number; concurrency?: number } = {}): NaiveResult {
  const random = seeded((opts.seed ?? 1) + 7919);
  const R = limitRate(server);
  const quota = server.shape === 'window' || server.shape === 'sliding' ? Math.round((server.rate * (server.windowMs ?? 1000)) / 1000) : 0;
  const rows = opts.rows ?? Math.max(Math.round((opts.seconds ?? 30) * R), 3 * quota);
  const cap = server.shape === 'concurrency';
  const concurrency = cap ? (server.maxInflight ?? 1) : (opts.concurrency ?? 4);
  const gap = cap ? 0 : 1000 / server.rate;
  const latency = server.latencyMs ?? 0;
  const t0 = 1_700_000_000_000 + Math.floor(random() * 60_000);
  let now = t0;
  const limit = serverLimit(server, () => now);
  const events = new Heap();
  const stalls: Array<[number, number]> = [];
  for (let at = t0 + random() * 3000; at < t0 + 3_600_000; at += 1000 + random() * 9000) stalls.push([at, at + 10 + random() * 50]);
  const client = (t: number) => {
    for (const [from, to] of stalls) if (from <= t && t < to) return to;
    return t;
  };
  const wire = () => 0.1 + random() * 0.6;
  let left = rows;
  let active = 0;
  let done = 0;
  let requests = 0;
  let throttled = 0;
  let nextAt = t0;
  let pausedUntil = t0;
  let end = Number.NaN;
  let timerSet = false;

  const pump = () => {
    while (active < concurrency && left > 0) {
      const at = Math.max(nextAt, pausedUntil);
      if (at > now) {
        if (!timerSet) {
          timerSet = true;
          events.push(client(at + random() * 2), () => {
            timerSet = false;
            pump();
          });
        }
        return;
      }
      nextAt = Math.max(nextAt + gap, now - gap);
      left -= 1;
      active += 1;
      requests += 1;
      events.push(now + wire(), () => {
        const verdict = limit.admit();
        events.push(now + (verdict.allowed ? latency : 0), () => {
          verdict.release?.();
          const retryAfter = verdict.headers['retry-after'];
          events.push(client(now + wire()), () => {
            active -= 1;
            if (!verdict.allowed) {
              throttled += 1;
              left += 1;
              // (Told the rate, it keeps to it: only a Retry-After pauses it.)
              if (retryAfter !== undefined) pausedUntil = Math.max(pausedUntil, now + Number(retryAfter) * 1000);
            } else if (++done === rows) end = now;
            pump();
          });
        });
      });
    }
  };
  pump();
  events.run(() => done >= rows, (t) => (now = t));
  const wallMs = end - t0;
  return { rows, wallMs, share: idealWall(server, rows, opts.concurrency ?? 4, t0) / wallMs, requests, throttled };
}
