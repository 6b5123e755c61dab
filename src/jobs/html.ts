/**
 * `jobs show --html <file>`: one self-contained page for the person the operator reports to — the
 * chart of how the job ran (inline SVG drawn from the timeline: admitted requests per second, the
 * limit as learnt, 429s and pauses), its counts, the reasons rows were rejected (counted, with
 * the values in them blanked: the page holds no phone, name or e-mail) and the options. No
 * script, no font, no image from anywhere: a Content-Security-Policy of `default-src 'none'`
 * makes sure the page asks the network for nothing.
 */
import { type Bucket, type Column, resample } from '../bulk/timeline.js';
import { chartTop, duration } from './chart.js';
import { shownCounts } from './counts.js';
import type { JobRecord } from '../bulk/records.js';

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The plot area in the SVG's own units. */
const W = 900;
const H = 320;
const LEFT = 56;
const RIGHT = 16;
const TOP = 16;
const BOTTOM = 272;

/** A nice top for the y axis: 1, 2 or 5 times a power of ten. */
function niceTop(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  return ([1, 2, 5, 10].map((m) => m * p).find((v) => v >= max) ?? 10 * p) as number;
}

const n2 = (v: number) => Math.round(v * 100) / 100;

/** The chart as SVG; the figures it was drawn from ride along as data attributes. */
export function chartSvg(buckets: Bucket[]): string {
  const { columns, seconds } = resample(buckets, 300);
  if (columns.length === 0) return '<p>This job recorded no timeline (a dry run, or a journal written before callctl kept one).</p>';
  const top = niceTop(chartTop(columns));
  const step = (W - LEFT - RIGHT) / columns.length;
  const x = (i: number) => n2(LEFT + (i + 0.5) * step);
  const y = (v: number) => n2(BOTTOM - (v / top) * (BOTTOM - TOP));
  const parts: string[] = [];
  for (let k = 0; k <= 4; k++) {
    const v = (top * k) / 4;
    parts.push(`<line class="grid" x1="${LEFT}" x2="${W - RIGHT}" y1="${y(v)}" y2="${y(v)}"/><text class="tick" x="${LEFT - 6}" y="${y(v) + 4}" text-anchor="end">${esc(n2(v))}</text>`);
  }
  columns.forEach((c: Column, i) => {
    // A column's share of pause as the shade's strength: side by side they make one band.
    if (c.paused > 0) parts.push(`<rect class="pause" x="${n2(LEFT + i * step)}" y="${TOP}" width="${n2(step)}" height="${BOTTOM - TOP}" fill-opacity="${n2(0.5 * c.paused)}"/>`);
    if (c.resumed) parts.push(`<line class="resume" x1="${n2(LEFT + i * step)}" x2="${n2(LEFT + i * step)}" y1="${TOP}" y2="${BOTTOM}"/>`);
  });
  parts.push(`<polyline class="admitted" points="${columns.map((c, i) => `${x(i)},${y(c.rate)}`).join(' ')}"/>`);
  const paced = columns.map((c, i) => (c.pace !== undefined ? `${x(i)},${y(Math.min(c.pace, top))}` : '')).filter((p) => p !== '');
  if (paced.length > 0) parts.push(`<polyline class="limit" points="${paced.join(' ')}"/>`);
  columns.forEach((c, i) => {
    if (c.throttled > 0) parts.push(`<line class="throttle" data-count="${c.throttled}" x1="${x(i)}" x2="${x(i)}" y1="${BOTTOM}" y2="${BOTTOM + 10}"><title>${c.throttled} × 429</title></line>`);
  });
  parts.push(`<line class="axis" x1="${LEFT}" x2="${W - RIGHT}" y1="${BOTTOM}" y2="${BOTTOM}"/>`);
  for (let k = 0; k <= 4; k++) {
    const at = n2(LEFT + ((W - LEFT - RIGHT) * k) / 4);
    parts.push(`<text class="tick" x="${at}" y="${BOTTOM + 28}" text-anchor="${k === 0 ? 'start' : k === 4 ? 'end' : 'middle'}">${esc(duration((seconds * k) / 4))}</text>`);
  }
  const admitted = buckets.reduce((s, b) => s + b.admitted, 0);
  const throttled = buckets.reduce((s, b) => s + b.throttled, 0);
  return `<svg id="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" role="img" aria-label="admitted requests per second over ${esc(duration(seconds))}" data-seconds="${seconds}" data-columns="${columns.length}" data-max="${top}" data-top="${TOP}" data-bottom="${BOTTOM}" data-admitted="${admitted}" data-throttled="${throttled}">${parts.join('')}</svg>`;
}

