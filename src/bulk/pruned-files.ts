/**
 * What a pruned job record leaves behind: its list file and the files it wrote (rejects, changes)
 * stay on disk after the record goes (pruneFinished, journal.ts), and may hold people. Before a
 * record is removed its header's `file` and `files` — paths only, never a row — are appended to
 * `pruned-files.txt` beside the journals, so that an erasure can still find the person in them
 * (src/erasure/local-files.ts). The file is JSON lines; its name is no journal's (`*.jsonl`).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readJob } from './records.js';

export const PRUNED_FILES = 'pruned-files.txt';

export interface PrunedJob {
  file: string;
  files: Record<string, unknown>;
}

/** Notes the files of the record at `path` before it is removed; a failure to note never stops the pruning. */
export function rememberFilesOf(dir: string, path: string): void {
  const job = readJob(dir, basename(path));
  if (job === undefined) return;
  try {
    appendFileSync(join(dir, PRUNED_FILES), `${JSON.stringify({ file: job.file, files: job.files })}\n`, { mode: 0o600 });
  } catch {
    // a folder that cannot be written: the record goes as it always did
  }
}

/** Every pruned job's files, as noted. */
export function prunedJobs(dir: string): PrunedJob[] {
  let text: string;
  try {
    text = readFileSync(join(dir, PRUNED_FILES), 'utf8');
  } catch {
    return [];
  }
  const out: PrunedJob[] = [];
  for (const line of text.split('\n')) {
    try {
      const h = JSON.parse(line) as Partial<PrunedJob>;
      if (typeof h.file === 'string') out.push({ file: h.file, files: h.files !== null && typeof h.files === 'object' ? h.files : {} });
    } catch {
      // a blank line, or one cut short
    }
  }
  return out;
}
