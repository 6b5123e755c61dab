#!/usr/bin/env node
// `npm run bench`: the figures of BENCHMARKS.md, each a ratio taken within one run against servers
// on loopback that this script starts and stops. `--smoke` runs a tiny version (for CI);
// `--only=pace,dryrun,...` picks sections (`limiters`, the real nginx, express-rate-limit and
// rate-limiter-flexible, only when named). Results go to stdout as Markdown and to bench/results/.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { startSandbox } from '../dist/sandbox/index.cjs';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const only = (args.find((a) => a.startsWith('--only='))?.slice(7) ?? 'pace,unthrottled,dryrun,startup,listing,bulk,undo,memory,answers,shared').split(',');
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
function run(cmd, argv, { env = {}, rss = false, cwd = work, timeoutMs = 0 } = {}) {
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
    // A bounded run: a child still going after timeoutMs is killed (its code is then null).
    const timer = timeoutMs > 0 ? setTimeout(() => child.kill('SIGKILL'), timeoutMs) : undefined;
    child.on('close', (code) => {
      clearTimeout(timer);
      const m = /MAXRSS_KB (\d+)/.exec(fd3);
      const cpu = /CPU_US (\d+)/.exec(fd3);
      done({ ms: performance.now() - t0, code, stdout, stderr, rssMb: m ? Number(m[1]) / 1024 : undefined, cpuMs: cpu ? Number(cpu[1]) / 1000 : undefined });
    });
  });
}
const callctl = (argv, opts) => run(process.execPath, [join(root, 'bin/callctl.js'), ...argv], opts);

