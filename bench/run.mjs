#!/usr/bin/env node
// `npm run bench`: the figures of BENCHMARKS.md, each a ratio taken within one run against servers
// on loopback that this script starts and stops. `--smoke` runs a tiny version (for CI);
// `--only pace,dryrun,...` picks sections. Results go to stdout as Markdown and to bench/results/.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { startSandbox } from '../dist/sandbox/index.js';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const only = (args.find((a) => a.startsWith('--only='))?.slice(7) ?? 'pace,unthrottled,dryrun,startup,listing,shared').split(',');
const redisUrl = process.env.CALLCTL_BENCH_REDIS_URL;
const runs = smoke ? 1 : Number(args.find((a) => a.startsWith('--runs='))?.slice(7) ?? 3);
const work = mkdtempSync(join(tmpdir(), 'callctl-bench-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const out = [];
const say = (line) => {
  out.push(line);
  console.log(line);
};

/** Runs a command, returns wall ms, exit code, stdout, and the child's peak RSS (MB) when asked. */
function run(cmd, argv, { env = {}, rss = false, cwd = work } = {}) {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(cmd, rss ? ['-r', join(root, 'bench/maxrss.cjs'), ...argv] : argv, {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', CALLCTL_CONFIG_DIR: join(work, 'config'), ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let fd3 = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdio[3].on('data', (d) => (fd3 += d));
    child.on('error', fail);
    child.on('close', (code) => {
      const m = /MAXRSS_KB (\d+)/.exec(fd3);
      const cpu = /CPU_US (\d+)/.exec(fd3);
      done({ ms: performance.now() - t0, code, stdout, stderr, rssMb: m ? Number(m[1]) / 1024 : undefined, cpuMs: cpu ? Number(cpu[1]) / 1000 : undefined });
    });
  });
}
const callctl = (argv, opts) => run(process.execPath, [join(root, 'bin/callctl.js'), ...argv], opts);

function leads(n, name) {
  const path = join(work, name);
  const rows = ['First Name,Last Name,Phone,Email'];
  for (let i = 0; i < n; i++) rows.push(`Lead${i},Bench,+447400${String(i).padStart(6, '0')},lead${i}@example.com`);
  writeFileSync(path, `${rows.join('\n')}\n`);
  return path;
}

async function bigLeads(n, name) {
  const path = join(work, name);
  const stream = createWriteStream(path);
  stream.write('First Name,Last Name,Mobile,Email,City,Tags\n');
  const cities = ['London', 'Leeds', 'York', 'Bath', 'Ely'];
  for (let i = 0; i < n; i++) {
    // National format half the time: the realistic mix, and the costlier parse.
    const phone = i % 2 === 0 ? `+44 7400 ${String(i % 1_000_000).padStart(6, '0')}` : `07400 ${String(i % 1_000_000).padStart(6, '0')}`;
    if (!stream.write(`Lead${i},Bench,${phone},lead${i}@example.com,${cities[i % 5]},bench;${i % 7}\n`)) await once(stream, 'drain');
  }
  stream.end();
  await once(stream, 'finish');
  return path;
}

say(`# callctl benchmarks — ${new Date().toISOString()}`);
say('');
say(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}. Command: \`npm run bench${smoke ? ' -- --smoke' : ''}\` (${runs} run${runs === 1 ? '' : 's'} each, median).`);

try {
  if (only.includes('pace')) {
    const N = smoke ? 120 : 1000;
    const R = smoke ? 40 : 50;
    const B = smoke ? 10 : 50;
    say('');
    say(`## 1. Pace — ${N} rows, sandbox at ${R}/s, burst ${B}; ideal (N − B) / R = ${((N - B) / R).toFixed(1)} s`);
    say('');
    say('| server | wall (median) | share of the limit | 429 share | runs |');
    say('|---|---|---|---|---|');
    for (const headers of [true, false]) {
      const shares = [];
      const throttles = [];
      const walls = [];
      for (let r = 0; r < runs; r++) {
        const sb = await startSandbox({ port: 0, rateLimit: R, burst: B, rateLimitHeaders: headers });
        const file = leads(N, `pace-${headers}-${r}.csv`);
        const res = await callctl(['import', file, '--json', '--restart'], { env: { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey } });
        const st = sb.stats();
        await sb.close();
        if (res.code !== 0) throw new Error(`pace run failed: ${res.stderr}`);
        const summary = JSON.parse(res.stdout);
        const secs = summary.elapsedMs / 1000;
        walls.push(secs);
        shares.push(((N - B) / R) / secs);
        throttles.push(st.throttled / st.requests);
      }
      say(`| ${headers ? 'RateLimit-* headers' : 'only 429 + Retry-After'} | ${median(walls).toFixed(2)} s | ${(median(shares) * 100).toFixed(1)} % | ${(median(throttles) * 100).toFixed(2)} % | ${shares.map((s) => `${(s * 100).toFixed(1)}%`).join(', ')} |`);
    }
  }

  if (only.includes('unthrottled')) {
    const N = smoke ? 300 : 5000;
    const C = 4;
    say('');
    say(`## 2. Unthrottled — ${N} rows, rate limit off, concurrency ${C}, vs a keep-alive fetch loop`);
    say('');
    say('| client | wall (median) | rows/s | ratio to fetch |');
    say('|---|---|---|---|');
    const mine = [];
    const ref = [];
    for (let r = 0; r < runs; r++) {
      for (const which of ['callctl', 'fetch']) {
        const sb = await startSandbox({ port: 0, rateLimit: 0 });
        const file = leads(N, `fast-${which}-${r}.csv`);
        const env = { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey };
        const res = which === 'callctl'
          ? await callctl(['--concurrency', String(C), 'import', file, '--json', '--restart'], { env })
          : await run(process.execPath, [join(root, 'bench/fetch-loop.mjs'), sb.baseUrl, sb.secretKey, file, String(C)]);
        const stored = sb.contacts().length;
        await sb.close();
        if (res.code !== 0 || stored !== N) throw new Error(`${which} run failed (${stored}/${N}): ${res.stderr}`);
        (which === 'callctl' ? mine : ref).push(res.ms);
      }
    }
    const m = median(mine);
    const f = median(ref);
    say(`| callctl import | ${(m / 1000).toFixed(2)} s | ${Math.round(N / (m / 1000))} | ${(f / m).toFixed(2)} |`);
    say(`| fetch loop | ${(f / 1000).toFixed(2)} s | ${Math.round(N / (f / 1000))} | 1.00 |`);
    say('');
    say('Wall times include process start-up for both (callctl also hashes the file and keeps its journal).');
  }

  if (only.includes('dryrun')) {
    say('');
    say('## 3. Dry run — generated rows (half national, half international phones), `import --dry-run --country GB`');
    say('');
    say('| rows | wall (median) | rows/s | peak RSS |');
    say('|---|---|---|---|');
    for (const n of smoke ? [2_000] : [100_000, 400_000, 1_000_000]) {
      const file = await bigLeads(n, `dry-${n}.csv`);
      const walls = [];
      const rss = [];
      for (let r = 0; r < runs; r++) {
        const res = await callctl(['import', file, '--dry-run', '--country', 'GB', '--json'], { rss: true });
        if (res.code !== 0) throw new Error(`dry run failed: ${res.stderr}`);
        walls.push(res.ms);
        rss.push(res.rssMb);
      }
      say(`| ${n.toLocaleString('en')} | ${(median(walls) / 1000).toFixed(2)} s | ${Math.round(n / (median(walls) / 1000)).toLocaleString('en')} | ${median(rss).toFixed(0)} MB |`);
      rmSync(file);
    }
  }

  if (only.includes('startup')) {
    // From the installed package, as users run it: `npm pack` the built tree and install the
    // tarball (runtime dependencies only) in a clean folder. --smoke uses the checkout instead
    // (no registry). Each command runs 15 times (2 warm-ups first, which also fill Node ≥ 22.8's
    // compile cache), against `node -e 0` in the same run, with this script's Node.
    const n = smoke ? 3 : 15;
    let bin = join(root, 'bin/callctl.js');
    let where = 'the checkout';
    if (!smoke) {
      const app = join(work, 'installed');
      mkdirSync(app, { recursive: true });
      writeFileSync(join(app, 'package.json'), '{"private":true}\n');
      // npm gets the whole environment: it may need proxy and CA settings to reach the registry.
      const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
      const pack = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], { env: npmEnv, cwd: root });
      if (pack.code !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
      const inst = await run('npm', ['install', '--no-audit', '--no-fund', '--omit=dev', join(work, pack.stdout.trim())], { env: npmEnv, cwd: app });
      if (inst.code !== 0) throw new Error(`npm install failed: ${inst.stderr}`);
      bin = join(app, 'node_modules/callctl/bin/callctl.js');
      where = 'the installed package';
    }
    const sb = await startSandbox({ port: 0, rateLimit: 0, seed: 50 });
    const apiEnv = { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey };
    say('');
    say(`## 4. Start-up — median of ${n} runs each, ${where}, Node ${process.version}`);
    say('');
    say('| command | wall, median | `node -e 0`, same rounds | ratio | CPU (user+sys), median | ratio |');
    say('|---|---|---|---|---|---|');
    // The machine is shared: each round runs `node -e 0` and then the command, so both meet the
    // same load, and the ratio is of the two medians. CPU time (reported by the preload that
    // also gives peak RSS, in both) is the steadier figure when other work competes for the cores.
    const once = async (argv, env) => {
      const r = await run(process.execPath, argv, { env, rss: true });
      if (r.code !== 0) throw new Error(`${argv.join(' ')} failed (${r.code}): ${r.stderr}`);
      return r;
    };
    const rows = [
      ['--version'],
      ['--help'],
      ['contacts', '--help'],
      ['import', '--help'],
      ['contacts', 'ls', '--limit', '1'],
      ['__complete', 'bash', 'cont'],
      ['__complete', 'bash', 'contacts', 'ls', '--format', ''],
      ['__complete', 'bash', 'import', 'x.csv', '--country', 'G'],
    ];
    try {
      for (const argv of rows) {
        const base = [];
        const mine = [];
        for (let i = 0; i < n + 2; i++) {
          const b = await once(['-e', '0']);
          const m = await once([bin, ...argv], apiEnv);
          if (i >= 2) {
            base.push(b);
            mine.push(m);
          }
        }
        const shown = argv.map((a) => (a === '' ? "''" : a)).join(' ');
        const [wm, wb] = [median(mine.map((r) => r.ms)), median(base.map((r) => r.ms))];
        const [cm, cb] = [median(mine.map((r) => r.cpuMs)), median(base.map((r) => r.cpuMs))];
        say(`| \`callctl ${shown}\` | ${wm.toFixed(0)} ms | ${wb.toFixed(0)} ms | ${(wm / wb).toFixed(2)} | ${cm.toFixed(0)} ms | ${(cm / cb).toFixed(2)} |`);
      }
    } finally {
      await sb.close();
    }
  }

  if (only.includes('listing')) {
    const N = smoke ? 1_000 : 100_000;
    say('');
    say(`## 5. Listing — \`contacts ls --all --limit 100 --format ndjson\` over ${N.toLocaleString('en')} contacts, rate limit off`);
    say('');
    say('| wall (median) | rows/s | peak RSS |');
    say('|---|---|---|');
    const sb = await startSandbox({ port: 0, rateLimit: 0, seed: N });
    const walls = [];
    const rss = [];
    for (let r = 0; r < runs; r++) {
      const res = await callctl(['contacts', 'ls', '--all', '--limit', '100', '--format', 'ndjson'], { env: { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey }, rss: true });
      const lines = res.stdout.split('\n').length - 1;
      if (res.code !== 0 || lines !== N) throw new Error(`listing failed (${lines}): ${res.stderr}`);
      walls.push(res.ms);
      rss.push(res.rssMb);
    }
    await sb.close();
    say(`| ${(median(walls) / 1000).toFixed(2)} s | ${Math.round(N / (median(walls) / 1000)).toLocaleString('en')} | ${median(rss).toFixed(0)} MB |`);
  }
  if (only.includes('shared')) {
    const R = 20;
    const N = smoke ? 30 : 150;
    say('');
    say(`## 6. Shared budget — three imports of ${N} rows at once, same key, sandbox at ${R}/s (burst ${R})`);
    say('');
    if (!redisUrl) say('(skipped: set CALLCTL_BENCH_REDIS_URL=redis://127.0.0.1:6379 to run it)');
    else {
      say('| limiter | wall | combined pace, share of R | 429 share | rows stored once |');
      say('|---|---|---|---|---|');
      for (const shared of [false, true]) {
        const sb = await startSandbox({ port: 0, rateLimit: R, burst: R });
        const env = { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey };
        const t0 = performance.now();
        const results = await Promise.all([0, 1, 2].map((p) => {
          const rows = ['Name,Phone'];
          for (let i = 0; i < N; i++) rows.push(`P${p}R${i},+4474001${p}${String(i).padStart(4, '0')}`);
          const file = join(work, `shared-${shared}-${p}.csv`);
          writeFileSync(file, `${rows.join('\n')}\n`);
          return callctl(['import', file, '--json', ...(shared ? ['--redis-url', redisUrl] : [])], { env: { ...env, CALLCTL_CONFIG_DIR: join(work, `cfg-${shared}-${p}`) } });
        }));
        const secs = (performance.now() - t0) / 1000;
        const st = sb.stats();
        const phones = sb.contacts().map((c) => c.phone);
        await sb.close();
        const admitted = st.requests - st.throttled;
        const once = phones.length === 3 * N && new Set(phones).size === 3 * N && results.every((r) => r.code === 0);
        say(`| ${shared ? 'one budget on Redis' : 'each process alone'} | ${secs.toFixed(1)} s | ${(((admitted - R) / secs / R) * 100).toFixed(1)} % | ${((st.throttled / st.requests) * 100).toFixed(1)} % | ${once ? 'yes' : 'NO'} |`);
      }
      say('');
      say('Alone, the three processes together send faster than the limit and spend the overrun on 429s (each one a pause of at least a second); sharing the budget keeps the 429s near zero.');
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results', `${smoke ? 'smoke' : 'full'}.md`), `${out.join('\n')}\n`);
