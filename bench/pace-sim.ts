// The pace matrix on a virtual clock: every limiter shape × every header form, the worst of 3 seeds,
// printed as Markdown tables (BENCHMARKS.md §1 carries their figures). Deterministic and quick:
//   node --import tsx bench/pace-sim.ts            first run, second run, long import
//   node --import tsx bench/pace-sim.ts --shared   also three processes on one budget
//   --only=first|second|long|changed|shared        one table
//   --only=limiters                                the limiters services run, beside a naive client told the rate
import { limitRate, simulate, type SimResult, type SimServer } from '../test/helpers/pace-sim.js';

export const shapes: Array<[string, Omit<SimServer, 'headers'>]> = [
  ['token bucket 200/s, burst 20', { shape: 'bucket', rate: 200, burst: 20 }],
  ['token bucket 20/s, burst 1', { shape: 'bucket', rate: 20, burst: 1 }],
  ['token bucket 5/s, burst 1', { shape: 'bucket', rate: 5, burst: 1 }],
  ['token bucket 50/s, burst 50', { shape: 'bucket', rate: 50, burst: 50 }],
  ['token bucket 100/s, burst 300', { shape: 'bucket', rate: 100, burst: 300 }],
  ['token bucket 10/s, burst 10', { shape: 'bucket', rate: 10, burst: 10 }],
  ['token bucket 10/s, burst 5', { shape: 'bucket', rate: 10, burst: 5 }],
  ['token bucket 4/s, burst 40', { shape: 'bucket', rate: 4, burst: 40 }],
  ['token bucket 40/s, burst 20', { shape: 'bucket', rate: 40, burst: 20 }],
  ['token bucket 60/s, burst 3', { shape: 'bucket', rate: 60, burst: 3 }],
  ['token bucket 100/s, burst 2', { shape: 'bucket', rate: 100, burst: 2 }],
  ['token bucket 2/s, burst 10', { shape: 'bucket', rate: 2, burst: 10 }],
  ['fixed window, 10 per 1 s', { shape: 'window', rate: 10, windowMs: 1000 }],
  ['fixed window, 100 per 1 s', { shape: 'window', rate: 100, windowMs: 1000 }],
  ['fixed window, 300 per 10 s', { shape: 'window', rate: 30, windowMs: 10_000 }],
  ['fixed window, 1200 per 60 s', { shape: 'window', rate: 20, windowMs: 60_000 }],
  ['sliding window, 100 per 1 s', { shape: 'sliding', rate: 100, windowMs: 1000 }],
  ['sliding window, 300 per 10 s', { shape: 'sliding', rate: 30, windowMs: 10_000 }],
  ['at most 3 in flight, 40 ms each', { shape: 'concurrency', rate: 0, maxInflight: 3, latencyMs: 40 }],
  ['at most 2 in flight, 100 ms each', { shape: 'concurrency', rate: 0, maxInflight: 2, latencyMs: 100 }],
];
const forms = ['none', 'draft6', 'draft8', 'x'] as const;
const seeds = [1, 2, 3];
const pct = (x: number) => (x * 100).toFixed(1);
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = arg('only');
// (Imported for its shapes — scratch scripts, tests — it prints nothing.)
const main = process.argv[1] !== undefined && import.meta.filename === (await import('node:fs')).realpathSync(process.argv[1]);
const want = (table: string) => main && (only === undefined ? table !== 'shared' || process.argv.includes('--shared') : only === table);

/** A 30-second import, then a second one that starts from what the first left (the memory). */
export function secondRun(s: SimServer, seed: number, server2: SimServer = s, seconds = 30): { first: SimResult; second: SimResult } {
  const first = simulate(s, { seed });
  return { first, second: simulate(server2, { seed: seed + 100, remembered: first.snapshot, seconds }) };
}

function table(title: string, cell: (s: SimServer) => string, heading = 'share / 429s'): void {
  console.log(`\n${title}\n`);
  console.log(`| server's limiter | ${forms.map((f) => `${f}: ${heading}`).join(' | ')} |`);
  console.log(`|---|${forms.map(() => '---').join('|')}|`);
  for (const [name, s] of shapes) console.log(`| ${name} | ${forms.map((headers) => cell({ ...s, headers })).join(' | ')} |`);
}

const worst = (rs: SimResult[], share: (r: SimResult) => number) => {
  const least = Math.min(...rs.map(share));
  return `${Number.isNaN(least) ? '—' : `${pct(least)} %`} / ${Math.max(...rs.map((r) => r.throttled))}`;
};

if (want('first')) table('First run: a 30-second import, nothing remembered (share of the limit / most 429s of 3 seeds)', (s) => worst(seeds.map((seed) => simulate(s, { seed })), (r) => r.share));
if (want('second')) table('Second run: a 30-second import after one, starting from what it remembered', (s) => worst(seeds.map((seed) => secondRun(s, seed).second), (r) => r.share));
if (want('long')) table('Long import: the share after the first 20 s of a two-minute import, first run', (s) => worst(seeds.map((seed) => simulate(s, { seed, seconds: 120 })), (r) => r.after20));

