/**
 * The engine every bulk job shares — an import, an outcome writeback, erasure requests: rows from
 * a source, each checked by the job's plan, in-file duplicates set aside, the rest sent through
 * the one limiter with a window of rows in flight (reading waits while it is full, so memory stays
 * flat), every ending recorded in the journal and the rejects file, progress on the way, Ctrl-C
 * (and SIGTERM, SIGHUP) honoured: the first stops reading, ends every wait (a pause, a back-off) at
 * once and gives the requests on the wire IN_FLIGHT_GRACE_MS to finish, the second — or the end of
 * the grace — aborts them (their rows are left to --resume). Every row read ends in exactly
 * one count. The first row sent goes alone: a key that may not write is refused once, and a job
 * stopped before anything was stored leaves no record.
 *
 * A plan is to the engine what a verb is to the program: the few decisions that differ (how a
 * row becomes a request, how an answer is counted) and no loop of its own.
 */
import { setMaxListeners } from 'node:events';
import type { SignalName } from '../deps.js';
import { ApiError, InterruptedError, RuntimeError } from '../errors.js';
import { lineName } from '../source/open.js';
import type { OutageView } from '../http/outage.js';
import type { Logger } from '../output/log.js';
import { type EarlierRun, Journal } from './journal.js';
import type { Progress, ProgressFacts, ProgressWords } from './progress.js';
import type { Rejects } from './rejects.js';

/**
 * One row of the source. `n` counts data rows from 1; `line` is where it starts in the file, and
 * `sheet` a workbook's sheet: the row is named `Leads!12` wherever it is shown (source/open.ts).
 */
export interface BulkRow {
  n: number;
  line: number;
  sheet?: string | undefined;
  cells: string[];
  /** What a stage before the engine worked out for the row (the import's phone), for the plan. */
  prepared?: unknown;
}

/** What the plan decides for a row before anything is sent. */
export type Verdict<T> =
  /** Send it; `key` names what makes a later row of the file a duplicate of this one. */
  | { send: T; key?: string | number }
  | { reject: string }
  /** Finished without a request, counted under this name (e.g. `existing`, `notFound`). */
  | { done: string };

/** The in-file duplicate index: a Set, or anything as compact that answers the same. */
export interface KeySet {
  has(key: string | number): boolean;
  add(key: string | number): unknown;
}

export interface BulkPlan<T> {
  check(row: BulkRow): Verdict<T>;
  /** The duplicate index for this job's keys (default: a Set). */
  keySet?(): KeySet;
  /** The reason a later row with the same key is set aside. */
  duplicate(key: string | number, row: BulkRow): string;
  /** Sends one row; returns how it ended (counted and journalled), e.g. `created`. */
  send(item: T, row: BulkRow, signal: AbortSignal): Promise<string>;
  /** A row the server refused (4xx): its reason for the rejects file. */
  refused(err: ApiError): string;
  /**
   * A row finished in an earlier run: its duplicate key, if it has one (so a later row of the file
   * is still a duplicate of it). Not checked otherwise: it is done.
   */
  skipped?(row: BulkRow): string | number | undefined;
  /** Told of a row finished without a request (`done`), e.g. to write its receipt. */
  ended?(row: BulkRow, ending: string): void;
  /** Told of a row that passed every check and is no duplicate, just before it is sent (or, in a dry run, counted). */
  accepted?(row: BulkRow, item: T): void | Promise<void>;
}

/** What the engine asks of the API client (src/http/client.ts) besides the plan's requests. */
export interface JobClient {
  /** Patient retries for a bulk job, its outage told by the progress line. */
  forBulkJob(phase: 'rows'): void;
  /** Ctrl-C: every wait (a pause, a back-off) ends now. */
  stopWaiting(): void;
  outage(): OutageView;
}

export interface BulkIO {
  /** `refused`: the source's own reason to reject the row before the plan sees it (a row over 1 MB). */
  rows: AsyncIterable<{ cells: string[]; line: number; sheet?: string | undefined; prepared?: unknown; refused?: string }>;
  /** The client the plan sends through; none in a dry run without a key. */
  client?: JobClient | undefined;
  log: Logger;
  onSignal(signal: SignalName, fn: () => void): () => void;
  rejects: Rejects;
  journal?: Journal | undefined;
  earlier?: EarlierRun | undefined;
  /** Check every row, send nothing. */
  dryRun: boolean;
  /** Rows in flight at most. */
  window: number;
  startProgress(facts: () => Pick<ProgressFacts, 'finished' | 'sent' | 'skipped' | 'rejected' | 'duplicates' | 'failed' | 'read' | 'outage'>): Promise<Progress>;
  /** What a row is, in the job's words (progress.ts): `rows` unless said. */
  unit?: ProgressWords['unit'] | undefined;
}

