/**
 * The files callctl wrote that may hold a person, from the job records (src/bulk/records.ts): the
 * rejects and changes (preview) files of every job (its recorded `files`, and `<file>.rejects.csv`
 * / `<file>.changes.csv` beside its file, the defaults), and the journals themselves — an import's
 * journal keeps the earlier values of the fields it changed in a contact, for `import undo`.
 * Receipts are left out: they hold no personal data by design, and they are the proof of what was
 * erased. Job records are kept for a month (or `jobsKept`); the files of a pruned record are noted
 * before it goes (src/bulk/pruned-files.ts), so they are searched however old.
 */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { prunedJobs } from '../bulk/pruned-files.js';
import { readJobs } from '../bulk/records.js';

/**
 * A file a job wrote, and whether a job that writes it is running (a live process holds the lock
 * beside its journal, src/bulk/lock.ts). A running job keeps writing to its file and renames it
 * into place at its end: rewritten under it, every row it writes afterwards would be lost. So such
 * a file is searched but never rewritten. A job stopped before its end (Ctrl-C, kill -9) holds no
 * lock: its files can be cleaned, and its --resume appends to what is left.
 */
export interface OwnFile {
  path: string;
  running: boolean;
  /** `csv`: rows of people (rejects, changes); `journal`: a job's journal (JSON lines). */
  kind: 'csv' | 'journal';
}

/** The files of a job that may hold people: CSV files of rows (not receipts). */
const KINDS = new Set(['rejects', 'changes', 'preview']);

const isFile = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** Every existing file the job records in `journalsDir` say a job wrote, sorted by path. */
export function filesJobsWrote(journalsDir: string): OwnFile[] {
  const running = new Map<string, boolean>();
  const found = (path: string, busy: boolean) => running.set(path, (running.get(path) ?? false) || busy);
  const journals: OwnFile[] = [];
  const filesOf = (job: { file: string; files: Record<string, unknown> }, busy: boolean) => {
    if (job.file !== '-' && isAbsolute(job.file)) {
      found(`${job.file}.rejects.csv`, busy);
      found(`${job.file}.changes.csv`, busy);
    }
    for (const [kind, value] of Object.entries(job.files)) {
      if (!KINDS.has(kind)) continue;
      for (const path of Array.isArray(value) ? value : [value]) if (typeof path === 'string' && isAbsolute(path)) found(path, busy);
    }
  };
  for (const job of readJobs(journalsDir)) {
    const busy = job.state === 'running';
    journals.push({ path: job.journal, running: busy, kind: 'journal' });
    filesOf({ file: job.file, files: job.files as Record<string, unknown> }, busy);
  }
  // The files of jobs whose records were pruned stay on disk (src/bulk/pruned-files.ts).
  for (const job of prunedJobs(journalsDir)) filesOf(job, false);
  // A run writes its file under `.partial` (output/files.ts) until its end; one that crashed leaves it there until it is resumed.
  const csv = [...running]
    .flatMap(([path, busy]) => [{ path, running: busy, kind: 'csv' as const }, { path: `${path}.partial`, running: busy, kind: 'csv' as const }])
    .filter((f) => isFile(f.path));
  return [...csv, ...journals].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
