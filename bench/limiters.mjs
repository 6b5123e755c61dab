// `npm run bench -- --only=limiters`: callctl against the rate limiters services really run —
// Debian's nginx (`limit_req … nodelay`, `limit_conn`), npm's express-rate-limit and
// rate-limiter-flexible — each in front of the bench's backend (the sandbox with its own limit
// off: POST /api/v1/contacts answering like the API, matching on the E.164 phone) on loopback.
// Per limiter, each against a fresh backend and limiter: a naive client told the rate
// (bench/naive.mjs, the reference, same run), then callctl's first and second imports with one
// config folder (the memory), and what callctl remembers (`callctl limit --json`) beside the
// configured limit. Every row must be stored exactly once. About 15 minutes at 30 s a cell
// (`--limiters-seconds=S`; `--limiters=<text>`: only the limiters whose name holds it).
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { startSandbox } from '../dist/sandbox/index.cjs';
import { idealWall } from '../test/helpers/pace-sim.ts';
import { REAL_LIMITERS } from '../test/helpers/real-limiters.ts';

const root = resolve(import.meta.dirname, '..');
const NGINX = process.env.CALLCTL_BENCH_NGINX ?? '/usr/sbin/nginx';

/** A free port on loopback (nginx is given one; it cannot say which it took). */
function freePort() {
  return new Promise((done, fail) => {
    const s = createServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });
}

/** Waits until something answers on `port`. */
async function answering(port) {
  for (let i = 0; i < 100; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      await res.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`nothing answers on port ${port}`);
}