/** A reject reason with the row's own values blanked, so reasons group and the page holds no personal data. */
export function reasonKind(reason: string): string {
  return reason
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\+?\d[\d ().-]{3,}\d/g, '…')
    .replace(/\S+@\S+/g, '…')
    .trim();
}

function table(rows: Array<[string, string]>, head?: [string, string]): string {
  const th = head ? `<thead><tr><th>${esc(head[0])}</th><th>${esc(head[1])}</th></tr></thead>` : '';
  return `<table>${th}<tbody>${rows.map(([a, b]) => `<tr><th scope="row">${esc(a)}</th><td>${esc(b)}</td></tr>`).join('')}</tbody></table>`;
}

const STYLE = `body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:960px;padding:0 1rem;color:#1d232b}
h1{font-size:1.4rem;margin:0 0 .2rem}h2{font-size:1.05rem;margin:1.6rem 0 .5rem}.meta{color:#56606b;margin:0}
svg{width:100%;height:auto;background:#fbfcfd;border:1px solid #dde2e7}.grid{stroke:#e6eaee}.axis{stroke:#8a949e}
.tick{font-size:12px;fill:#56606b}.admitted{fill:none;stroke:#1f6feb;stroke-width:2}.limit{fill:none;stroke:#c77c02;stroke-width:1.5;stroke-dasharray:5 4}
.pause{fill:#e8868b;shape-rendering:crispEdges}.throttle{stroke:#d1242f;stroke-width:2}.resume{stroke:#6e7781;stroke-dasharray:2 3}
.legend span{display:inline-block;margin-right:1.2rem}.sw{display:inline-block;width:1.4em;height:.3em;vertical-align:middle;margin-right:.35em}
table{border-collapse:collapse;margin:.2rem 0}th,td{text-align:left;padding:.2rem 1.2rem .2rem 0;border-bottom:1px solid #eef1f4;vertical-align:top}
td.n,th.n{text-align:right}code{font-size:.92em}`;

/** The whole page. `reasons`: reject reasons as written, counted here by kind; undefined when the rejects file cannot be read. */
export function jobPage(job: JobRecord, buckets: Bucket[], reasons: string[] | undefined, now: Date): string {
  const what = `${job.kind}${job.dryRun ? ' (dry run)' : ''} of ${job.file === '-' ? 'stdin' : job.file}`;
  const counts = Object.entries(shownCounts(job)).map(([k, v]) => [k, String(v)] as [string, string]);
  const byKind = new Map<string, number>();
  for (const r of reasons ?? []) byKind.set(reasonKind(r), (byKind.get(reasonKind(r)) ?? 0) + 1);
  const reasonRows = [...byKind.entries()].sort((a, b) => b[1] - a[1]);
  const options = Object.entries(job.options).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)] as [string, string]);
  const files = Object.entries(job.files).map(([k, v]) => [k, String(v)] as [string, string]);
  const limit = job.limit !== undefined ? `${job.limit} requests/s` : 'not learnt';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>callctl job ${esc(job.id)}: ${esc(what)}</title><style>${STYLE}</style></head>
<body><h1>${esc(what[0]?.toUpperCase() ?? '')}${esc(what.slice(1))}</h1>
<p class="meta">job <code>${esc(job.id)}</code> · ${esc(job.state)} · started ${esc(job.startedAt)} · ran ${esc(duration(job.durationMs / 1000))} · limit as learnt: ${esc(limit)}${job.baseUrl ? ` · ${esc(job.baseUrl)}` : ''}</p>
<h2>How it ran</h2>
${chartSvg(buckets)}
<p class="legend"><span><i class="sw" style="background:#1f6feb"></i>requests admitted per second</span><span><i class="sw" style="background:#c77c02"></i>limit as learnt</span><span><i class="sw" style="background:#d1242f"></i>429 (too many requests)</span><span><i class="sw" style="background:#f3c2c5"></i>paused after a 429</span>${buckets.length > 0 && resample(buckets, 300).columns.some((c) => c.resumed) ? '<span><i class="sw" style="background:#6e7781"></i>resumed</span>' : ''}</p>
<h2>Counts</h2>
${table(counts)}
<h2>Why rows were rejected</h2>
${reasons === undefined ? '<p>The rejects file is no longer where the job wrote it.</p>' : reasonRows.length === 0 ? '<p>No row was rejected.</p>' : table(reasonRows.map(([k, v]) => [k, String(v)]), ['reason (values blanked)', 'rows'])}
<h2>Options and files</h2>
${table([...options, ...files])}
<p class="meta">Made by callctl on ${esc(now.toISOString())}.</p>
</body></html>
`;
}
