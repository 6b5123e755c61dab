/**
 * The job records: every journal in the config folder's `journals/`, read back (src/bulk/journal.ts
 * writes them). `readJobs` lists them, newest first — what `jobs ls` shows, and where `rm
 * --purge-local` finds the files each job wrote (`file`, `files`); `findJob` names one by its id or
 * a unique prefix; `readJournal` reads one whole (rows, timeline) for `jobs show` and `import undo`.
 * A job is `running` while a live process holds its lock, `interrupted` when it stopped before its
 * end (Ctrl-C, kill -9, an outage), `finished` otherwise.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { type JobFilesRecord, type JobHeader, type ParsedJournal, parseJournal, type RunEnd, tallyOf } from './journal-lines.js';
import { type LockHolder, lockHolder } from './lock.js';

export type JobState = 'finished' | 'interrupted' | 'running';

/** One job, as `jobs ls --json` shows it (the first seven keys) and as commands use it. */
export interface JobRecord {
  id: string;
  kind: string;
  /** The file's absolute path; `-` for stdin. */
  file: string;
  startedAt: string;
  endedAt: string | null;
  state: JobState;
  /** Row endings by name (`created`, `matched`, `rejected`, `duplicates`, `failed`…), and `rows`. */
  counts: Record<string, number>;
  options: Record<string, unknown>;
  files: JobFilesRecord;
  dryRun: boolean;
  /** Running time over every run, in ms. */
  durationMs: number;
  baseUrl: string | undefined;
  /** The key's fingerprint. */
  key: string | undefined;
  size: number | undefined;
  mtimeMs: number | undefined;
  sha256: string | undefined;
  /** An undo: the import it undoes. */
  undoes: string | undefined;
  /** The limit the limiter held at the last close (requests per second). */
  limit: number | undefined;
  /** The process running it, when `running`. */
  holder: LockHolder | undefined;
  /** The journal's path. */
  journal: string;
}

const JOURNAL = /\.jsonl$/;
/** A journal's name without the `.done-<ms>` a finished one carries: its lock's name. */
const baseName = (name: string) => name.replace(/(\.done-\d+)?\.jsonl$/, '');

/** The first line, and the last complete one, without reading the whole of a long journal. */
function headAndTail(path: string): { head: string; tail: string; whole: string | undefined } {
  const size = statSync(path).size;
  if (size <= 256 * 1024) {
    const whole = readFileSync(path, 'utf8');
    return { head: whole.slice(0, whole.indexOf('\n') + 1 || undefined), tail: lastLine(whole), whole };
  }
  const fd = openSync(path, 'r');
  try {
    const read = (at: number, length: number) => {
      const buf = Buffer.alloc(length);
      return buf.subarray(0, readSync(fd, buf, 0, length, at)).toString('utf8');
    };
    const start = read(0, 64 * 1024);
    const end = read(size - 64 * 1024, 64 * 1024);
    return { head: start.slice(0, start.indexOf('\n') + 1 || undefined), tail: lastLine(end), whole: undefined };
  } finally {
    closeSync(fd);
  }
}

function lastLine(text: string): string {
  const lines = text.split('\n').filter((l) => l !== '');
  return lines.at(-1) ?? '';
}

