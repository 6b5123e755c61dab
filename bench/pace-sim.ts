// The pace matrix on a virtual clock: every limiter shape × every header form, a 30-second import
// each (3 seeds), printed as the Markdown table BENCHMARKS.md carries. Deterministic and quick:
// `node --import tsx bench/pace-sim.ts` (`--shared` adds three processes on one budget).
import { limitRate, simulate, type SimServer } from '../test/helpers/pace-sim.js';

const shapes: Array<[string, Omit<SimServer, 'headers'>]> = [
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
const pct = (x: number) => `${(x * 100).toFixed(1)}`;
if (!process.argv.includes('--only-shared')) {
  console.log(`| server's limiter | ${forms.map((f) => `${f}: share / 429s`).join(' | ')} |`);
  console.log(`|---|${forms.map(() => '---').join('|')}|`);
  for (const [name, s] of shapes) {
    const cells = forms.map((headers) => {
      const rs = [1, 2, 3].map((seed) => simulate({ ...s, headers }, { seed }));
      const share = Math.min(...rs.map((r) => r.share));
      const worst429 = Math.max(...rs.map((r) => r.share429));
      return `${pct(share)} % / ${pct(worst429)} %`;
    });
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
}

// `--shared`: the same shapes with three processes on one budget (test/helpers/shared-sim.ts), ten
// seconds' worth of rows each, 4 seeds. `--only-shared` skips the single-process table.
if (process.argv.includes('--shared') || process.argv.includes('--only-shared')) {
  const { simulateShared } = await import('../test/helpers/shared-sim.js');
  console.log('');
  console.log(`| three processes, one budget: server's limiter | ${forms.map((f) => `${f}: share / 429s`).join(' | ')} |`);
  console.log(`|---|${forms.map(() => '---').join('|')}|`);
  for (const [name, s] of shapes) {
    const quota = s.windowMs ? (s.rate * s.windowMs) / 1000 : 0;
    const cells = forms.map((headers) => {
      const rs = [1, 2, 3, 4].map((seed) =>
        simulateShared({ processes: 3, rowsEach: Math.max(Math.round(limitRate({ ...s, headers }) * 10), quota), rate: s.rate, burst: s.burst ?? 0, shape: s.shape, windowMs: s.windowMs, maxInflight: s.maxInflight, latencyMs: s.latencyMs, headers, seed }),
      );
      return `${pct(Math.min(...rs.map((r) => r.share)))} % / ${pct(Math.max(...rs.map((r) => r.share429)))} %`;
    });
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
}