// `--only=changed`: the limit halved or raised half again since the first run (docs/pacing.md).
if (main && only === 'changed') {
  // (A cap raised by one place: --concurrency 4 allows no more than four.)
  const scaled = (s: SimServer, k: number): SimServer => (s.shape === 'concurrency' ? { ...s, maxInflight: k > 1 ? (s.maxInflight ?? 1) + 1 : Math.max(1, Math.round((s.maxInflight ?? 1) * k)) } : { ...s, rate: s.rate * k });
  table(
    'Limit halved since: 429s until the pace held under the new limit (requests refused together count once) / share of the new limit in 30 s',
    (s) => {
      const rs = seeds.map((seed) => secondRun(s, seed, scaled(s, 0.5)).second);
      return `${Math.max(...rs.map((r) => untilUnder(r, limitRate(scaled(s, 0.5)))))} / ${pct(Math.min(...rs.map((r) => r.share)))} %`;
    },
    '429s / share',
  );
  table(
    'Limit raised half again since (a cap: by one place): seconds until the pace reached 95 % of it, in a 5-minute import',
    (s) => {
      const rs = seeds.map((seed) => secondRun(s, seed, scaled(s, 1.5), 300).second);
      const worst = Math.max(...rs.map((r) => (r.reached95 === undefined ? Infinity : r.reached95 / 1000)));
      return Number.isFinite(worst) ? `${worst.toFixed(0)} s` : 'not in 300 s';
    },
    'reached',
  );
}

// `--only=limiters`: nginx, express-rate-limit and rate-limiter-flexible as their sources behave
// (test/helpers/real-limiters.ts), 40-s imports, worst of 3 seeds; the naive client told the rate
// (test/helpers/naive-sim.ts) in the same simulation. Over real HTTP: `npm run bench -- --only=limiters`.
if (main && only === 'limiters') {
  const { REAL_LIMITERS } = await import('../test/helpers/real-limiters.js');
  const { simulateNaive } = await import('../test/helpers/naive-sim.js');
  const cell = (rs: Array<{ share: number; throttled: number }>) => `${pct(Math.min(...rs.map((r) => r.share)))} % (${Math.min(...rs.map((r) => r.throttled))}–${Math.max(...rs.map((r) => r.throttled))})`;
  const shown = (l: SimResult['snapshot']) =>
    l === undefined ? '—' : l.shape === 'window' ? `window ${l.quota} / ${((l.windowMs ?? 0) / 1000).toFixed(3)} s` : l.shape === 'concurrency' ? `cap of ${l.maxInFlight}` : `${l.shape} ${l.rate.toFixed(1)}/s`;
  console.log('\nThe limiters services run: 40-s imports, worst of 3 seeds (share (429s, least–most))\n');
  console.log('| limiter (configuration) | naive, told the rate | callctl first run | second run | learnt |');
  console.log('|---|---|---|---|---|');
  for (const [name, s] of REAL_LIMITERS) {
    const firsts = seeds.map((seed) => simulate(s, { seed, seconds: 40 }));
    const seconds = firsts.map((f, i) => simulate(s, { seed: (seeds[i] as number) + 100, seconds: 40, remembered: f.snapshot }));
    console.log(`| ${name} | ${cell(seeds.map((seed) => simulateNaive(s, { seed, seconds: 40 })))} | ${cell(firsts)} | ${cell(seconds)} | ${[...new Set(firsts.map((f) => shown(f.snapshot)))].join(', ')} |`);
  }
}

/** 429s met until the pace after one was under `limit` (requests refused together count once; a window's: its quota per length). */
export function untilUnder(r: SimResult, limit: number): number {
  let n = 0;
  let last = -Infinity;
  for (const [i, t] of r.at429.entries()) {
    if (t - last > 50) n += 1;
    last = t;
    if ((r.paceAfter429[i] as number) <= limit) return n;
  }
  return n;
}

// `--shared`: the same shapes with three processes on one budget (test/helpers/shared-sim.ts), ten
// seconds' worth of rows each, 4 seeds.
if (want('shared')) {
  const { simulateShared } = await import('../test/helpers/shared-sim.js');
  table('Three processes, one budget (ten seconds of rows each, worst of 4 seeds: share / 429 share)', (s) => {
    const quota = s.windowMs ? (s.rate * s.windowMs) / 1000 : 0;
    const rs = [1, 2, 3, 4].map((seed) =>
      simulateShared({ processes: 3, rowsEach: Math.max(Math.round(limitRate(s) * 10), quota), rate: s.rate, burst: s.burst ?? 0, shape: s.shape, windowMs: s.windowMs, maxInflight: s.maxInflight, latencyMs: s.latencyMs, headers: s.headers, seed }),
    );
    return `${pct(Math.min(...rs.map((r) => r.share)))} % / ${pct(Math.max(...rs.map((r) => r.share429)))} %`;
  });
}
