/**
 * A journal's lines, read back (src/bulk/journal.ts writes them): the job's header, each run's
 * start and end, every row's ending, what a plan noted of a row before and after sending it, and
 * the timeline. A line cut short by a crash, or one not of a journal, is skipped.
 */
import type { BucketRow } from './timeline.js';

/** How a row ended: a plan's own outcome (`created`, `updated`, `erased`…), or `failed`. */
export type RowStatus = string;

/** The files a job writes, by absolute path (read by `rm --purge-local` and `jobs show`). */
export interface JobFilesRecord {
  rejects?: string;
  changes?: string;
  receipts?: string;
}

/** What a job's first line says of it. */
export interface JobHeader {
  /** The job's id (hex): `jobs show <id>`, any unique prefix. */
  job: string;
  /** import, writeback, erasure, undo. */
  kind: string;
  /** The file's absolute path, or `-` for stdin. */
  file: string;
  size?: number;
  mtimeMs?: number;
  /** sha256 of the file's bytes: `jobs resume` refuses a file that changed. */
  sha256?: string;
  /** The options it ran with, as the command's own option names (never the key). */
  options: Record<string, unknown>;
  baseUrl?: string;
  /** A fingerprint of the key (sha256, shortened): which key, never the key. */
  key?: string;
  files: JobFilesRecord;
  /** A dry run's record (it wrote files; it sent nothing that changes data). */
  dryRun?: boolean;
  /** For an undo: the id of the import it undoes. */
  undoes?: string;
}

/** What one close of a run says: the job's counts so far, and the limit the limiter learnt. */
export interface RunEnd {
  at: string;
  /** Row endings of the whole job so far, by status (a dry run: its summary's counts). */
  tally: Record<string, number>;
  /** Running time of the whole job so far (every run), in ms. */
  activeMs: number;
  /** The limiter's pace at the end, requests per second. */
  limit?: number;
  interrupted?: boolean;
  /** Rows the run read and did not finish (interrupted): its summary's `unfinished`. */
  unfinished?: number;
}

/** One journal, read: what `--resume`, `jobs` and `import undo` need of it. */
export interface ParsedJournal {
  header: (JobHeader & { startedAt?: string }) | undefined;
  /** Each run's start, and its end when it closed. */
  runs: Array<{ startedAt: string; end?: RunEnd }>;
  /** Row → latest status. */
  rows: Map<number, RowStatus>;
  /** Row → what the plan knew before sending (the first one written). */
  intents: Map<number, Record<string, unknown>>;
  /** Row → what the answer said (the latest). */
  data: Map<number, Record<string, unknown>>;
  timeline: BucketRow[];
  done: boolean;
}

/** Reads a journal's lines; a line cut short by a crash, or one not of the journal, is skipped. */
export function parseJournal(text: string): ParsedJournal {
  const p: ParsedJournal = { header: undefined, runs: [], rows: new Map(), intents: new Map(), data: new Map(), timeline: [], done: false };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // a line cut short by a crash: that row simply is not finished
    }
    if (e === null || typeof e !== 'object') continue;
    if (typeof e.r === 'number' && Number.isInteger(e.r) && e.r > 0) {
      if (typeof e.s === 'string' && e.s !== '') p.rows.set(e.r, e.s);
      else if (isObject(e.i)) {
        if (!p.intents.has(e.r)) p.intents.set(e.r, e.i);
      } else if (isObject(e.d)) p.data.set(e.r, e.d);
      continue;
    }
    if (typeof e.startedAt === 'string') {
      p.header ??= e as unknown as JobHeader & { startedAt: string };
      p.runs.push({ startedAt: e.startedAt });
    }
    if (Array.isArray(e.tl)) for (const b of e.tl) if (Array.isArray(b)) p.timeline.push(b as BucketRow);
    if (isObject(e.end)) {
      const run = p.runs.at(-1);
      if (run) run.end = e.end as unknown as RunEnd;
    }
    if (e.done === true) p.done = true;
  }
  return p;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Running time of the runs read so far: each from its start to its end (or its last bucket). */
export function activeOf(p: ParsedJournal): number {
  const jobStart = Date.parse(p.runs[0]?.startedAt ?? '');
  let ms = 0;
  p.runs.forEach((run, i) => {
    const from = Date.parse(run.startedAt);
    const next = p.runs[i + 1] ? Date.parse(p.runs[i + 1]!.startedAt) : Infinity;
    let to = run.end ? Date.parse(run.end.at) : undefined;
    if (to === undefined) {
      // Killed: up to its last bucket.
      const last = p.timeline.map((b) => jobStart + ((b[0] ?? 0) + (b[1] ?? 0)) * 1000).filter((t) => t >= from && t <= next);
      to = last.length ? Math.max(...last) : from;
    }
    if (Number.isFinite(from) && Number.isFinite(to)) ms += Math.max(0, to - from);
  });
  return ms;
}

/** The counts of row endings, by status. */
export function tallyOf(rows: Map<number, RowStatus>): Record<string, number> {
  const t: Record<string, number> = {};
  for (const s of rows.values()) t[s] = (t[s] ?? 0) + 1;
  return t;
}