export interface BulkCounts {
  rows: number;
  /** Endings by name: the plan's (`created`, `updated`…) and the engine's. */
  endings: Record<string, number>;
  rejected: number;
  duplicates: number;
  failed: number;
  skipped: number;
  /** Dry run: rows that would be sent. */
  valid: number;
  /** Read, not finished when the job was interrupted (--resume sends them). */
  unfinished: number;
}

export interface BulkResult {
  counts: BulkCounts;
  /** Stopped by Ctrl-C / SIGTERM. */
  interrupted: boolean;
  /** What stopped the job early, if anything (a refused key, the service down, a broken file). */
  fatal: unknown;
  /** Stopped by `fatal` before anything was stored: no journal is left to resume, nothing to summarise. */
  nothingDone: boolean;
}

/** Consecutive failed rows after which the service is taken to be down and the job stops. */
const DOWN_AFTER = 20;
/** Failed rows named one by one on stderr before only counting. */
const FAILED_SHOWN = 10;
/**
 * How long the requests on the wire get to finish after a first signal: a job ends within 2 s of a
 * SIGTERM or SIGHUP (docs/network.md, "Bounds") — the journal flushed and the summary printed in
 * what is left — however long --timeout lets a request take.
 */
export const IN_FLIGHT_GRACE_MS = 1_500;

