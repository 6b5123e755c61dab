// A hunt for cells the pace matrix cannot show: the simulation (test/helpers/pace-sim.ts) over a
// grid of limiter shapes × wires of 0.1–70 ms each way × 4 and 8 in flight × seeds, each cell's
// share taken against what its concurrency allows as well as its limit (over a long wire, 4 in
// flight cannot reach a fast bucket). Deterministic; a header form takes about a minute.
//
//   node --import tsx bench/pace-hunt.ts --headers=draft6 --out=/tmp/a.json   # run, worst cells
//   node --import tsx bench/pace-hunt.ts --compare=/tmp/a.json,/tmp/b.json     # what a change moved
//
// Options: --headers=none,draft6,x,draft8 (default none), --seeds=3, --only=<text in a cell's name>,
// --worst=20 (cells listed), --out=<file> (every cell as JSON, for --compare).
import { writeFileSync, readFileSync } from 'node:fs';
import { simulate, type SimResult, type SimServer } from '../test/helpers/pace-sim.js';

type Form = SimServer['headers'];
interface Cell {
  name: string;
  /** Share of what both the limit and the concurrency over this wire allow. */
  share: number;
  share429: number;
}

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const pct = (x: number) => (x * 100).toFixed(1);

function shapes(): Array<[string, Omit<SimServer, 'headers'>]> {
  const out: Array<[string, Omit<SimServer, 'headers'>]> = [];
  for (const rate of [5, 12, 20, 30, 60, 150]) {
    const bursts = new Set([1, 3, Math.max(2, Math.round(rate / 4)), rate, 2 * rate]);
    for (const burst of bursts) out.push([`bucket ${rate}/s burst ${burst}`, { shape: 'bucket', rate, burst }]);
  }
  for (const shape of ['window', 'sliding'] as const) {
    for (const [quota, seconds] of [[5, 1], [10, 1], [40, 1], [100, 1], [20, 2], [300, 10], [1200, 60]] as const) {
      out.push([`${shape === 'window' ? 'fixed' : 'sliding'} ${quota} per ${seconds} s`, { shape, rate: quota / seconds, windowMs: seconds * 1000 }]);
    }
  }
  for (const [max, latencyMs] of [[3, 40], [2, 100], [8, 20]] as const) out.push([`cap ${max} @ ${latencyMs} ms`, { shape: 'concurrency', rate: 0, maxInflight: max, latencyMs }]);
  return out;
}

const wires: Array<[string, { min: number; spread: number }]> = [
  ['loopback', { min: 0.1, spread: 0.6 }],
  ['1–6 ms', { min: 1, spread: 5 }],
  ['20–25 ms', { min: 20, spread: 5 }],
  ['40–50 ms', { min: 40, spread: 10 }],
  ['60–70 ms', { min: 60, spread: 10 }],
];

/**
 * A fixed window's least wall time when the concurrency bounds how much of each window a client
 * can use: the simulation's ideal assumes a whole quota fits in the first, partial window, and
 * spilling into one more window is then read as the pacer's loss. (The windows are aligned to the
 * clock, as the sandbox's are: the first ends at the next multiple of their length.)
 */
function fixedWindowIdeal(s: Omit<SimServer, 'headers'>, r: SimResult, concurrency: number, roundTrip: number): number {
  const W = s.windowMs ?? 1000;
  const quota = Math.max(1, Math.round((s.rate * W) / 1000));
  const rows = r.rows;
  if (rows <= quota) return r.idealMs;
  const firstEnd = W - (r.startedAt % W);
  const perMs = concurrency / roundTrip;
  // Arrivals at the server (a one-way trip after the sends), window by window.
  let at = roundTrip / 2;
  let end = firstEnd;
  let left = rows;
  for (;;) {
    const n = Math.min(quota, left, Math.max(1, Math.floor((end - at) * perMs)));
    left -= n;
    at += n / perMs;
    if (left === 0) return at + roundTrip / 2;
    at = Math.max(at, end);
    end += W;
  }
}

/**
 * A bucket's or a sliding window's least wall time for a client told the limit that sends as fast as
 * its concurrency allows over this wire: each request reaches the server when it may leave and
 * when the limit admits it, whichever is later.
 */