/** `n` leads, their phones from +447400<offset> on. */
function leads(n, name, offset = 0) {
  const path = join(work, name);
  const rows = ['First Name,Last Name,Phone,Email'];
  for (let i = offset; i < offset + n; i++) rows.push(`Lead${i},Bench,+447400${String(i).padStart(6, '0')},lead${i}@example.com`);
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
    // One import per cell against `callctl sandbox`'s limiter in that shape and header form; the
    // share is the least wall time the limiter allows (the simulation's idealWall) over the
    // measured one. The same table from the simulation: `node --import tsx bench/pace-sim.ts`.
    const seconds = smoke ? 3 : Number(args.find((a) => a.startsWith('--pace-seconds='))?.slice(15) ?? 30);
    const forms = (args.find((a) => a.startsWith('--pace-headers='))?.slice(15) ?? (smoke ? 'none' : 'none,x,draft8')).split(',');
    // --pace-wire=<ms>: the sandbox answers as if that far away, each way (docs/commands/sandbox.md).
    const wireDelayMs = Number(args.find((a) => a.startsWith('--pace-wire='))?.slice(12) ?? 0);
    const shapes = smoke
      ? [['token bucket 40/s, burst 10', { limiter: 'bucket', rateLimit: 40, burst: 10 }]]
      : [
          ['token bucket 200/s, burst 20', { limiter: 'bucket', rateLimit: 200, burst: 20 }],
          ['token bucket 20/s, burst 1', { limiter: 'bucket', rateLimit: 20, burst: 1 }],
          ['token bucket 50/s, burst 50', { limiter: 'bucket', rateLimit: 50, burst: 50 }],
          ['token bucket 10/s, burst 10', { limiter: 'bucket', rateLimit: 10, burst: 10 }],
          ['token bucket 10/s, burst 5', { limiter: 'bucket', rateLimit: 10, burst: 5 }],
          ['token bucket 4/s, burst 40', { limiter: 'bucket', rateLimit: 4, burst: 40 }],
          ['token bucket 60/s, burst 3', { limiter: 'bucket', rateLimit: 60, burst: 3 }],
          ['fixed window, 10 per 1 s', { limiter: 'window', rateLimit: 10, windowMs: 1000 }],
          ['fixed window, 50 per 1 s', { limiter: 'window', rateLimit: 50, windowMs: 1000 }],
          ['fixed window, 100 per 1 s', { limiter: 'window', rateLimit: 100, windowMs: 1000 }],
          ['sliding window, 100 per 1 s', { limiter: 'sliding', rateLimit: 100, windowMs: 1000 }],
          ['fixed window, 300 per 10 s', { limiter: 'window', rateLimit: 30, windowMs: 10_000 }],
          ['sliding window, 300 per 10 s', { limiter: 'sliding', rateLimit: 30, windowMs: 10_000 }],
          ['at most 3 in flight, 40 ms each', { limiter: 'concurrency', rateLimit: 0, maxInflight: 3, latencyMs: 40 }],
        ];
    say('');
    say(`## 1. Pace — a ${seconds}-second import per cell, over loopback${wireDelayMs > 0 ? ` with ${wireDelayMs} ms each way (--wire-delay)` : ''}`);
    say('');
    // --pace-told=0 leaves out the reference column: a client told the limit (bench/oracle.mjs).
    const told = args.find((a) => a.startsWith('--pace-told='))?.slice(12) !== '0';
    say(`| server's limiter | ${forms.map((f) => `${f}: share / 429s`).join(' | ')}${told ? ' | told the limit: share / 429s' : ''} |`);
    say(`|---|${forms.map(() => '---').join('|')}${told ? '|---' : ''}|`);
    const { idealWall } = await import('../test/helpers/pace-sim.ts').catch(() => ({ idealWall: undefined }));
    // --pace-shapes=<text>: only the limiters whose name holds it (e.g. "1 s").
    const only = args.find((a) => a.startsWith('--pace-shapes='))?.slice(14);
    // One cell: a fresh sandbox in that shape and header form, its rows sent by callctl or by the
    // told client; the share is the least wall time the limiter allows over the client's own.
    const paceCell = async (shape, headers, client) => {
      const R = shape.limiter === 'concurrency' ? (shape.maxInflight * 1000) / shape.latencyMs : shape.rateLimit;
      const quota = shape.windowMs ? Math.round((R * shape.windowMs) / 1000) : 0;
      const N = Math.max(Math.round(seconds * R), 3 * quota);
      const sb = await startSandbox({ port: 0, ...shape, rateLimitHeaders: headers, wireDelayMs });
      const file = leads(N, `pace-${shape.limiter}-${client}-${headers}-${N}.csv`);
      const t0 = performance.now(); // the sandbox aligns its windows to this clock
      const res =
        client === 'told'
          ? await run(process.execPath, [join(root, 'bench/oracle.mjs'), sb.baseUrl, sb.secretKey, file, JSON.stringify(shape), String(performance.timeOrigin), String(wireDelayMs)])
          : await callctl(['import', file, '--json', '--restart'], { env: { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey } });
      const st = sb.stats();
      await sb.close();
      if (res.code !== 0) throw new Error(`pace run (${client}) failed: ${res.stderr}`);
      const summary = JSON.parse(res.stdout);
      const simShape = { shape: shape.limiter, rate: shape.rateLimit, burst: shape.burst, windowMs: shape.windowMs, maxInflight: shape.maxInflight, latencyMs: shape.latencyMs, headers };
      const ideal = idealWall ? idealWall(simShape, N, 4, t0) : ((N - (shape.burst ?? 0)) / R) * 1000;
      return `${((ideal / summary.elapsedMs) * 100).toFixed(1)} % / ${((st.throttled / st.requests) * 100).toFixed(2)} %`;
    };
    for (const [name, shape] of shapes.filter(([n]) => only === undefined || n.includes(only))) {
      const cells = [];
      for (const headers of forms) cells.push(await paceCell(shape, headers, 'callctl'));
      // The same rows sent by a client told the limit (headers make no difference to it).
      if (told) cells.push(await paceCell(shape, 'none', 'told'));
      say(`| ${name} | ${cells.join(' | ')} |`);
    }
    say('');
    say(`Command: \`npm run bench -- --only=pace${smoke ? ' --smoke' : ''}\`. One run per cell (the machine's noise is in the figures).`);

    // --pace-second: each cell twice against one server and one config folder — the second import
    // starts from the limit the first remembered (after a quiet gap: the limit whole again).
    // --pace-long=S: one import of S seconds per cell, the share after its first 20 s.
    const secondRun = args.includes('--pace-second');
    const longSeconds = Number(args.find((a) => a.startsWith('--pace-long='))?.slice(12) ?? 0);
    if (secondRun || longSeconds > 0) {
      const { secondCell } = await import('./pace-real.mjs');
      for (const [title, opts] of [
        ...(secondRun ? [[`Second run: a ${seconds}-second import after one, against the same server (share / 429s of the second)`, { seconds, second: true }]] : []),
        ...(longSeconds > 0 ? [[`Long import: the share after the first 20 s of a ${longSeconds}-second import (share / 429s)`, { seconds: longSeconds, second: false }]] : []),
      ]) {
        say('');
        say(title);
        say('');
        say(`| server's limiter | ${forms.map((f) => `${f}: share / 429s`).join(' | ')} |`);
        say(`|---|${forms.map(() => '---').join('|')}|`);
        for (const [name, shape] of shapes.filter(([n]) => only === undefined || n.includes(only))) {
          const cells = [];
          for (const headers of forms) cells.push(await secondCell({ shape, headers, wireDelayMs, work, leads, callctl, ...opts }));
          say(`| ${name} | ${cells.join(' | ')} |`);
        }
      }
    }

    // The outcome writeback runs on the same engine and limiter: it should keep the same share.
    const wbShapes = smoke ? [['token bucket 40/s, burst 10', { limiter: 'bucket', rateLimit: 40, burst: 10 }]] : [
      ['token bucket 200/s, burst 20', { limiter: 'bucket', rateLimit: 200, burst: 20 }],
      ['token bucket 50/s, burst 50', { limiter: 'bucket', rateLimit: 50, burst: 50 }],
    ];
    say('');
    say(`Import and outcome writeback side by side (no headers, ${seconds}-second runs):`);
    say('');
    say('| server\'s limiter | import: share / 429s | writeback: share / 429s |');
    say('|---|---|---|');
    for (const [name, shape] of wbShapes) {
      const cells = [];
      for (const job of ['import', 'writeback']) {
        const R = shape.rateLimit;
        const N = Math.round(seconds * R);
        const sb = await startSandbox({ port: 0, ...shape, rateLimitHeaders: 'none', seed: job === 'writeback' ? N : 0 });
        let file;
        if (job === 'import') file = leads(N, `wb-import-${R}.csv`);
        else {
          file = join(work, `wb-${R}.csv`);
          writeFileSync(file, `callId,outcome,value,currency\n${sb.calls().map((c, i) => `${c.id},${i % 2 ? 'booked_job' : 'no_answer'},${i % 2 ? '120' : ''},${i % 2 ? 'USD' : ''}`).join('\n')}\n`);
        }
        const t0 = performance.now();
        const res = await callctl(job === 'import' ? ['import', file, '--json', '--restart'] : ['calls', 'outcome', '--from', file, '--json', '--restart'], { env: { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey } });
        const st = sb.stats();
        await sb.close();
        if (res.code !== 0) throw new Error(`${job} run failed: ${res.stderr}`);
        const summary = JSON.parse(res.stdout);
        const ideal = idealWall ? idealWall({ shape: 'bucket', rate: R, burst: shape.burst, headers: 'none' }, N, 4, t0) : ((N - shape.burst) / R) * 1000;
        cells.push(`${((ideal / summary.elapsedMs) * 100).toFixed(1)} % / ${((st.throttled / st.requests) * 100).toFixed(2)} %`);
      }
      say(`| ${name} | ${cells.join(' | ')} |`);
    }
  }

  // Not in the default sections (nginx and ~12 minutes): `--only=limiters` (bench/limiters.mjs).
  if (only.includes('limiters')) await (await import('./limiters.mjs')).limitersSection({ say, callctl, run, leads, work, args });

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
    // Beside each dry run, in the same round and over the same file, the reference pipeline:
    // csv-parse and libphonenumber-js on one core (bench/dryrun-ref.mjs). The ratio of the two
    // rates is the figure to compare across runs; the target is 1.5 (about 40,000 rows/s here).
    say('');
    say('## 3. Dry run — generated rows (half national, half international phones), `import --dry-run --country GB`');
    say('');
    say('| rows | wall (median) | rows/s | reference rows/s | ratio | peak RSS |');
    say('|---|---|---|---|---|---|');
    for (const n of smoke ? [2_000] : [100_000, 400_000, 1_000_000]) {
      const file = await bigLeads(n, `dry-${n}.csv`);
      const walls = [];
      const refs = [];
      const rss = [];
      for (let r = 0; r < runs; r++) {
        const ref = await run(process.execPath, [join(root, 'bench/dryrun-ref.mjs'), file, 'GB']);
        if (ref.code !== 0) throw new Error(`reference failed: ${ref.stderr}`);
        refs.push(ref.ms);
        const res = await callctl(['import', file, '--dry-run', '--country', 'GB', '--json'], { rss: true });
        if (res.code !== 0) throw new Error(`dry run failed: ${res.stderr}`);
        walls.push(res.ms);
        rss.push(res.rssMb);
      }
      const [w, f] = [median(walls), median(refs)];
      say(`| ${n.toLocaleString('en')} | ${(w / 1000).toFixed(2)} s | ${Math.round(n / (w / 1000)).toLocaleString('en')} | ${Math.round(n / (f / 1000)).toLocaleString('en')} | ${(f / w).toFixed(2)} | ${median(rss).toFixed(0)} MB |`);
      rmSync(file);
    }
  }

  if (only.includes('memory')) {
    // A real import's peak RSS against the sandbox with its rate limit off, beside the dry run of
    // the same file in the same round (the dry run reads, checks and keeps the duplicate index;
    // the real import adds the sending side: limiter, HTTP client, journal, timeline).
    say('');
    say('## 8. Memory — peak RSS of a real import (rate limit off) and of the dry run of the same file');
    say('');
    say('| rows | dry run: peak RSS | import: peak RSS | import: wall (median) | rows/s |');
    say('|---|---|---|---|---|');
    for (const n of smoke ? [2_000] : [20_000, 100_000]) {
      const file = await bigLeads(n, `mem-${n}.csv`);
      const dry = [];
      const real = [];
      const walls = [];
      for (let r = 0; r < runs; r++) {
        const d = await callctl(['import', file, '--dry-run', '--country', 'GB', '--json'], { rss: true });
        if (d.code !== 0) throw new Error(`dry run failed: ${d.stderr}`);
        dry.push(d.rssMb);
        const sb = await startSandbox({ port: 0, rateLimit: 0 });
        const res = await callctl(['import', file, '--country', 'GB', '--json', '--restart'], { env: { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey }, rss: true });
        const stored = sb.contacts().length;
        await sb.close();
        if (res.code !== 0 || stored !== n) throw new Error(`import failed (${stored}/${n}): ${res.stderr}`);
        real.push(res.rssMb);
        walls.push(res.ms);
      }
      const w = median(walls);
      say(`| ${n.toLocaleString('en')} | ${median(dry).toFixed(0)} MB | ${median(real).toFixed(0)} MB | ${(w / 1000).toFixed(2)} s | ${Math.round(n / (w / 1000)).toLocaleString('en')} |`);
      rmSync(file);
    }
    say('');
    say(`Command: \`npm run bench -- --only=memory${smoke ? ' --smoke' : ''}\`.`);
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
    // References for the first real work, in the same rounds: the least a Node script can do to
    // print one page of contacts — one GET with node:http, with Node's own fetch (undici inside
    // Node), and with undici's request (the library callctl's HTTP core is built on).
    const refDir = join(work, 'startup-refs');
    mkdirSync(refDir, { recursive: true });
    const get = "const u = new URL(process.env.CALLCTL_BASE_URL + '/contacts?limit=1'); const h = { authorization: 'Bearer ' + process.env.CALLCTL_API_KEY };";
    const refs = {
      'node:http GET': `${get} require('node:http').get(u, { headers: h }, (r) => { let b = ''; r.on('data', (d) => (b += d)); r.on('end', () => process.stdout.write(b.slice(0, 80))); });`,
      'fetch': `${get} fetch(u, { headers: h }).then((r) => r.text()).then((b) => process.stdout.write(b.slice(0, 80)));`,
      'undici request': `${get} require(${JSON.stringify(join(root, 'node_modules/undici'))}).request(u, { headers: h }).then((r) => r.body.text()).then((b) => process.stdout.write(b.slice(0, 80)));`,
    };
    for (const [name, code] of Object.entries(refs)) {
      const file = join(refDir, `${name.replace(/[^a-z]/g, '-')}.cjs`);
      writeFileSync(file, code);
      rows.push({ name, argv: [file] });
    }
    try {
      for (const row of rows) {
        const argv = Array.isArray(row) ? [bin, ...row] : row.argv;
        const base = [];
        const mine = [];
        for (let i = 0; i < n + 2; i++) {
          const b = await once(['-e', '0']);
          const m = await once(argv, apiEnv);
          if (i >= 2) {
            base.push(b);
            mine.push(m);
          }
        }
        const shown = Array.isArray(row) ? `\`callctl ${row.map((a) => (a === '' ? "''" : a)).join(' ')}\`` : `reference: ${row.name} (a script, one page)`;
        const [wm, wb] = [median(mine.map((r) => r.ms)), median(base.map((r) => r.ms))];
        const [cm, cb] = [median(mine.map((r) => r.cpuMs)), median(base.map((r) => r.cpuMs))];
        say(`| ${shown} | ${wm.toFixed(0)} ms | ${wb.toFixed(0)} ms | ${(wm / wb).toFixed(2)} | ${cm.toFixed(0)} ms | ${(cm / cb).toFixed(2)} |`);
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
  if (only.includes('bulk')) {
    // Outcome writeback and erasure requests at scale, against the sandbox with no rate limit: what
    // they cost beyond the requests themselves.
    const N = smoke ? 1_000 : 100_000;
    const K = smoke ? 50 : 1_000;
    say('');
    say(`## 7. Bulk jobs over ${N.toLocaleString('en')} calls and contacts — \`calls summary\`; \`contacts rm --from\` resolving ${K.toLocaleString('en')} phones (dry run); the import's preview of ${K.toLocaleString('en')} rows`);
    say('');
    say('| job | wall (median) | requests | rows/s | peak RSS |');
    say('|---|---|---|---|---|');
    const sb = await startSandbox({ port: 0, rateLimit: 0, seed: N });
    const env = { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey };
    const phones = sb.contacts().filter((_, i) => i % Math.floor(N / K) === 0).slice(0, K).map((c) => c.phone);
    const requests = join(work, 'erasure-requests.txt');
    writeFileSync(requests, `${phones.join('\n')}\n`);
    // The import's preview: a 1,000-row list (half of it people the service has) checked against
    // every existing contact — one listing, then each row compared.
    const preview = join(work, 'preview.csv');
    const rowsP = ['First Name,Phone'];
    for (let i = 0; i < K; i++) rowsP.push(`P${i},${i % 2 === 0 ? phones[i] : `+447499${String(i).padStart(6, '0')}`}`);
    writeFileSync(preview, `${rowsP.join('\n')}\n`);
    for (const [name, argv, rows] of [
      ['calls summary --by channel', ['calls', 'summary', '--by', 'channel', '--json'], N],
      [`contacts rm --from (${K} phones) --dry-run`, ['contacts', 'rm', '--from', requests, '--dry-run', '--json'], N],
      [`import --dry-run (preview of ${K} rows)`, ['import', preview, '--dry-run', '--json'], N],
    ]) {
      const walls = [];
      const rss = [];
      let reqs = 0;
      for (let r = 0; r < runs; r++) {
        const before = sb.stats().requests;
        const res = await callctl(argv, { env, rss: true });
        if (res.code !== 0) throw new Error(`${name} failed: ${res.stderr}`);
        reqs = sb.stats().requests - before;
        walls.push(res.ms);
        rss.push(res.rssMb);
      }
      say(`| ${name} | ${(median(walls) / 1000).toFixed(2)} s | ${reqs} | ${Math.round(rows / (median(walls) / 1000)).toLocaleString('en')} | ${median(rss).toFixed(0)} MB |`);
    }
    await sb.close();
  }

  if (only.includes('undo')) {
    // `import undo` of an import of N contacts, beside the import itself, at a rate limit: in an
    // account a listing reads in fewer requests than a GET a contact (the undo lists it), and in
    // one so large that a GET a contact is cheaper (the undo reads each) — the reference, measured
    // in the same run. The undo reads the account's size with one request (its `total`) to choose.
    const N = smoke ? 50 : 1_000;
    const R = smoke ? 200 : 100;
    const accounts = smoke ? [50, 5_000] : [1_000, 100_000];
    say('');
    say(`## 9. Undo — \`import undo\` of ${N.toLocaleString('en')} contacts, beside their import, at a token bucket of ${R}/s (burst 10)`);
    say('');
    say('| account (before the import) | import | undo --dry-run | undo --confirm | the undo read the contacts by |');
    say('|---|---|---|---|---|');
    for (const seed of accounts) {
      const walls = { import: [], dry: [], real: [] };
      const reqs = {};
      let how = '';
      for (let r = 0; r < runs; r++) {
        const sb = await startSandbox({ port: 0, rateLimit: R, burst: 10, seed });
        const env = { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey, CALLCTL_CONFIG_DIR: join(work, `undo-config-${seed}-${r}`) };
        const file = leads(N, `undo-${seed}-${r}.csv`);
        for (const [name, argv] of [
          ['import', ['import', file, '--json']],
          ['dry', ['import', 'undo', '<job>', '--dry-run', '--json']],
          ['real', ['import', 'undo', '<job>', '--confirm', '--json']],
        ]) {
          const job = name === 'import' ? '' : JSON.parse((await callctl(['jobs', 'ls', '--json'], { env })).stdout).find((j) => j.kind === 'import').id;
          const before = sb.stats().requests;
          const res = await callctl(argv.map((a) => (a === '<job>' ? job : a)), { env });
          if (res.code !== 0) throw new Error(`${name} (account ${seed}) failed: ${res.stderr}`);
          walls[name].push(res.ms);
          reqs[name] = sb.stats().requests - before;
          if (name === 'real') how = /reading the [\d,]+ contacts to undo by (one listing|one read a contact)/.exec(res.stderr)?.[1] ?? '?';
        }
        if (sb.contacts().length !== seed) throw new Error(`the undo left ${sb.contacts().length} contacts, not ${seed}`);
        await sb.close();
      }
      const cell = (k) => `${(median(walls[k]) / 1000).toFixed(2)} s (${reqs[k].toLocaleString('en')} requests)`;
      say(`| ${seed.toLocaleString('en')} contacts | ${cell('import')} | ${cell('dry')} | ${cell('real')} | ${how} |`);
    }
    say('');
    say(`Command: \`npm run bench -- --only=undo${smoke ? ' --smoke' : ''}\`. Wall times include start-up; requests are those the sandbox answered (429s included).`);
  }

  if (only.includes('answers')) {
    // An answer of 1 GB, as fast as loopback carries it (docs/network.md, "Bounds"): --max-answer
    // (default 64 MB) refuses it, at its Content-Length or cut off at the cap; peak RSS must stay
    // under 200 MB. The reference, in the same run: the same command and one ordinary page.
    const GB = smoke ? 256 * 1024 * 1024 : 1024 ** 3;
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      if (server.kind === 'page') {
        const body = JSON.stringify({ data: [{ id: 'c1', phone: '+447400000001' }], hasMore: false });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        return res.end(body);
      }
      res.writeHead(200, { 'content-type': 'application/json', ...(server.kind === 'declared' ? { 'content-length': String(GB) } : {}) });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < GB && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.write('{"data": [');
      pump();
    });
    await new Promise((ready) => server.listen(0, '127.0.0.1', ready));
    const baseUrl = `http://127.0.0.1:${server.address().port}/api/v1`;
    say('');
    say(`## 10. Answers past --max-answer — \`contacts ls\` given ${(GB / 1024 ** 3).toFixed(2)} GB`);
    say('');
    say('| answer | exit | wall (median) | peak RSS |');
    say('|---|---|---|---|');
    for (const [kind, name] of [['page', 'reference: one ordinary page'], ['streamed', `${(GB / 1024 ** 3).toFixed(2)} GB, no Content-Length (cut off at 64 MB)`], ['declared', `${(GB / 1024 ** 3).toFixed(2)} GB, Content-Length given (refused before reading)`]]) {
      server.kind = kind;
      const walls = [];
      const rss = [];
      let code;
      for (let r = 0; r < runs; r++) {
        const res = await callctl(['contacts', 'ls'], { env: { CALLCTL_BASE_URL: baseUrl, CALLCTL_API_KEY: `sk_live_${'b'.repeat(24)}` }, rss: true, timeoutMs: 120_000 });
        code = res.code;
        if (code !== (kind === 'page' ? 0 : 1) || (kind !== 'page' && !/--max-answer/.test(res.stderr))) throw new Error(`answers (${kind}) failed: exit ${code} ${res.stderr}`);
        walls.push(res.ms);
        rss.push(res.rssMb);
      }
      say(`| ${name} | ${code} | ${(median(walls) / 1000).toFixed(2)} s | ${median(rss).toFixed(0)} MB |`);
    }
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }

  if (only.includes('shared')) {
    // Three imports at once on one key. The first two servers with each process alone beside the
    // shared budget; the rest, shared only. N rows each: ten seconds' worth, thirty together.
    const servers = smoke
      ? [
          { R: 60, B: 10, headers: 'draft6', alone: false },
          { R: 30, B: 0, headers: 'none', alone: false, shape: { limiter: 'window', windowMs: 1000 }, name: 'fixed window, 30 per 1 s' },
        ]
      : [
          { R: 60, B: 10, headers: 'draft6', alone: true },
          { R: 60, B: 10, headers: 'none', alone: true },
          { R: 60, B: 60, headers: 'none', alone: false },
          { R: 60, B: 60, headers: 'x', alone: false },
          { R: 200, B: 20, headers: 'draft8', alone: false },
          // Windows and a cap, shared: with and without headers (BENCHMARKS.md §6).
          ...['none', 'draft6'].flatMap((headers) => [
            { R: 100, B: 0, headers, alone: false, shape: { limiter: 'window', windowMs: 1000 }, name: 'fixed window, 100 per 1 s' },
            { R: 100, B: 0, headers, alone: false, shape: { limiter: 'sliding', windowMs: 1000 }, name: 'sliding window, 100 per 1 s' },
            { R: 30, B: 0, headers, alone: false, shape: { limiter: 'window', windowMs: 10_000 }, name: 'fixed window, 300 per 10 s' },
            { R: 75, B: 0, headers, alone: false, shape: { limiter: 'concurrency', rateLimit: 0, maxInflight: 3, latencyMs: 40 }, name: 'at most 3 in flight, 40 ms each' },
          ]),
        ];
    // --shared-shapes=<text>: only the rows whose limiter's name holds it (e.g. "window").
    const sharedOnly = args.find((a) => a.startsWith('--shared-shapes='))?.slice(16);
    const rowName = (x) => x.name ?? `token bucket ${x.R}/s, burst ${x.B}`;
    say('');
    say('## 6. Shared budget — three imports at once, same key, against the sandbox');
    say('');
    if (!redisUrl) say('(skipped: set CALLCTL_BENCH_REDIS_URL=redis://127.0.0.1:6379 to run it)');
    else {
      const { idealWall } = await import('../test/helpers/pace-sim.ts');
      say('| server\'s limiter | headers | callctl | rows | wall | share of the limit | 429 share | rows stored once |');
      say('|---|---|---|---|---|---|---|---|');
      for (const row of servers.filter((x) => sharedOnly === undefined || rowName(x).includes(sharedOnly))) {
        const { R, B, headers, alone, shape = { limiter: 'bucket' } } = row;
        const N = smoke ? 30 : R * 10;
        for (const shared of alone ? [false, true] : [true]) {
          const sb = await startSandbox({ port: 0, rateLimit: R, burst: B, rateLimitHeaders: headers, ...shape });
          const env = { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey };
          const t0 = performance.now();
          const results = await Promise.all([0, 1, 2].map((p) => {
            const rows = ['Name,Phone'];
            for (let i = 0; i < N; i++) rows.push(`P${p}R${i},+4474001${p}${String(i).padStart(4, '0')}`);
            const file = join(work, `shared-${R}-${B}-${headers}-${shared}-${p}.csv`);
            writeFileSync(file, `${rows.join('\n')}\n`);
            // Bounded: an import still going after five minutes (thirty times its least; the smoke's
            // 30 rows, 45 s) is stopped, and shown as stopped rather than holding the run.
            return callctl(['import', file, '--json', '--restart', ...(shared ? ['--redis-url', redisUrl] : [])], { env: { ...env, CALLCTL_CONFIG_DIR: join(work, `cfg-${R}-${B}-${headers}-${shared}-${p}`) }, timeoutMs: smoke ? 45_000 : 300_000 });
          }));
          const secs = (performance.now() - t0) / 1000;
          const st = sb.stats();
          const phones = sb.contacts().map((c) => c.phone);
          await sb.close();
          const once = phones.length === 3 * N && new Set(phones).size === 3 * N && results.every((r) => r.code === 0);
          const stopped = results.some((r) => r.code === null);
          // The least wall time the limiter allows (a bucket's burst at once, a window's quota at
          // each window's start: the simulation's idealWall) over the measured one.
          const share = idealWall({ shape: shape.limiter, rate: R, burst: B, windowMs: shape.windowMs, maxInflight: shape.maxInflight, latencyMs: shape.latencyMs, headers }, 3 * N, 12, t0) / 1000 / secs;
          // What a failed or stopped import said last, for the record (stderr: never the key).
          for (const [p, r] of results.entries()) if (r.code !== 0) process.stderr.write(`import ${p} of ${rowName(row)}, ${headers}: ${r.code === null ? 'stopped' : `exit ${r.code}`}; its last lines:\n${r.stderr.trim().split('\n').slice(-4).join('\n')}\n`);
          say(`| ${rowName(row)}${stopped ? ` (stopped after ${secs.toFixed(0)} s)` : ''} | ${headers} | ${shared ? 'one budget on Redis' : 'each process alone'} | 3 × ${N} | ${secs.toFixed(1)} s | ${(share * 100).toFixed(1)} % | ${((st.throttled / st.requests) * 100).toFixed(1)} % | ${once ? 'yes' : 'NO'} |`);
        }
      }
      say('');
      say('The wall time includes the three processes\' start-up. Command: `CALLCTL_BENCH_REDIS_URL=redis://127.0.0.1:6379 npm run bench -- --only=shared`.');
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results', `${smoke ? 'smoke' : 'full'}.md`), `${out.join('\n')}\n`);
