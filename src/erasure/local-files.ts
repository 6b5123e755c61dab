/**
 * The files callctl wrote that may hold a person: the rejects and changes (preview) files of every
 * job its journals know. Each journal's first line names the job's file (`file`: its rejects and
 * changes files are `<file>.rejects.csv` and `<file>.changes.csv` beside it) and, when recorded,
 * the files of rows it wrote (`files: {rejects?, changes?, preview?}`). Receipts are left out:
 * they hold no personal data by design, and they are the proof of what was erased. Finished journals are kept
 * for a month (src/bulk/journal.ts), so that is how far back this reaches.
 *
 * This is the one place that reads journal headers for erasure: when the jobs reader lands, it
 * points here.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { lockHolder } from '../jobs/lock.js';

/** The files of a job that may hold people: CSV files of rows (not receipts, not pages). */
const KINDS = new Set(['rejects', 'changes', 'preview']);

/** Enough of a journal to hold its first line. */
const HEADER_BYTES = 64 * 1024;

function firstLine(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(HEADER_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString('utf8');
    const end = text.indexOf('\n');
    return end < 0 ? text : text.slice(0, end);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const isFile = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/**
 * A file a job wrote, and whether a job that writes it is running (a live process holds the lock
 * beside its journal, src/jobs/lock.ts). A running job keeps writing to its file and renames it
 * into place at its end: rewritten under it, every row it writes afterwards would be lost. So such
 * a file is searched but never rewritten. A job stopped before its end (Ctrl-C, kill -9) holds no
 * lock: its files can be cleaned, and its --resume appends to what is left.
 */
export interface OwnFile {
  path: string;
  running: boolean;
}

const DONE = /\.done-\d+\.jsonl$/;

/** Every existing file the journals in `journalsDir` say a job wrote (absolute paths, sorted). */
export function filesJobsWrote(journalsDir: string): OwnFile[] {
  let names: string[];
  try {
    names = readdirSync(journalsDir).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const running = new Map<string, boolean>();
  const found = (path: string, busy: boolean) => running.set(path, (running.get(path) ?? false) || busy);
  for (const name of names) {
    const line = firstLine(join(journalsDir, name));
    let header: { file?: unknown; files?: unknown };
    try {
      header = JSON.parse(line ?? '');
    } catch {
      continue;
    }
    const busy = !DONE.test(name) && lockHolder(join(journalsDir, name.replace(/\.jsonl$/, '.lock'))) !== undefined;
    if (typeof header.file === 'string' && header.file !== '-' && isAbsolute(header.file)) {
      found(`${header.file}.rejects.csv`, busy);
      found(`${header.file}.changes.csv`, busy);
    }
    if (header.files && typeof header.files === 'object') {
      for (const [kind, value] of Object.entries(header.files as Record<string, unknown>)) {
        if (!KINDS.has(kind)) continue;
        for (const path of Array.isArray(value) ? value : [value]) if (typeof path === 'string' && isAbsolute(path)) found(path, busy);
      }
    }
  }
  // A run writes its file under `.partial` (output/files.ts) until its end; one that crashed leaves it there until it is resumed.
  return [...running]
    .flatMap(([path, busy]) => [{ path, running: busy }, { path: `${path}.partial`, running: busy }])
    .filter((f) => isFile(f.path))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
