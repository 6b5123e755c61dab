/**
 * What every bulk job opens before its first row: the lock that lets one run of it go at a time,
 * the journal (its record: for a real run of a file, resumable; for stdin, kept for the record
 * only — stdin cannot be read twice), the earlier unfinished run it continues with --resume, and
 * the rejects file. The journal's identity is the file's content and every option that changes
 * what is sent, so --resume only ever continues the same job. A dry run keeps no journal; when it
 * wrote files (rejects, changes) it leaves a finished record naming them (`leaveRecord`). A job
 * that reads no file (`noJournal`: one erasure request typed on the command line) keeps none
 * either, and shows its rejects instead of writing them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { takeLock } from './lock.js';
import { besideInput, isStreamInput } from '../output/files.js';
import { type AnswerSource, recordTimeline } from './timeline.js';
import type { Logger } from '../output/log.js';
import { type EarlierRun, fileHash, type JobFilesRecord, type JobHeader, Journal, journalId } from './journal.js';
import { type Rejects, RejectsFile, ShownRejects, type SourceShape } from './rejects.js';

export interface JobInput {
  /** What the job is, in the operator's words: "import", "writeback", "erasure", "undo". */
  kind: string;
  /** The file as given (`-` for stdin) and as shown in messages. */
  file: string;
  shownName: string;
  /** The absolute path, or `-`. */
  path: string;
  cwd: string;
  dryRun: boolean;
  /** No file was read (one request typed on the command line): nothing to resume, no journal, no rejects file. */
  noJournal?: boolean | undefined;
  resume: boolean;
  restart: boolean;
  /** `jobs resume`: the job this run must continue (else it stops: its settings are not the job's). */
  expectJob?: string | undefined;
  /** Every option that changes what is sent. */
  identity: Record<string, unknown>;
  /** What the record keeps of the options, by the command's option names (never the key). */
  options?: Record<string, unknown>;
  /** Files the job writes besides its rejects file (absolute paths). */
  files?: JobFilesRecord;
  baseUrl?: string | undefined;
  /** The key, only to record its fingerprint. */
  apiKey?: string | undefined;
  /** Finished records to keep (`config set jobsKept`). */
  keep?: number | undefined;
  /** The API client, whose answers make the job's timeline. */
  client?: AnswerSource | undefined;
  /** A job that reads no file (an undo): what its identity hashes instead, and what it undoes. */
  content?: { hash: string; undoes: string } | undefined;
  /** The config file's path: journals live beside it. */
  configPath: () => Promise<string>;
  /** --rejects, and the source's header (the rejects file keeps its columns). */
  rejectsPath: string | undefined;
  header: string[];
  /** The source's delimiter and encoding, which the rejects file keeps. */
  shape?: SourceShape | undefined;
  /** --csv-raw: the rejects file's cells without the formula guard. */
  csvRaw?: boolean | undefined;
  log: Logger;
  now: () => number;
}

export interface JobFiles {
  journal: Journal | undefined;
  earlier: EarlierRun | undefined;
  /**
   * --restart: what the abandoned run knew of its unfinished rows before sending them (some may
   * have been stored just before it stopped), for the plan to carry into the new record.
   */
  abandoned: EarlierRun['intents'] | undefined;
  rejects: Rejects;
  /** The rejects file's path; undefined when the rejects are shown (`noJournal`). */
  rejectsPath: string | undefined;
  /** The job's id (a dry run's is that of the record it may leave). */
  job: string;
  /** A dry run: leaves a finished record when it wrote files, so they are known. */
  leaveRecord(written: JobFilesRecord, tally: Record<string, number>): void;
}

/** Refuses --resume on stdin or a pipe (`path`, absolute) before anything is read. */
export function checkResumable(file: string, resume: boolean, path?: string): void {
  if (file === '-' && resume) throw new UsageError('--resume needs a file: stdin cannot be read twice', 'save the list to a file and use that');
  if (resume && path !== undefined && isStreamInput(path)) throw new UsageError(`--resume needs a regular file: ${file} is a pipe, which cannot be read twice`, 'save the list to a file and use that');
}


/** A new job's id: short, random, so a few characters name it. */
export function newJobId(): string {
  return randomBytes(5).toString('hex');
}

/** Which key a job ran with, never the key: sha256, shortened. */
export function keyFingerprint(apiKey: string | undefined): string | undefined {
  return apiKey === undefined ? undefined : createHash('sha256').update(`callctl key\u0000${apiKey}`).digest('hex').slice(0, 16);
}

/** The folder of the journals: beside the config file. */
export function journalsDir(configPath: string): string {
  return resolve(dirname(configPath), 'journals');
}

