/**
 * `callctl jobs ls` and `jobs show <job>`: the records read back (records.ts) as a person or a
 * script wants them — a table, `--json`, `--format csv`; and for one job its summary, options,
 * files and the picture of how it ran (chart.ts in the terminal, html.ts with `--html <file>`).
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { journalsDir } from '../bulk/job.js';
import type { Context } from '../context.js';
import { RuntimeError, UsageError } from '../errors.js';
import { escapeControls } from '../output/escape.js';
import { createListWriter, writeOut } from '../output/writers.js';
import { duration, terminalChart } from './chart.js';
import { shownCounts, unitOf } from './counts.js';
import { findJob, type JobRecord, readJobs, readJournal } from '../bulk/records.js';
import { type Bucket, bucketOf } from '../bulk/timeline.js';

/** The object `jobs ls --json` gives for a job (and `jobs show --json` starts with); counts as its summary's (counts.ts). */
export function listed(j: JobRecord): Record<string, unknown> {
  return { id: j.id, kind: j.kind, file: j.file, startedAt: j.startedAt, endedAt: j.endedAt, state: j.state, counts: shownCounts(j), ...(j.dryRun ? { dryRun: true } : {}) };
}

/** Counts for a person: "150 rows, 140 created, 10 rejected" (rows first, in the job's word for them). */
export function countsText(j: JobRecord): string {
  const { rows, ...rest } = shownCounts(j);
  return [...(rows !== undefined ? [`${rows} ${unitOf(j.kind)}`] : []), ...Object.entries(rest).map(([k, v]) => `${v} ${k}`)].join(', ');
}

const stateText = (j: JobRecord) => (j.state === 'running' && j.holder ? `running (pid ${j.holder.pid})` : j.state);

async function dir(ctx: Context): Promise<string> {
  return journalsDir((await ctx.config()).path);
}

export async function listJobs(ctx: Context): Promise<number> {
  const jobs = readJobs(await dir(ctx));
  const format = ctx.format;
  const rows = jobs.map((j) =>
    format === 'json' || format === 'ndjson'
      ? listed(j)
      : {
          id: j.id,
          kind: j.dryRun ? `${j.kind} (dry run)` : j.kind,
          file: j.file === '-' ? 'stdin' : j.file,
          startedAt: j.startedAt,
          endedAt: j.endedAt,
          took: duration(j.durationMs / 1000),
          state: stateText(j),
          counts: format === 'csv' ? Object.entries(shownCounts(j)).map(([k, v]) => `${k}=${v}`).join(';') : countsText(j),
        },
  );
  const columns =
    format === 'csv'
      ? ['id', 'kind', 'file', 'startedAt', 'endedAt', 'state', 'counts'].map((key) => ({ key, header: key }))
      : [
          { key: 'id', header: 'ID' },
          { key: 'kind', header: 'Kind' },
          { key: 'file', header: 'File' },
          { key: 'startedAt', header: 'Started' },
          { key: 'took', header: 'Took' },
          { key: 'state', header: 'State' },
          { key: 'counts', header: 'Counts' },
        ];
  const writer = await createListWriter(ctx.deps.io.stdout, format, columns, ctx);
  await writer.write(rows);
  await writer.end();
  if (jobs.length === 0) ctx.log.info('no jobs in the records yet (imports, writebacks, erasures and undos are kept here)');
  return 0;
}

/** The reasons written in a rejects file (its `error` column); undefined when it cannot be read. */
async function reasonsIn(ctx: Context, path: string | undefined): Promise<string[] | undefined> {
  if (path === undefined) return [];
  if (!existsSync(path)) return undefined;
  const { openSource } = await import('../source/open.js');
  const source = await openSource({ path, stdin: ctx.deps.io.stdin, cwdResolve: (p) => p });
  try {
    const at = source.header.lastIndexOf('error');
    if (at < 0) return undefined;
    const out: string[] = [];
    for await (const row of source.rows) out.push(row.cells[at] ?? '');
    return out;
  } catch {
    return undefined;
  } finally {
    source.close();
  }
}

export async function showJob(ctx: Context, o: { job: string; html?: string | undefined }): Promise<number> {
  const job = findJob(await dir(ctx), o.job);
  const buckets = readJournal(job).timeline.map(bucketOf).filter((b): b is Bucket => b !== undefined);
  if (o.html !== undefined) {
    const target = resolve(ctx.deps.cwd, o.html);
    if ([job.file, job.journal, ...Object.values(job.files)].includes(target)) throw new UsageError(`--html ${o.html} is a file of the job itself`, 'choose another name for the page');
    const { jobPage } = await import('./html.js');
    const page = jobPage(job, buckets, job.dryRun && !job.files.rejects ? [] : await reasonsIn(ctx, job.files.rejects), new Date(ctx.deps.now()));
    const temp = `${target}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, page, { mode: 0o644 });
      renameSync(temp, target);
    } catch (err) {
      throw new RuntimeError('html_unwritable', `cannot write ${target}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'choose another place with --html');
    }
    ctx.log.info(`the page of job ${job.id} → ${target}`);
  }
  const out = ctx.deps.io.stdout;
  if (ctx.format === 'json') {
    const timeline = buckets.map((b) => ({ t: b.t, admitted: b.admitted, throttled: b.throttled, paused: b.paused, width: b.width, ...(b.pace !== undefined ? { limit: b.pace } : {}) }));
    await writeOut(out, `${JSON.stringify({ ...listed(job), options: job.options, files: job.files, limit: job.limit ?? null, durationMs: job.durationMs, ...(job.undoes ? { undoes: job.undoes } : {}), timeline })}\n`);
    return 0;
  }
  const lines = [
    `job ${job.id}: ${job.dryRun ? 'dry run of the ' : ''}${job.kind} of ${job.file === '-' ? 'stdin' : job.file}`,
    `  state     ${stateText(job)} — started ${job.startedAt}${job.endedAt ? `, ended ${job.endedAt}` : ''}, ran ${duration(job.durationMs / 1000)}`,
    `  counts    ${countsText(job) || 'none yet'}`,
  ];
  const opts = Object.entries(job.options).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`);
  if (opts.length > 0) lines.push(`  options   ${opts.join('  ')}`);
  if (job.undoes) lines.push(`  undoes    job ${job.undoes}`);
  if (job.baseUrl) lines.push(`  base URL  ${job.baseUrl}${job.key ? ` (key ${job.key.slice(0, 8)}…)` : ''}`);
  Object.entries(job.files).forEach(([k, v], i) => lines.push(`  ${i === 0 ? 'files' : '     '}     ${k.padEnd(8)} ${v}${existsSync(v) ? '' : ' (not written)'}`));
  if (job.limit !== undefined) lines.push(`  limit     ${job.limit} requests/s, as the limiter learnt it`);
  else if (buckets.some((b) => b.admitted > 0)) lines.push('  limit     none learnt from this job\'s answers (no rate-limit header; no 429 that showed one)');
  const chart = terminalChart(buckets, { width: Math.min(120, out.columns ?? 80), color: out.isTTY === true && ctx.log.color });
  // Paths and options are shown, not obeyed (control characters escaped); the chart's colours are callctl's own.
  const shown = lines.map((l) => escapeControls(l));
  shown.push('', ...(chart.length > 0 ? chart : ['(no timeline: a dry run, or a journal written before callctl kept one)']));
  await writeOut(out, `${shown.join('\n')}\n`);
  return 0;
}