/** Starts the limiter `real` in front of `backend` (an origin); returns its origin and a stop. */
export async function startFront(real, backend, work) {
  if (real.kind === 'nginx-req' || real.kind === 'nginx-conn') {
    const prefix = mkdtempSync(join(work, 'nginx-'));
    const tmp = join(prefix, 'tmp');
    mkdirSync(tmp);
    chmodSync(tmp, 0o777);
    const port = await freePort();
    const limit =
      real.kind === 'nginx-req'
        ? `limit_req zone=req burst=${real.burst} nodelay; limit_req_status 429;${real.retryAfter !== undefined ? ` add_header Retry-After ${real.retryAfter} always;` : ''}`
        : `limit_conn conn ${real.max}; limit_conn_status 429;`;
    const conf = `worker_processes 1;
error_log ${prefix}/error.log;
pid ${prefix}/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${tmp}/body; proxy_temp_path ${tmp}/proxy; fastcgi_temp_path ${tmp}/fastcgi; uwsgi_temp_path ${tmp}/uwsgi; scgi_temp_path ${tmp}/scgi;
  limit_req_zone $binary_remote_addr zone=req:1m rate=${real.kind === 'nginx-req' ? real.rate : 1}r/s;
  limit_conn_zone $binary_remote_addr zone=conn:1m;
  upstream backend { server ${backend.replace(/^http:\/\//, '')}; keepalive 32; }
  server {
    listen 127.0.0.1:${port};
    location /health { proxy_pass http://backend; }
    location / {
      ${limit}
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`;
    writeFileSync(join(prefix, 'nginx.conf'), conf);
    const child = spawn(NGINX, ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log'), '-g', 'daemon off;'], { stdio: 'ignore' });
    await answering(port);
    return { origin: `http://127.0.0.1:${port}`, stop: () => stopChild(child) };
  }
  const spec = real.kind === 'express' ? { quota: real.quota, windowMs: real.windowMs, headers: real.headers } : { points: real.points, durationMs: real.durationMs };
  const child = spawn(process.execPath, [join(root, 'bench/limiter-front.mjs'), real.kind, JSON.stringify(spec), backend], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((done, fail) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) done(Number(m[1]));
    });
    child.on('exit', (code) => fail(new Error(`${real.kind} front exited ${code}`)));
  });
  return { origin: `http://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

function stopChild(child) {
  return new Promise((done) => {
    if (child.exitCode !== null) return done();
    child.on('exit', () => done());
    child.kill('SIGTERM');
  });
}

const pct = (x) => `${(x * 100).toFixed(1)} %`;

/** The configured limit, as `callctl limit` would say it. */
function configured(s) {
  switch (s.real.kind) {
    case 'nginx-req':
      return `bucket ${s.real.rate}/s (burst ${s.real.burst})`;
    case 'express':
      return `window ${s.real.quota} / ${s.real.windowMs / 1000} s`;
    case 'flexible':
      return `window ${s.real.points} / ${s.real.durationMs / 1000} s`;
    case 'nginx-conn':
      return `cap of ${s.real.max}`;
  }
}

/** What callctl remembers, shortly. */
function learnt(limit) {
  if (!limit) return '—';
  const r = Math.round(limit.rate * 10) / 10;
  if (limit.shape === 'window') return `window ${limit.quota} / ${limit.window.toFixed(2)} s`;
  if (limit.shape === 'bucket') return `bucket ${r}/s (${Math.round(limit.burst ?? 0)})`;
  if (limit.shape === 'concurrency') return `cap of ${limit.maxInFlight}, ${r}/s`;
  return `${limit.shape} ${r}/s`;
}

export async function limitersSection({ say, callctl, run, leads, work, args }) {
  const seconds = Number(args.find((a) => a.startsWith('--limiters-seconds='))?.slice(19) ?? 30);
  const only = args.find((a) => a.startsWith('--limiters='))?.slice(11);
  say('');
  say(`## 1b. Pace against real limiters — ${seconds}-second imports, naive client told the rate as the reference`);
  say('');
  say('| limiter (configuration) | naive, told the rate | callctl first run | second run | learnt (configured) | rows once |');
  say('|---|---|---|---|---|---|');
  for (const [name, s] of REAL_LIMITERS.filter(([n]) => only === undefined || n.includes(only))) {
    const R = s.shape === 'concurrency' ? (s.maxInflight * 1000) / s.latencyMs : s.rate;
    const quota = s.windowMs ? Math.round((s.rate * s.windowMs) / 1000) : 0;
    // (Four quotas of a window at least: a first run reads a window from the two pauses between.)
    const N = Math.max(Math.round(seconds * R), 4 * quota);
    // Whole again between runs: a window's length, a bucket's size at its rate; two seconds at least.
    const rest = Math.max(2000, (s.windowMs ?? 0) + 500, ((s.burst ?? 0) / Math.max(1, R)) * 1000 + 500);
    const sb = await startSandbox({ port: 0, rateLimit: 0, latencyMs: s.latencyMs ?? 0 });
    const front = await startFront(s.real, new URL(sb.baseUrl).origin, work);
    const baseUrl = `${front.origin}/api/v1`;
    const env = { CALLCTL_BASE_URL: baseUrl, CALLCTL_API_KEY: sb.secretKey, CALLCTL_CONFIG_DIR: mkdtempSync(join(work, 'limits-')) };
    const cells = [];
    let once = true;
    let limit;
    try {
      for (const [i, who] of ['naive', 'first', 'second'].entries()) {
        // Each run its own phones (the bench's leads: +447400…; offset per run).
        const file = leads(N, `real-${i}-${N}.csv`, i * 100_000);
        const before = sb.contacts().length;
        const t0 = performance.now();
        let elapsedMs;
        let throttled;
        if (who === 'naive') {
          const res = await run(process.execPath, [join(root, 'bench/naive.mjs'), baseUrl, sb.secretKey, file, s.shape === 'concurrency' ? `cap:${s.maxInflight}` : String(s.rate)]);
          if (res.code !== 0) throw new Error(`naive client failed: ${res.stderr}`);
          ({ elapsedMs, throttled } = JSON.parse(res.stdout));
        } else {
          const res = await callctl(['import', file, '--json', '--restart'], { env });
          if (res.code !== 0) throw new Error(`callctl (${who}) failed: ${res.stderr}`);
          const summary = JSON.parse(res.stdout);
          elapsedMs = summary.elapsedMs;
          throttled = summary.throttled;
        }
        const phones = sb.contacts().slice(before).map((c) => c.phone);
        once &&= phones.length === N && new Set(phones).size === N;
        cells.push(`${pct(idealWall(s, N, 4, t0) / elapsedMs)} (${throttled})`);
        await new Promise((r) => setTimeout(r, rest));
      }
      const shown = await callctl(['limit', '--json'], { env });
      limit = shown.code === 0 ? JSON.parse(shown.stdout) : undefined;
    } finally {
      await front.stop();
      await sb.close();
    }
    say(`| ${name} | ${cells.join(' | ')} | ${learnt(limit?.shape ? limit : undefined)} (${configured(s)}) | ${once ? 'yes' : 'NO'} |`);
  }
  say('');
  say('Share: the least wall time the limiter allows for the rows (idealWall) over the measured one; (n): 429s met. Command: `npm run bench -- --only=limiters`.');
}
