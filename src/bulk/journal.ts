/**
 * The journal of a bulk job (an import, a writeback, erasure requests, an undo): its record
 * (docs/commands/jobs.md, "The records"). The first line is the job's header — its id, kind, file (path, size,
 * mtime, content hash), the options it ran with (never the key), base URL, key fingerprint and
 * the files it writes; each run (a --resume) adds a header line of its own. Then one line per
 * finished row, appended as each row finishes (a write() per row, so a kill -9 loses nothing the
 * OS has; fsync'd in batches against power loss, on libuv's pool: a slow disk never holds a send); what a row's answer said when a plan keeps it
 * (`d`: the contact id, for an undo) and what a plan knew before sending (`i`, first one kept);
 * the timeline (`tl`, see src/bulk/timeline.ts); and at each close an `end` line with the counts.
 * It is named by the file's content hash and every option that changes what is sent, so
 * `--resume` only ever continues the same job. Rejected rows and duplicates are finished; failed
 * ones are not, and are sent again. Finished journals are kept under a name never resumed. The
 * key is never written here: every line passes the logger's masking.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, existsSync, fstatSync, fsync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RuntimeError } from '../errors.js';
import { fullDiskError } from '../output/files.js';
import type { BucketRow } from './timeline.js';
import { rememberFilesOf } from './pruned-files.js';
import { activeOf, type JobHeader, parseJournal, type RowStatus, type RunEnd, tallyOf } from './journal-lines.js';

export type { JobFilesRecord, JobHeader, ParsedJournal, RowStatus, RunEnd } from './journal-lines.js';
export { parseJournal, tallyOf } from './journal-lines.js';

/** sha256 of a file's bytes, streamed. */
export async function fileHash(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The journal's name: the file's content and every option that changes what is sent. */
export function journalId(contentHash: string, identity: Record<string, unknown>): string {
  return createHash('sha256').update(contentHash).update(JSON.stringify(identity)).digest('hex').slice(0, 32);
}

export interface EarlierRun {
  /** Row number → status of the earlier runs (latest wins). */
  rows: Map<number, RowStatus>;
  /** Row → what the plan knew before sending, in the earlier runs (the first one). */
  intents: Map<number, Record<string, unknown>>;
  startedAt: string | undefined;
  /** The job's id, which a resume keeps. */
  job: string | undefined;
  /** Running time of the earlier runs. */
  activeMs: number;
}

const FSYNC_EVERY_MS = 200;
/** Finished records are kept 30 days — or, with `config set jobsKept N`, the N newest whatever their age. */
export const KEEP_FINISHED_MS = 30 * 24 * 60 * 60 * 1000;
const DONE = /\.done-(\d+)\.jsonl$/;

/** A journal of stdin or a pipe a kill -9 left open: never resumed, so dropped once idle for the 30 days. */
const STREAM_OPEN = /^stream-[0-9a-f]+\.jsonl$/;

/** Removes finished records beyond what is kept (unfinished ones are never touched), noting the files they wrote (pruned-files.ts). */
export function pruneFinished(dir: string, now: number, keep?: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const dated = names
    .filter((n) => DONE.test(n))
    .map((n) => ({ n, at: Number(DONE.exec(n)?.[1]) }))
    .sort((a, b) => b.at - a.at);
  dated.forEach(({ n, at }, i) => {
    if (keep !== undefined ? i >= keep : now - at > KEEP_FINISHED_MS) {
      rememberFilesOf(dir, join(dir, n));
      rmSync(join(dir, n), { force: true });
    }
  });
  for (const n of names.filter((x) => STREAM_OPEN.test(x))) {
    try {
      if (now - statSync(join(dir, n)).mtimeMs > KEEP_FINISHED_MS) {
        rememberFilesOf(dir, join(dir, n));
        rmSync(join(dir, n), { force: true });
      }
    } catch {
      // gone meanwhile
    }
  }
}

/** What a journal asks of the job at its close: the last buckets, and the limit learnt. */
export type CloseHook = () => { timeline: BucketRow[]; limit: number | undefined };

export class Journal {
  private fd: number | undefined;
  private dirty = false;
  /**
   * A row's ending, answer or intent was written by this run: it is a job that happened (an intent:
   * a request went on the wire, and may have been stored).
   */
  private wroteRows = false;
  private lastSync = 0;
  /** An fsync on libuv's pool not yet done; the fd is closed only after it (closeAfterSync). */
  private syncing = false;
  private closeAfterSync: number | undefined;
  private readonly tally: Record<string, number>;
  private closeHook: CloseHook | undefined;
  private readonly openedAt: number;
  /** Bytes of whole lines in the file: a line the disk took only part of is cut back to this. */
  private written = 0;
  /** What stopped the writing (a full disk): every later line is refused with it. */
  private failed: Error | undefined;

  private constructor(
    readonly path: string,
    /** The job's id (its header's). */
    readonly job: string,
    private readonly now: () => number,
    private readonly earlierRun: EarlierRun | undefined,
    private readonly lock: { release(): void } | undefined,
    /** False for stdin (and a retired run): never resumed, so kept under a finished name however it ends. */
    private resumable: boolean,
    /** Finished records to keep (`config set jobsKept`), counted again once this one is finished. */
    private readonly keep: number | undefined,
    private readonly redact: (text: string) => string,
  ) {
    this.tally = earlierRun ? tallyOf(earlierRun.rows) : {};
    this.openedAt = now();
    const first = Date.parse(earlierRun?.startedAt ?? '');
    this.jobStartedAt = Number.isFinite(first) ? first : this.openedAt;
  }

  /** When the job's first run started (the timeline's zero). */
  readonly jobStartedAt: number;

  /** Reads an unfinished journal, if there is one (a finished one is not an earlier run to resume). */
  static earlier(dir: string, name: string): EarlierRun | undefined {
    let text: string;
    try {
      text = readFileSync(join(dir, `${name}.jsonl`), 'utf8');
    } catch {
      return undefined;
    }
    const p = parseJournal(text);
    if (p.done) return undefined;
    // What was known before sending matters only for rows not finished: the others are skipped.
    for (const r of p.intents.keys()) if (Journal.isFinished(p.rows.get(r))) p.intents.delete(r);
    return { rows: p.rows, intents: p.intents, startedAt: p.runs[0]?.startedAt, job: p.header?.job, activeMs: activeOf(p) };
  }

  /** Every ending but `failed` is final: a failed row is sent again by --resume. */
  static isFinished(status: RowStatus | undefined): boolean {
    return status !== undefined && status !== 'failed';
  }

  /**
   * Opens the journal `<name>.jsonl` in `dir`: appended to when resuming, started afresh otherwise,
   * with the job's header. `lock` (held by the caller) is let go at the close.
   */
  static open(
    dir: string,
    name: string,
    o: { resume: EarlierRun | undefined; header: JobHeader; now: () => number; keep?: number | undefined; lock?: { release(): void } | undefined; resumable?: boolean; redact?: ((text: string) => string) | undefined },
  ): Journal {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      pruneFinished(dir, o.now(), o.keep);
      const j = new Journal(join(dir, `${name}.jsonl`), o.header.job, o.now, o.resume, o.lock, o.resumable ?? true, o.keep, o.redact ?? ((t) => t));
      // --restart: the earlier run stays in the records, interrupted, under a name never resumed
      // (what it stored can still be undone).
      if (!o.resume && existsSync(j.path)) renameSync(j.path, j.path.replace(/\.jsonl$/, `.done-${o.now()}.jsonl`));
      j.fd = openSync(j.path, 'a', 0o600);
      j.written = fstatSync(j.fd).size;
      j.append({ ...o.header, startedAt: new Date(o.now()).toISOString(), resume: o.resume !== undefined, pid: process.pid });
      return j;
    } catch (err) {
      o.lock?.release();
      if (err instanceof RuntimeError) throw err;
      throw fullDiskError(err, join(dir, `${name}.jsonl`), 'the journal', 'free some space there, then run the same command again') ?? new RuntimeError('journal_unwritable', `cannot write the journal in ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'set CALLCTL_CONFIG_DIR to a writable folder');
    }
  }

  /**
   * The record of a job that keeps no journal of rows (a dry run that wrote files): its header and
   * one end line, written finished at once.
   */
  static writeRecord(dir: string, header: JobHeader, end: { startedAt: number; tally: Record<string, number> }, o: { now: () => number; keep?: number | undefined; redact?: ((text: string) => string) | undefined }): string {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    pruneFinished(dir, o.now(), o.keep);
    const at = o.now();
    const path = join(dir, `${header.job}.done-${at}.jsonl`);
    const lines = [
      { ...header, startedAt: new Date(end.startedAt).toISOString(), resume: false, pid: process.pid },
      { done: true, end: { at: new Date(at).toISOString(), tally: end.tally, activeMs: at - end.startedAt } satisfies RunEnd },
    ];
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, lines.map((l) => `${(o.redact ?? ((t) => t))(JSON.stringify(l))}\n`).join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (o.keep !== undefined) pruneFinished(dir, at, o.keep);
    return path;
  }

  /** Asked at the close for the last buckets of the timeline and the limit learnt. */
  onClose(hook: CloseHook): void {
    this.closeHook = hook;
  }

  record(row: number, status: RowStatus): void {
    this.wroteRows = true;
    const before = this.earlierRun?.rows.get(row);
    if (before !== undefined) this.tally[before] = (this.tally[before] ?? 1) - 1;
    this.tally[status] = (this.tally[status] ?? 0) + 1;
    this.append({ r: row, s: status });
  }

  /** What the answer of a row said, for a later reader (an undo): written before its ending. */
  note(row: number, data: Record<string, unknown>): void {
    this.wroteRows = true;
    this.append({ r: row, d: data });
  }

  /**
   * What a plan knew of a row before sending it; a reader keeps the first one of the job. A plain
   * write, never an fsync: it goes just before a request, which must not wait on the disk (the
   * lines after it carry it to the disk in their batch).
   */
  intent(row: number, data: Record<string, unknown>): void {
    this.wroteRows = true;
    this.append({ r: row, i: data }, false);
  }

  /** Buckets of the timeline (written from a timer: a failure is kept for the close, not thrown there). */
  timeline(rows: BucketRow[]): void {
    try {
      if (rows.length > 0) this.append({ tl: rows });
    } catch {
      // kept in `failed`: the next row's ending, or the close, reports it
    }
  }

  /**
   * Appends one line, whole or not at all: a full disk (docs/network.md, "Bounds") may take part of a
   * line, which is cut off again, so the journal stays whole lines — what --resume reads once
   * there is space. The failure is thrown (the job stops on it, one line naming the file and its
   * disk), and again for every later line.
   */
  private append(entry: object, sync = true): void {
    if (this.fd === undefined) return;
    if (this.failed) throw this.failed;
    const line = Buffer.from(`${this.redact(JSON.stringify(entry))}\n`);
    try {
      for (let at = 0; at < line.length; ) at += writeSync(this.fd, line, at);
    } catch (err) {
      try {
        ftruncateSync(this.fd, this.written);
      } catch {
        // the line's start stays; a reader skips a line that is not JSON
      }
      throw this.fail(err);
    }
    this.written += line.length;
    this.dirty = true;
    if (!sync) return;
    const now = performance.now();
    if (now - this.lastSync >= FSYNC_EVERY_MS) this.sync(now);
  }

  /**
   * Every FSYNC_EVERY_MS, an fsync on libuv's pool (fs.fsync): the main thread goes on sending
   * while the disk is slow — a line is written (write()) before its row counts as done, which is
   * what a kill -9 needs; the fsync is against power loss. One at a time; what was written during
   * it goes with the next.
   */
  private sync(now = performance.now()): void {
    this.lastSync = now;
    if (this.fd === undefined || !this.dirty || this.syncing) return;
    this.dirty = false;
    this.syncing = true;
    fsync(this.fd, (err) => {
      this.syncing = false;
      // A disk that refuses the flush: kept, and the next line or the close reports it.
      if (err && !this.failed) this.fail(err);
      if (this.closeAfterSync !== undefined) closeSync(this.closeAfterSync);
      this.closeAfterSync = undefined;
    });
  }

  /** Keeps the failure that stops every later write, worded for the operator. */
  private fail(err: unknown): Error {
    this.failed = fullDiskError(err, this.path, 'the journal') ?? new RuntimeError('journal_unwritable', `cannot write the journal ${this.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'free some space or fix the folder, then run the same command with --resume', { cause: err });
    return this.failed;
  }

  /** Closes the file as it stands and lets the lock go: nothing more is written. */
  private abandon(): void {
    if (this.fd !== undefined) {
      // (An fsync still on the pool has the fd: it is closed once that is done.)
      if (this.syncing) this.closeAfterSync = this.fd;
      else closeSync(this.fd);
    }
    this.fd = undefined;
    this.lock?.release();
  }

  /**
   * Removes the journal of a run that stored nothing and continues no earlier one (refused at its
   * first request, or stopped before it sent any): a job that did not happen leaves no record, and
   * nothing to --resume or --restart. A resumed run's journal holds the earlier runs, and one this
   * run wrote a row into holds a job that happened (a close that failed on a full disk, say): it is
   * closed as interrupted — or, where even that cannot be written, left as it is for --resume.
   * `refused`: the engine saw the service refuse the first request before anything was stored
   * (its row's refusal is all the journal holds); otherwise a request that went out may have
   * stored its row, and the journal is kept.
   */
  discard(o: { refused?: boolean } = {}): void {
    if (this.fd === undefined) return;
    if (this.earlierRun !== undefined || (o.refused !== true && this.wroteRows)) {
      try {
        return this.close(false);
      } catch {
        if (this.fd !== undefined) {
          if (this.syncing) this.closeAfterSync = this.fd;
          else closeSync(this.fd);
        }
        this.fd = undefined;
        this.lock?.release();
        return;
      }
    }
    // A background fsync may still hold the descriptor: closed once it ends (as abandon does).
    if (this.syncing) this.closeAfterSync = this.fd;
    else closeSync(this.fd);
    this.fd = undefined;
    try {
      rmSync(this.path, { force: true });
    } finally {
      this.lock?.release();
    }
  }

  /**
   * Flushes to disk; `finished` marks the job complete, so the next run starts afresh.
   * `unfinished`: rows this run read and did not finish (its summary's count), kept in its end.
   */
  close(finished: boolean, unfinished = 0): void {
    if (this.fd === undefined) return;
    // A journal that could not be written (a full disk): its rows stand as written, whole lines;
    // nothing more is tried, and the job is left to --resume.
    if (this.failed) {
      this.abandon();
      throw this.failed;
    }
    let at: number;
    try {
      const last = this.closeHook?.();
      if (last) this.timeline(last.timeline);
      at = this.now();
      const end: RunEnd = {
        at: new Date(at).toISOString(),
        tally: Object.fromEntries(Object.entries(this.tally).filter(([, n]) => n > 0)),
        activeMs: (this.earlierRun?.activeMs ?? 0) + (at - this.openedAt),
        ...(last?.limit !== undefined ? { limit: last.limit } : {}),
        ...(finished ? {} : { interrupted: true }),
        ...(unfinished > 0 ? { unfinished } : {}),
      };
      this.append(finished ? { done: true, end } : { end }, false);
      if (this.failed) throw this.failed;
      // The last lines are on the disk before the job ends (a close waits for nothing else to send).
      try {
        fsyncSync(this.fd);
      } catch (err) {
        throw this.fail(err);
      }
    } catch (err) {
      this.abandon();
      throw err;
    }
    // (An fsync still on the pool has the fd: it is closed once that is done.)
    if (this.syncing) this.closeAfterSync = this.fd;
    else closeSync(this.fd);
    this.fd = undefined;
    try {
      // Kept for the record under a name that is never resumed.
      if (finished || !this.resumable) {
        renameSync(this.path, this.path.replace(/\.jsonl$/, `.done-${at}.jsonl`));
        if (this.keep !== undefined) pruneFinished(dirname(this.path), at, this.keep);
      }
    } finally {
      this.lock?.release();
    }
  }
}
