/**
 * What the commands of the file jobs (import, outcome writeback, erasure requests) share around
 * the engine: running a plan over a source with the context's limiter, signals and progress, and
 * ending as every job ends — the header-only warning, the one line `-q` still prints when rows
 * did not make it, the summary object on stdout with --json, and the error or interruption that
 * stopped it. The engine itself (engine.ts) knows no Context.
 */
import type { Context } from '../context.js';
import { CallctlError, EXIT, InterruptedError, RuntimeError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { type BulkPlan, type BulkResult, runBulk } from './engine.js';
import { resolve } from 'node:path';
import { type JobFiles, openJob } from './job.js';
import type { JobFilesRecord } from './journal.js';
import type { SourceShape } from './rejects.js';
import { type ProgressWords, ROWS, startProgress } from './progress.js';

/**
 * The client of a bulk job. A real run's is patient from its first request (docs/network.md): the
 * reads before its rows — the listing an erasure resolves with, the contacts an undo reads, the
 * existing contacts an import compares with — are the job's, each attempt bounded by --timeout
 * and retried as a row's is, never given up after --timeout in all as a one-shot command's.
 * `before`: what a signal interrupts until the rows start ("before its first row").
 */
export async function jobClient(ctx: Context, real: boolean, before: string): Promise<ApiClient> {
  const client = await ctx.api();
  if (real) client.forBulkJob();
  // A signal before the rows start ends the job as Ctrl-C does (context.ts guardSignals).
  ctx.guardSignals(client, before);
  return client;
}

/** What a file job reads: rows, and how far through the file it is (for progress). */
export interface JobSource extends SourceShape {
  header: string[];
  rows: AsyncIterable<{ cells: string[]; line: number; sheet?: string | undefined; prepared?: unknown }>;
  bytesRead(): number;
  size: number | undefined;
}

/** What every file job's command line says of the file: which one, --dry-run, --resume/--restart, --rejects. */
export interface FileJobFlags {
  file: string;
  dryRun: boolean;
  resume: boolean;
  restart: boolean;
  rejects?: string | undefined;
  /** `jobs resume`: the job this run continues. */
  expectJob?: string | undefined;
  /** No file is read (one request typed on the command line): no journal, no rejects file (job.ts). */
  noJournal?: boolean | undefined;
}

/** What a job's record keeps besides its identity: its options, the files it writes, and the client whose answers make its timeline. */
export interface JobRecordInput {
  options: Record<string, unknown>;
  files?: JobFilesRecord;
  client?: ApiClient | undefined;
}

/**
 * Opens the journal and rejects file of a file job run by a command (see job.ts). Jobs differ only
 * in their `kind` and `identity`: the settings that, changed, make an earlier journal another run's.
 */
export async function openFileJob(
  ctx: Context,
  source: JobSource,
  kind: string,
  o: FileJobFlags,
  identity: Record<string, unknown>,
  record: JobRecordInput,
): Promise<JobFiles & { shownName: string }> {
  const stdin = o.file === '-';
  const shownName = stdin ? 'stdin' : o.file;
  const settings = await ctx.settings();
  const files = await openJob({
    options: record.options,
    ...(record.files ? { files: record.files } : {}),
    baseUrl: settings.baseUrl,
    apiKey: record.client ? await ctx.apiKey() : settings.apiKey,
    keep: settings.jobsKept,
    client: record.client,
    kind,
    file: o.file,
    shownName,
    path: stdin ? '-' : resolve(ctx.deps.cwd, o.file),
    cwd: ctx.deps.cwd,
    dryRun: o.dryRun,
    noJournal: o.noJournal,
    resume: o.resume,
    restart: o.restart,
    expectJob: o.expectJob,
    identity,
    configPath: async () => (await ctx.config()).path,
    rejectsPath: o.rejects,
    header: source.header,
    shape: { delimiter: source.delimiter, encoding: source.encoding },
    csvRaw: ctx.csvRaw,
    log: ctx.log,
    now: ctx.deps.now,
  });
  const journal = files.journal;
  if (journal) {
    // However the command ends before the engine closes it (a failed listing, a broken file):
    // nothing of this run was sent, so a new job leaves no record; a resumed one keeps its own.
    ctx.onClose(() => journal.discard());
  }
  return { ...files, shownName };
}

/** The counts every file job's summary carries after its own, in the contract's order. */
export interface JobTally {
  rejected: number;
  duplicates: number;
  failed: number;
  skipped: number;
  dryRun: boolean;
  rejectsFile: string | null;
  requests: number;
  throttled: number;
  elapsedMs: number;
  /** Rows read but not finished when interrupted (--resume sends them). */
  unfinished?: number;
}

/** The counts every file job's summary carries after its own, in the contract's order. */
export function tallyOf(ctx: Context, result: BulkResult, o: { dryRun: boolean; rejectsFile: string | null; client: ApiClient | undefined; startedAt: number }): JobTally {
  const c = result.counts;
  const stats = o.client?.stats();
  return {
    rejected: c.rejected,
    duplicates: c.duplicates,
    failed: c.failed,
    skipped: c.skipped,
    dryRun: o.dryRun,
    rejectsFile: o.rejectsFile,
    requests: stats?.requests ?? 0,
    throttled: stats?.throttled ?? 0,
    elapsedMs: ctx.deps.now() - o.startedAt,
  };
}

/** Runs `plan` over `source` with the context's limiter, signals and progress. */
export async function runFileJob<T>(
  ctx: Context,
  plan: BulkPlan<T>,
  source: JobSource,
  files: Pick<JobFiles, 'journal' | 'earlier' | 'rejects'>,
  o: { client: ApiClient | undefined; dryRun: boolean; concurrency: number; words?: ProgressWords },
): Promise<BulkResult> {
  const words = o.words ?? ROWS;
  ctx.rowsStart();
  return runBulk(plan, {
    unit: words.unit,
    rows: source.rows,
    client: o.client,
    log: ctx.log,
    onSignal: ctx.deps.onSignal,
    rejects: files.rejects,
    journal: files.journal,
    earlier: files.earlier,
    dryRun: o.dryRun,
    window: Math.max(2, o.concurrency * 4),
    startProgress: (facts) =>
      startProgress(ctx, () => ({ ...facts(), bytesRead: source.bytesRead(), size: source.size, pace: o.client?.stats().pace, throttled: o.client?.stats().throttled ?? 0 }), words),
  });
}

/**
 * How a job ended, for its summary's first line: done, interrupted (Ctrl-C), or stopped on an
 * error — a stopped job's counts cover only the rows it read before the stop, not the file's.
 */
export type Ended = 'done' | 'interrupted' | 'stopped';

export function endedAs(result: BulkResult): Ended {
  return result.fatal !== undefined ? 'stopped' : result.interrupted ? 'interrupted' : 'done';
}

/** The first line's opening ("imported", "interrupted import of", "stopped import of") and what follows its count. */
export function headline(ended: Ended, done: string, job: string): { opening: string; afterCount: string } {
  return { opening: ended === 'done' ? done : `${ended} ${job} of`, afterCount: ended === 'stopped' ? ' read before the stop,' : '' };
}

/** The counts every summary carries, in the contract's order. */
export interface Tally {
  file: string | null;
  rows: number;
  rejectsFile: string | null;
}

/**
 * Ends a job: summary lines on stderr, the one line -q still shows, the JSON summary on stdout,
 * then the error or the interruption that stopped it. Returns the exit code otherwise.
 */
export function endJob<S extends Tally>(
  ctx: Context,
  result: BulkResult,
  summary: S,
  o: { kind: string; lines: string[]; stored: string },
): number {
  const c = result.counts;
  // Refused before anything was stored: the error is the whole story; a summary would count the
  // first row "unfinished" and point at a --resume that has no journal to read.
  if (!result.nothingDone) for (const line of o.lines) ctx.log.info(line);
  if (c.rows === 0 && result.fatal === undefined && !result.interrupted) ctx.log.warn(`${summary.file ?? 'the file'} has a header and no rows: nothing to do`);
  const bad = c.rejected + c.duplicates + c.failed;
  if (ctx.log.verbosity === 'quiet' && bad > 0) {
    ctx.log.notice(`callctl: ${summary.file ?? 'stdin'}: ${c.rejected} rejected, ${c.duplicates} duplicates, ${c.failed} failed of ${c.rows} rows${summary.rejectsFile ? ` (→ ${summary.rejectsFile})` : ''}`);
  }
  if (ctx.format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify(summary)}\n`);
  return jobOutcome(result, o);
}

/**
 * How every job ends once its summary is out: the error or the interruption that stopped it
 * (`stored` says what was done by then, `saved` what can be resumed), else the exit code — 0 when
 * every row made it.
 */
export function jobOutcome(result: BulkResult, o: { kind: string; stored: string; saved?: string }): number {
  const c = result.counts;
  if (result.fatal !== undefined) {
    if (result.fatal instanceof CallctlError) throw result.fatal;
    throw new RuntimeError(`${o.kind}_failed`, `${o.kind} stopped: ${(result.fatal as Error)?.message ?? String(result.fatal)}`, 'run the same command with --resume');
  }
  if (result.interrupted) throw new InterruptedError(`interrupted after ${o.stored}`, `${o.saved ?? 'the journal is saved'}: run the same command with --resume`);
  return c.rejected + c.duplicates + c.failed === 0 ? EXIT.ok : EXIT.incomplete;
}
