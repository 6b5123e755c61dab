/**
 * What every bulk job opens before its first row: the journal (only for a real run of a file —
 * stdin cannot be read twice), the earlier unfinished run it continues with --resume, and the
 * rejects file. The journal's identity is the file's content and every option that changes what
 * is sent, so --resume only ever continues the same job.
 */
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { besideInput, isStreamInput } from '../output/files.js';
import type { Logger } from '../output/log.js';
import { type EarlierRun, fileHash, Journal, journalId } from './journal.js';
import { RejectsFile, type SourceShape } from './rejects.js';

export interface JobInput {
  /** What the job is, in the operator's words: "import", "writeback", "erasure". */
  kind: string;
  /** The file as given (`-` for stdin) and as shown in messages. */
  file: string;
  shownName: string;
  /** The absolute path, or `-`. */
  path: string;
  cwd: string;
  dryRun: boolean;
  resume: boolean;
  restart: boolean;
  /** Every option that changes what is sent. */
  identity: Record<string, unknown>;
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
  rejects: RejectsFile;
  rejectsPath: string;
}

/** Refuses --resume on stdin or a pipe (`path`, absolute) before anything is read. */
export function checkResumable(file: string, resume: boolean, path?: string): void {
  if (file === '-' && resume) throw new UsageError('--resume needs a file: stdin cannot be read twice', 'save the list to a file and use that');
  if (resume && path !== undefined && isStreamInput(path)) throw new UsageError(`--resume needs a regular file: ${file} is a pipe, which cannot be read twice`, 'save the list to a file and use that');
}

/** Opens the journal and the rejects file of a job; an unfinished earlier run needs --resume or --restart. */
export async function openJob(o: JobInput): Promise<JobFiles> {
  // A pipe or a FIFO is read once, like stdin: no content hash, no journal, no --resume.
  const stream = isStreamInput(o.path);
  const stdin = o.path === '-';
  if (!stdin) checkResumable(o.file, o.resume, o.path);
  let journal: Journal | undefined;
  let earlier: EarlierRun | undefined;
  if (!o.dryRun && !stream) {
    const dir = resolve(dirname(await o.configPath()), 'journals');
    const id = journalId(await fileHash(o.path), { kind: o.kind === 'import' ? undefined : o.kind, ...o.identity });
    earlier = o.restart ? undefined : Journal.earlier(dir, id);
    if (earlier && !o.resume) {
      throw new UsageError(
        `an earlier ${o.kind} of ${o.shownName} did not finish (${earlier.rows.size} rows recorded${earlier.startedAt ? `, started ${earlier.startedAt}` : ''})`,
        'add --resume to send only what is left, or --restart to start over',
      );
    }
    if (o.resume && !earlier) o.log.info('nothing to resume for this file and these options: starting from the first row');
    else if (earlier) o.log.info(`resuming: ${[...earlier.rows.values()].filter((s) => Journal.isFinished(s)).length} rows were finished earlier`);
    journal = Journal.open(dir, id, earlier !== undefined, { file: o.path }, o.now, (t) => o.log.redact(t));
  } else if (stream && !o.dryRun) {
    o.log.info(`reading ${stdin ? 'stdin' : `${o.shownName} as a stream`}: no journal is kept (--resume needs a ${stdin ? '' : 'regular '}file)`);
  }
  const rejectsPath = o.rejectsPath !== undefined ? resolve(o.cwd, o.rejectsPath) : besideInput(o.cwd, o.file, '.rejects.csv', stream);
  const rejects = new RejectsFile(rejectsPath, o.header, earlier !== undefined, o.shape, { redact: (t) => o.log.redact(t), csvRaw: o.csvRaw });
  return { journal, earlier, rejects, rejectsPath };
}
