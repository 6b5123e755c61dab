/**
 * The journal of a bulk job (an import, a writeback, erasure requests): one line per finished row, appended as each row finishes (a write()
 * per row, so a kill -9 loses nothing the OS has; fsync'd in batches against power loss). It is
 * keyed by the file's content hash and every option that changes what is sent, so `--resume`
 * only ever continues the same import. Rejected rows and duplicates are finished; failed ones are
 * not, and are sent again. The key is never written here: every line passes the logger's masking.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { RuntimeError } from '../errors.js';

/** How a row ended: a plan's own outcome (`created`, `updated`, `erased`…), or `failed`. */
export type RowStatus = string;

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
  startedAt: string | undefined;
}

const FSYNC_EVERY_MS = 200;
/** Finished journals are kept for the record: the 20 newest, none older than 30 days. */
const KEEP_FINISHED = 20;
const KEEP_FINISHED_MS = 30 * 24 * 60 * 60 * 1000;

/** Removes finished journals beyond what is kept (unfinished ones are never touched). */
export function pruneFinished(dir: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /\.done-\d+\.jsonl$/.test(n));
  } catch {
    return;
  }
  const dated = names.map((n) => ({ n, at: Number(/\.done-(\d+)\.jsonl$/.exec(n)?.[1]) })).sort((a, b) => b.at - a.at);
  dated.forEach(({ n, at }, i) => {
    if (i >= KEEP_FINISHED || now - at > KEEP_FINISHED_MS) rmSync(join(dir, n), { force: true });
  });
}

export class Journal {
  private fd: number | undefined;
  private dirty = false;
  private lastSync = 0;

  private constructor(
    readonly path: string,
    private readonly now: () => number = Date.now,
    private readonly redact: (text: string) => string = (t) => t,
  ) {}

  /** Reads an unfinished journal, if there is one (a finished one is not an earlier run to resume). */
  static earlier(dir: string, id: string): EarlierRun | undefined {
    const path = join(dir, `${id}.jsonl`);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
    const rows = new Map<number, RowStatus>();
    let startedAt: string | undefined;
    let done = false;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      let entry: { r?: number; s?: RowStatus; startedAt?: string; done?: boolean };
      try {
        entry = JSON.parse(line);
      } catch {
        continue; // a line cut short by a crash: that row simply is not finished
      }
      if (typeof entry.r === 'number' && entry.s) rows.set(entry.r, entry.s);
      if (entry.startedAt) startedAt = entry.startedAt;
      if (entry.done) done = true;
    }
    return done ? undefined : { rows, startedAt };
  }

  /** Every ending but `failed` is final: a failed row is sent again by --resume. */
  static isFinished(status: RowStatus | undefined): boolean {
    return status !== undefined && status !== 'failed';
  }

  /** Opens the journal: appended to when resuming, started afresh otherwise. */
  static open(dir: string, id: string, resume: boolean, header: Record<string, unknown>, now: () => number, redact?: (text: string) => string): Journal {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      pruneFinished(dir, now());
      const j = new Journal(join(dir, `${id}.jsonl`), now, redact);
      if (!resume) rmSync(j.path, { force: true });
      j.fd = openSync(j.path, 'a', 0o600);
      j.append({ ...header, startedAt: new Date(now()).toISOString(), resume });
      return j;
    } catch (err) {
      throw new RuntimeError('journal_unwritable', `cannot write the journal in ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'set CALLCTL_CONFIG_DIR to a writable folder');
    }
  }

  record(row: number, status: RowStatus): void {
    this.append({ r: row, s: status });
  }

  private append(entry: object): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${this.redact(JSON.stringify(entry))}\n`);
    this.dirty = true;
    const now = performance.now();
    if (now - this.lastSync >= FSYNC_EVERY_MS) this.sync(now);
  }

  private sync(now = performance.now()): void {
    if (this.fd !== undefined && this.dirty) fsyncSync(this.fd);
    this.dirty = false;
    this.lastSync = now;
  }

  /** Flushes to disk; `finished` marks the import complete, so the next run starts afresh. */
  close(finished: boolean): void {
    if (this.fd === undefined) return;
    if (finished) this.append({ done: true });
    this.sync();
    closeSync(this.fd);
    this.fd = undefined;
    if (finished) {
      // Kept for the record under a name that is never resumed.
      renameSync(this.path, this.path.replace(/\.jsonl$/, `.done-${this.now()}.jsonl`));
    }
  }
}