/** Opens the journal and the rejects file of a job; an unfinished earlier run needs --resume or --restart. */
export async function openJob(o: JobInput): Promise<JobFiles> {
  // A pipe or a FIFO is read once, like stdin: no content hash, no --resume; its journal is kept
  // for the record only. An undo reads no file (`content`).
  const stream = o.content === undefined && isStreamInput(o.path);
  const stdin = stream && o.path === '-';
  if (!stdin && o.content === undefined) checkResumable(o.file, o.resume, o.path);
  const dir = journalsDir(await o.configPath());
  const redact = (t: string) => o.log.redact(t);
  const rejectsPath = o.rejectsPath !== undefined ? resolve(o.cwd, o.rejectsPath) : o.noJournal ? undefined : besideInput(o.cwd, o.file, '.rejects.csv', stream);
  const base: Omit<JobHeader, 'job'> = {
    kind: o.kind,
    file: o.path,
    options: o.options ?? {},
    ...(o.baseUrl !== undefined ? { baseUrl: o.baseUrl } : {}),
    ...(o.apiKey !== undefined ? { key: keyFingerprint(o.apiKey) as string } : {}),
    files: { ...(rejectsPath !== undefined ? { rejects: rejectsPath } : {}), ...o.files },
    ...(o.content ? { undoes: o.content.undoes } : {}),
  };
  let journal: Journal | undefined;
  let earlier: EarlierRun | undefined;
  let abandoned: EarlierRun['intents'] | undefined;
  let job = newJobId();
  const keepJournal = !o.dryRun && !o.noJournal;
  if (keepJournal && !stream) {
    const hash = o.content?.hash ?? (await fileHash(o.path));
    const stat = o.content ? undefined : statSync(o.path);
    const id = journalId(hash, { kind: o.kind === 'import' ? undefined : o.kind, ...o.identity });
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      // Journal.open says what is wrong with the folder.
    }
    // One run at a time: before the earlier run is read, so a second run never takes the first's
    // journal for an interrupted one.
    const lock = mkdirOk(dir) ? takeLock(join(dir, `${id}.lock`), `the ${o.kind} of ${o.shownName}`, o.now) : undefined;
    try {
      earlier = Journal.earlier(dir, id);
      if (o.restart) {
        abandoned = earlier?.intents;
        earlier = undefined;
      }
      if (o.expectJob !== undefined && earlier?.job !== o.expectJob) {
        throw new UsageError(`job ${o.expectJob} cannot be continued with the settings in effect: they are not the ones it ran with`, 'see its options with callctl jobs show; the profile\'s country, currency or outcomes may have changed since');
      }
      if (earlier && !o.resume) {
        throw new UsageError(
          `an earlier ${o.kind} of ${o.shownName} did not finish (${earlier.rows.size} rows recorded${earlier.startedAt ? `, started ${earlier.startedAt}` : ''})`,
          'add --resume to send only what is left, or --restart to start over',
        );
      }
    } catch (err) {
      lock?.release();
      throw err;
    }
    if (o.resume && !earlier) o.log.info('nothing to resume for this file and these options: starting from the first row');
    else if (earlier) o.log.info(`resuming: ${[...earlier.rows.values()].filter((s) => Journal.isFinished(s)).length} rows were finished earlier`);
    job = earlier?.job ?? job;
    const fileFacts = stat ? { size: stat.size, mtimeMs: Math.round(stat.mtimeMs), sha256: hash } : {};
    journal = Journal.open(dir, id, { resume: earlier, header: { job, ...base, ...fileFacts }, now: o.now, keep: o.keep, lock, redact });
  } else if (stream && keepJournal) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      // Journal.open says what is wrong with the folder.
    }
    o.log.info(`reading ${stdin ? 'stdin' : `${o.shownName} as a stream`}: kept for the record, but it cannot be resumed (--resume needs a ${stdin ? '' : 'regular '}file)`);
    // Never contended (its name is new), but the lock tells `jobs ls` it runs.
    const lock = mkdirOk(dir) ? takeLock(join(dir, `stream-${job}.lock`), `the ${o.kind} of ${o.shownName}`, o.now) : undefined;
    journal = Journal.open(dir, `stream-${job}`, { resume: undefined, header: { job, ...base }, now: o.now, keep: o.keep, resumable: false, lock, redact });
  }
  if (journal && o.client) recordTimeline(journal, o.client, o.now);
  const started = o.now();
  return {
    journal,
    earlier,
    abandoned,
    rejects: rejectsPath === undefined ? new ShownRejects() : new RejectsFile(rejectsPath, o.header, earlier !== undefined, o.shape, { redact, csvRaw: o.csvRaw }),
    rejectsPath,
    job,
    leaveRecord(written, tally) {
      if (!o.dryRun || Object.keys(written).length === 0) return;
      try {
        Journal.writeRecord(dir, { job, ...base, dryRun: true, files: written }, { startedAt: started, tally }, { now: o.now, keep: o.keep, redact });
      } catch (err) {
        o.log.warn(`could not keep the record of this dry run in ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
    },
  };
}

function mkdirOk(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