/** Runs one bulk job to its end (or its interruption). */
export async function runBulk<T>(plan: BulkPlan<T>, io: BulkIO): Promise<BulkResult> {
  const c: BulkCounts = { rows: 0, endings: {}, rejected: 0, duplicates: 0, failed: 0, skipped: 0, valid: 0, unfinished: 0 };
  const seen: KeySet = plan.keySet?.() ?? new Set<string | number>();
  const inflight = new Set<Promise<void>>();
  const abort = new AbortController();
  // Every row in flight listens on this one signal — its request (undici) and its back-off between
  // attempts: with --concurrency 8 and retries that is more than Node's default of 10, and Node
  // printed a "possible memory leak" warning on the operator's stderr. The listeners come and go
  // with the rows, bounded by the window.
  setMaxListeners(2 * io.window + 10, abort.signal);
  let stopping = false;
  let fatal: unknown;
  let consecutiveFailures = 0;
  let failedShown = 0;
  let complete = false;
  let sentOne = false;
  let nothingDone = false;
  /** Rows answered by the server in this run (the rate of progress). */
  let sent = 0;

  let grace: NodeJS.Timeout | undefined;
  const onSignal = () => {
    if (!stopping) {
      stopping = true;
      // Rows read and not finished: on the wire, waiting for a place or a pause, or read and
      // waiting for the window — the summary's `unfinished` counts those that do not finish now.
      const underWay = c.rows - c.skipped - finishedCount();
      const unit = io.unit ?? 'rows';
      io.client?.stopWaiting();
      // Those on the wire get a grace, then are aborted (a SIGTERM or SIGHUP has no second press).
      if (inflight.size > 0) grace = setTimeout(() => abort.abort(), IN_FLIGHT_GRACE_MS);
      io.log.warn(
        `stopping: no new ${unit}; ${underWay} ${underWay === 1 ? unit.slice(0, -1) : unit} under way: those with a request on the wire get ${IN_FLIGHT_GRACE_MS / 1000} s to finish, the others are left unfinished for --resume (Ctrl-C again stops them all)`,
      );
    } else abort.abort();
  };
  const offs = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((name) => io.onSignal(name, onSignal));
  if (!io.dryRun) io.client?.forBulkJob('rows');
  const ended = () => Object.values(c.endings).reduce((a, b) => a + b, 0);
  const finishedCount = () => ended() + c.rejected + c.duplicates + c.failed + c.valid;
  const progress = await io.startProgress(() => ({
    finished: finishedCount(),
    sent: sent,
    skipped: c.skipped,
    rejected: c.rejected,
    duplicates: c.duplicates,
    failed: c.failed,
    read: c.rows,
    outage: io.client?.outage(),
  }));

  const finish = (row: BulkRow, status: string) => io.journal?.record(row.n, status);
  const end = (row: BulkRow, status: string) => {
    finish(row, status); // first: a row the journal could not keep (a full disk) is not counted as ended
    c.endings[status] = (c.endings[status] ?? 0) + 1;
  };

  async function send(item: T, row: BulkRow): Promise<void> {
    try {
      const ending = await plan.send(item, row, abort.signal);
      sent += 1;
      end(row, ending);
      consecutiveFailures = 0;
    } catch (err) {
      if (err instanceof InterruptedError || abort.signal.aborted) {
        c.unfinished += 1; // --resume sends it again
        return;
      }
      if (err instanceof ApiError && err.final) {
        fatal ??= err; // no other row can do better: no host, a refused certificate, a page in place of the API
        c.unfinished += 1;
        return;
      }
      if (err instanceof ApiError && err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 429) {
        if (err.status === 401 || err.status === 403) {
          fatal ??= err; // every row would meet the same refusal
          c.unfinished += 1;
          return;
        }
        c.rejected += 1;
        io.rejects.add(row.cells, plan.refused(err), lineName(row));
        finish(row, 'rejected');
        consecutiveFailures = 0;
        return;
      }
      if (err instanceof ApiError) {
        c.failed += 1;
        finish(row, 'failed');
        consecutiveFailures += 1;
        if (failedShown++ < FAILED_SHOWN) io.log.warn(`line ${lineName(row)}: failed: ${err.message}`);
        if (consecutiveFailures >= DOWN_AFTER) {
          fatal ??= new RuntimeError('service_down', `${consecutiveFailures} rows in a row failed (last: ${err.message})`, 'the service looks down; run the same command with --resume later');
        }
        return;
      }
      c.unfinished += 1;
      fatal ??= err;
    }
  }

  try {
    for await (const raw of io.rows) {
      if (stopping || fatal) break;
      c.rows += 1;
      const row: BulkRow = { n: c.rows, line: raw.line, sheet: raw.sheet, cells: raw.cells, prepared: raw.prepared };
      if (Journal.isFinished(io.earlier?.rows.get(row.n))) {
        c.skipped += 1;
        const key = plan.skipped?.(row);
        if (key !== undefined) seen.add(key);
        continue;
      }
      const verdict = raw.refused !== undefined ? { reject: raw.refused } : plan.check(row);
      if ('reject' in verdict) {
        c.rejected += 1;
        io.rejects.add(row.cells, verdict.reject, lineName(row));
        finish(row, 'rejected');
        continue;
      }
      if ('done' in verdict) {
        end(row, verdict.done);
        plan.ended?.(row, verdict.done);
        continue;
      }
      if (verdict.key !== undefined) {
        if (seen.has(verdict.key)) {
          c.duplicates += 1;
          io.rejects.add(row.cells, plan.duplicate(verdict.key, row), lineName(row));
          finish(row, 'duplicate');
          continue;
        }
        seen.add(verdict.key);
      }
      await plan.accepted?.(row, verdict.send);
      if (io.dryRun) {
        c.valid += 1;
        continue;
      }
      while (inflight.size >= io.window) await Promise.race(inflight);
      if (stopping || fatal) {
        c.unfinished += 1; // read but not sent: --resume sends it
        break;
      }
      const p: Promise<void> = send(verdict.send, row).finally(() => inflight.delete(p));
      inflight.add(p);
      // The first row goes alone: a key that may not write (403), a host that does not answer, a
      // page in place of the API are met once, not once per row in flight.
      if (!sentOne) {
        sentOne = true;
        await p;
      }
    }
    complete = !stopping && !fatal;
  } catch (err) {
    fatal ??= err;
  } finally {
    await Promise.allSettled([...inflight]);
    clearTimeout(grace);
    progress.stop();
    // Interrupted, the job stays listening: a second Ctrl-C while the command ends (its summary,
    // closing the connections) must not kill the process before it exits 130.
    if (!stopping) offs.forEach((off) => off());
    // Stopped by the service before it stored anything (its first request refused, or no service
    // to reach; no answer lost): a job that did not happen — no record, nothing to --resume or
    // --restart, no rejects file. A file that breaks is no refusal: the rows above it stay done.
    nothingDone = !io.dryRun && fatal instanceof ApiError && sent === 0 && ended() === 0 && c.failed === 0 && io.earlier === undefined;
    try {
      if (nothingDone) {
        io.rejects.discard();
        io.journal?.discard({ refused: true });
      } else {
        io.rejects.close();
        // Finished only when every row read ended: a Ctrl-C after the last row was read leaves the
        // rows it stopped unfinished, for --resume.
        io.journal?.close(complete && !stopping && c.unfinished === 0 && c.failed === 0 && fatal === undefined && !abort.signal.aborted, c.unfinished);
      }
    } catch (err) {
      fatal ??= err; // a file the disk refused: the summary still says what was done
    }
  }
  return { counts: c, interrupted: stopping, fatal, nothingDone };
}