function greedyIdeal(s: Omit<SimServer, 'headers'>, rows: number, concurrency: number, roundTrip: number): number {
  const perMs = concurrency / roundTrip;
  const arrivals: number[] = [];
  if (s.shape === 'sliding') {
    const W = s.windowMs ?? 1000;
    const quota = Math.max(1, Math.round((s.rate * W) / 1000));
    for (let j = 0; j < rows; j++) arrivals.push(Math.max(roundTrip / 2 + j / perMs, j >= quota ? (arrivals[j - quota] as number) + W : 0));
  } else {
    const burst = s.burst ?? Math.max(1, Math.round(s.rate));
    let tokens = burst;
    let t = roundTrip / 2;
    for (let j = 0; j < rows; j++) {
      const ready = Math.max(roundTrip / 2 + j / perMs, t);
      tokens = Math.min(burst, tokens + ((ready - t) * s.rate) / 1000);
      t = ready;
      if (tokens < 1) {
        t += ((1 - tokens) * 1000) / s.rate;
        tokens = 1;
      }
      tokens -= 1;
      arrivals.push(t);
    }
  }
  return (arrivals[rows - 1] as number) + roundTrip / 2;
}

function hunt(forms: Form[], seeds: number, only: string): Cell[] {
  const cells: Cell[] = [];
  for (const headers of forms) {
    for (const [shapeName, s] of shapes()) {
      for (const [wireName, wire] of wires) {
        for (const concurrency of [4, 8]) {
          const name = `${headers} | ${shapeName} | wire ${wireName} | ${concurrency} in flight`;
          if (only && !name.includes(only)) continue;
          for (let seed = 1; seed <= seeds; seed++) {
            const r = simulate({ ...s, headers }, { seed, concurrency, wire, seconds: 30 });
            // What the concurrency allows over this wire: each request holds a place for a round
            // trip and the server's time.
            const roundTrip = 2 * (wire.min + wire.spread / 2) + (s.latencyMs ?? 0);
            const ideal =
              s.shape === 'window'
                ? fixedWindowIdeal(s, r, concurrency, roundTrip)
                : s.shape === 'concurrency'
                  ? r.idealMs
                  : greedyIdeal(s, r.rows, concurrency, roundTrip);
            cells.push({ name: `${name} | seed ${seed}`, share: ideal / r.wallMs, share429: r.share429 });
          }
        }
      }
    }
  }
  return cells;
}

function report(cells: Cell[], worst: number): void {
  const shares = cells.map((c) => c.share).sort((a, b) => a - b);
  const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
  const under = (x: number) => shares.filter((s) => s < x).length;
  console.log(`${cells.length} cells: mean ${pct(mean)} %, least ${pct(shares[0] ?? 0)} %; under 95 %: ${under(0.95)}, under 90 %: ${under(0.9)}, under 80 %: ${under(0.8)}; 429s over 2 %: ${cells.filter((c) => c.share429 > 0.02).length}`);
  for (const c of [...cells].sort((a, b) => a.share - b.share).slice(0, worst)) console.log(`  ${pct(c.share).padStart(5)} %  429s ${pct(c.share429)} %  ${c.name}`);
}

function compare(aFile: string, bFile: string, worst: number): void {
  const a = new Map((JSON.parse(readFileSync(aFile, 'utf8')) as Cell[]).map((c) => [c.name, c]));
  const b = JSON.parse(readFileSync(bFile, 'utf8')) as Cell[];
  const moved = b.filter((c) => a.has(c.name)).map((c) => ({ name: c.name, from: (a.get(c.name) as Cell).share, to: c.share }));
  const better = moved.filter((m) => m.to - m.from > 0.01);
  const worse = moved.filter((m) => m.from - m.to > 0.01);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  console.log(`${moved.length} cells in both: mean ${pct(mean(moved.map((m) => m.from)))} → ${pct(mean(moved.map((m) => m.to)))} %; better by over a point: ${better.length}, worse: ${worse.length}`);
  for (const [label, list] of [['worse', worse], ['better', better]] as const) {
    console.log(`${label}:`);
    for (const m of [...list].sort((x, y) => Math.abs(y.to - y.from) - Math.abs(x.to - x.from)).slice(0, worst)) console.log(`  ${pct(m.from).padStart(5)} → ${pct(m.to).padStart(5)} %  ${m.name}`);
  }
}

const worst = Number(arg('worst', '20'));
const pair = arg('compare', '');
if (pair) {
  const [aFile, bFile] = pair.split(',');
  compare(aFile as string, bFile as string, worst);
} else {
  const cells = hunt(arg('headers', 'none').split(',') as Form[], Number(arg('seeds', '3')), arg('only', ''));
  report(cells, worst);
  const out = arg('out', '');
  if (out) writeFileSync(out, JSON.stringify(cells));
}
