// The pace section's second-run and long-import cells over real HTTP (bench/run.mjs): a fresh
// sandbox in the cell's shape, callctl's import against it, the share measured as the simulation
// measures it (test/helpers/pace-sim.ts, idealWall).
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox } from '../dist/sandbox/index.cjs';
import { idealWall } from '../test/helpers/pace-sim.ts';

const simShape = (shape, headers) => ({ shape: shape.limiter, rate: shape.rateLimit, burst: shape.burst, windowMs: shape.windowMs, maxInflight: shape.maxInflight, latencyMs: shape.latencyMs, headers });

/**
 * `second`: two imports of `seconds` each, the second after the limit is whole again, with one
 * config folder (the memory); the second's share. Otherwise one import and its share after 20 s.
 */
export async function secondCell({ shape, headers, wireDelayMs, work, leads, callctl, seconds, second }) {
  const R = shape.limiter === 'concurrency' ? (shape.maxInflight * 1000) / shape.latencyMs : shape.rateLimit;
  const quota = shape.windowMs ? Math.round((R * shape.windowMs) / 1000) : 0;
  const N = Math.max(Math.round(seconds * R), 3 * quota);
  const sb = await startSandbox({ port: 0, ...shape, rateLimitHeaders: headers, wireDelayMs });
  const env = { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey, CALLCTL_CONFIG_DIR: mkdtempSync(join(work, 'memory-')) };
  try {
    if (second) {
      const first = await callctl(['import', leads(N, `first-${shape.limiter}-${headers}-${N}.csv`), '--json', '--restart'], { env });
      if (first.code !== 0) throw new Error(`first run failed: ${first.stderr}`);
      // Whole again: a window's length, a bucket's size at its rate, two seconds at least.
      await new Promise((r) => setTimeout(r, Math.max(2000, shape.windowMs ?? 0, ((shape.burst ?? 0) / Math.max(1, R)) * 1000)));
    }
    const before = sb.stats();
    const contactsBefore = sb.contacts().length;
    const t0 = performance.now(); // the sandbox aligns its windows to this clock
    const wall0 = Date.now();
    // (The second run's rows match the first's contacts: one request each all the same.)
    const res = await callctl(['import', leads(N, `${second ? 'second' : 'long'}-${shape.limiter}-${headers}-${N}.csv`), '--json', '--restart'], { env });
    if (res.code !== 0) throw new Error(`pace run failed: ${res.stderr}`);
    const st = sb.stats();
    const throttled = st.throttled - before.throttled;
    const requests = st.requests - before.requests;
    const summary = JSON.parse(res.stdout);
    const s = simShape(shape, headers);
    let share = idealWall(s, N, 4, t0) / summary.elapsedMs;
    if (!second) {
      const done = sb.contacts().slice(contactsBefore).map((c) => Date.parse(c.createdAt) - wall0).sort((a, b) => a - b);
      const at20 = done.findIndex((t) => t >= 20_000) + 1;
      const from = quota > 0 ? Math.ceil((at20 - 1) / quota) * quota + 1 : at20;
      share = at20 <= 0 || done.length - from < 3 * quota ? Number.NaN : (idealWall(s, done.length, 4, t0) - idealWall(s, from, 4, t0)) / ((done.at(-1) ?? 0) - (done[from - 1] ?? 0));
    }
    return `${Number.isNaN(share) ? '—' : `${(share * 100).toFixed(1)} %`} / ${throttled} of ${requests}`;
  } finally {
    await sb.close();
  }
}