const json = (line: string): Record<string, unknown> | undefined => {
  try {
    const v = JSON.parse(line) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Row endings as summaries name them; `unfinished`: rows the last run read and did not finish,
 * which its summary counted among its rows.
 */
function countsOf(tally: Record<string, number>, dryRun: boolean, unfinished: number | undefined): Record<string, number> {
  const named: Record<string, number> = {};
  for (const [status, n] of Object.entries(tally)) {
    if (typeof n !== 'number' || n <= 0) continue;
    named[status === 'duplicate' ? 'duplicates' : status] = n;
  }
  if (!dryRun && typeof unfinished === 'number' && unfinished > 0) named.unfinished = unfinished;
  // Rows first, then the endings, most first.
  const rows = dryRun ? named.rows : Object.values(named).reduce((a, b) => a + b, 0);
  const rest = Object.entries(named).filter(([k]) => k !== 'rows').sort((a, b) => b[1] - a[1]);
  return { ...(rows !== undefined ? { rows } : {}), ...Object.fromEntries(rest) };
}

/** Reads one journal's record; undefined for a file that is not one. */
export function readJob(dir: string, name: string): JobRecord | undefined {
  const path = join(dir, name);
  let parts: ReturnType<typeof headAndTail>;
  try {
    parts = headAndTail(path);
  } catch {
    return undefined;
  }
  const header = json(parts.head.trim()) as (Partial<JobHeader> & { startedAt?: string }) | undefined;
  if (!header || typeof header.startedAt !== 'string') return undefined;
  const last = json(parts.tail);
  let end = last && typeof last.end === 'object' ? (last.end as RunEnd) : undefined;
  let done = last?.done === true;
  let parsed: ParsedJournal | undefined;
  if (!end) {
    // Killed, or running: the counts are the rows read back.
    parsed = parseJournal(parts.whole ?? readFileSync(path, 'utf8'));
    done = parsed.done;
    end = parsed.runs.at(-1)?.end;
  }
  const tally = end && last?.end ? end.tally : tallyOf((parsed as ParsedJournal).rows);
  const finishedName = /\.done-\d+\.jsonl$/.test(name);
  const holder = finishedName ? undefined : lockHolder(join(dir, `${baseName(name)}.lock`));
  const state: JobState = holder ? 'running' : done ? 'finished' : 'interrupted';
  const started = Date.parse(header.startedAt);
  const durationMs = end && last?.end ? end.activeMs : Math.max(0, (holder ? Date.now() : statSync(path).mtimeMs) - started);
  const dryRun = header.dryRun === true;
  return {
    id: typeof header.job === 'string' ? header.job : createHash('sha256').update(name).digest('hex').slice(0, 10),
    kind: typeof header.kind === 'string' ? header.kind : 'import',
    file: typeof header.file === 'string' ? header.file : '-',
    startedAt: header.startedAt,
    endedAt: state === 'running' ? null : (end?.at ?? new Date(statSync(path).mtimeMs).toISOString()),
    state,
    counts: countsOf(tally ?? {}, dryRun, end && last?.end && !done ? end.unfinished : undefined),
    options: header.options && typeof header.options === 'object' ? header.options : {},
    files: header.files && typeof header.files === 'object' ? header.files : {},
    dryRun,
    durationMs: Number.isFinite(durationMs) ? durationMs : 0,
    baseUrl: header.baseUrl,
    key: header.key,
    size: header.size,
    mtimeMs: header.mtimeMs,
    sha256: header.sha256,
    undoes: header.undoes,
    limit: end && typeof end.limit === 'number' ? end.limit : undefined,
    holder,
    journal: path,
  };
}

/** Every job the journals know, newest first. */
export function readJobs(dir: string): JobRecord[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => JOURNAL.test(n));
  } catch {
    return [];
  }
  return names
    .map((n) => readJob(dir, n))
    .filter((j): j is JobRecord => j !== undefined)
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

/** The job an id or a unique prefix names; a usage error (exit 2) when none or several do. */
export function findJob(dir: string, given: string): JobRecord {
  const want = given.trim().toLowerCase();
  if (!/^[0-9a-f]+$/.test(want)) throw new UsageError(`"${given}" is not a job id`, 'job ids are hexadecimal: see callctl jobs ls');
  const jobs = readJobs(dir);
  const exact = jobs.filter((j) => j.id === want);
  const found = exact.length > 0 ? exact : jobs.filter((j) => j.id.startsWith(want));
  if (found.length === 0) throw new UsageError(`no job ${given} in the records`, 'see callctl jobs ls (finished jobs are kept 30 days, or as many as config set jobsKept says)');
  if (found.length > 1) throw new UsageError(`${given} names ${found.length} jobs: ${found.slice(0, 5).map((j) => j.id).join(', ')}${found.length > 5 ? ', …' : ''}`, 'give more of the id');
  return found[0] as JobRecord;
}

/** A job's journal, read whole (rows, what they did, the timeline). */
export function readJournal(job: JobRecord): ParsedJournal {
  return parseJournal(readFileSync(job.journal, 'utf8'));
}
