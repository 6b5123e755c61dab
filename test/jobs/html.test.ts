// `jobs show --html`: one self-contained page, opened in a real headless browser (Debian's
// chromium): its chart read back from the rendered DOM adds up to the job's own figures (requests
// admitted, 429s), the reject reasons are counted with the values blanked, nothing is loaded from
// anywhere, and the screenshot shows the chart's line and its 429 marks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { countColour, readPng } from '../helpers/png.js';

const CHROMIUM = '/usr/bin/chromium';

/** Runs headless chromium on a file: its stdout (--dump-dom), bounded in time. */
function chromium(t: Parameters<typeof tempDir>[0], args: string[]): Promise<string> {
  const profile = tempDir(t, 'callctl-chromium-');
  const child = spawn(CHROMIUM, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) done(out);
      else fail(new Error(`chromium exited ${code}: ${err.slice(-2000)}`));
    });
  });
}

const attr = (tag: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1];

test('the HTML page in a real browser: its chart adds up to the job\'s figures, reasons counted, nothing loaded from anywhere', { skip: existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (Debian: apt-get install chromium; .ci/run installs it)` }, async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 30, burst: 5, rateLimitHeaders: 'none' });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const rows = ['First Name,Phone,Email'];
  for (let i = 0; i < 160; i++) rows.push(`Lead${i},+4474005${String(10000 + i)},${i % 16 === 0 ? `broken-${i}.example.org` : `lead${i}@example.org`}`);
  writeFileSync(join(dir, 'leads.csv'), `${rows.join('\n')}\n`);
  const imported = await runCli(['import', join(dir, 'leads.csv'), '--json'], { env });
  assert.equal(imported.code, 6, imported.stderr);
  const s = JSON.parse(imported.stdout);
  assert.equal(s.rejected, 10);
  assert.ok(s.throttled > 0, 'the service said 429 on the way');
  const id = (JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ id: string }>)[0]!.id;

  const page = join(dir, 'report.html');
  const shown = await runCli(['jobs', 'show', id, '--html', page], { env });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stderr, new RegExp(`the page of job ${id} → .*report\\.html`));
  const html = readFileSync(page, 'utf8');
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">/);
  assert.doesNotMatch(html, /<script|<link|<img|<iframe|\bsrc=|url\(|@import/i, 'nothing to fetch');
  for (let i = 0; i < 160; i += 16) assert.ok(!html.includes(`broken-${i}`), 'no value of a rejected row');
  assert.ok(!html.includes('+4474005'), 'no phone');

  const dom = await chromium(t, ['--dump-dom', pathToFileURL(page).href]);
  const svg = /<svg id="chart"[^>]*>/.exec(dom)?.[0];
  assert.ok(svg, 'the browser parsed the chart');
  const [seconds, columns, max, top, bottom] = ['data-seconds', 'data-columns', 'data-max', 'data-top', 'data-bottom'].map((a) => Number(attr(svg, a)));
  const points = (attr(/<polyline class="admitted"[^>]*>/.exec(dom)?.[0] ?? '', 'points') ?? '').split(' ').map((p) => Number(p.split(',')[1]));
  assert.equal(points.length, columns);
  // The area under the line, read back from the drawing: the requests the service admitted.
  const admitted = points.reduce((sum, y) => sum + ((bottom! - y) / (bottom! - top!)) * max! * (seconds! / columns!), 0);
  assert.ok(Math.abs(admitted - (s.requests - s.throttled)) <= 0.01 * s.requests + 1, `the chart holds ${admitted.toFixed(1)} admitted requests; the job sent ${s.requests}, ${s.throttled} met 429`);
  const ticks = [...dom.matchAll(/<line class="throttle" data-count="(\d+)"/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  assert.equal(ticks, s.throttled, 'one mark per 429');
  assert.match(dom, /<th scope="row">email "…" is not an e-mail address<\/th><td>10<\/td>/);
  assert.match(dom, /<th scope="row">created<\/th><td>150<\/td>/);

  const shot = join(dir, 'report.png');
  await chromium(t, ['--window-size=1000,1100', '--hide-scrollbars', `--screenshot=${shot}`, pathToFileURL(page).href]);
  const png = readPng(readFileSync(shot));
  assert.deepEqual([png.width, png.height], [1000, 1100]);
  assert.ok(countColour(png, '#1f6feb') > 200, 'the admitted line is drawn');
  assert.ok(countColour(png, '#d1242f') > 0, 'the 429 marks are drawn');
});
