/**
 * What a pruned job record leaves behind: its list file and the files it wrote (rejects, changes)
 * stay on disk after the record goes (pruneFinished, journal.ts), and may hold people. Before a
 * record is removed its header's `file` and `files` — paths only, never a row — are appended to
 * `pruned-files.txt` beside the journals, so that an erasure can still find the person in them
 * (src/erasure/local-files.ts). The file is JSON lines; its name is no journal's (`*.jsonl`).
 */
import { appendFileSync, closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';

export const PRUNED_FILES = 'pruned-files.txt';

export interface PrunedJob {
  file: string;
  files: Record<string, unknown>;
}

/** The first line of a journal (its header), read without reading the rest. */
function headerOf(path: string): PrunedJob | undefined {
  const buf = Buffer.alloc(64 * 1024);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const n = readSync(fd, buf, 0, buf.length, 0);
    const line = buf.subarray(0, n).toString('utf8').split('\n', 1)[0] ?? '';
    const h = JSON.parse(line) as Partial<PrunedJob>;
    if (typeof h.file !== 'string') return undefined;
    return { file: h.file, files: h.files !== null && typeof h.files === 'object' ? h.files : {} };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Notes the files of the record at `path` before it is removed; a failure to note never stops the pruning. */
export function rememberFilesOf(dir: string, path: string): void {
  const h = headerOf(path);
  if (h === undefined) return;
  try {
    appendFileSync(join(dir, PRUNED_FILES), `${JSON.stringify(h)}\n`, { mode: 0o600 });
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
