/**
 * Erasure receipts: one JSON line per contact erased and one per request that found nothing,
 * appended (never rewritten) and fsync'd as each is written — the proof an erasure request was
 * honoured. A receipt holds the request's line number, the contact id and the time: never a
 * phone, name or e-mail, for a receipt must not keep the personal data it proves gone. The request
 * file, which the operator keeps apart, is the link from a line to a person. Every form of
 * erasure leaves them: a file's go beside it, a request typed on the command line (or read from
 * stdin) into the config folder's `erasures/<date>.jsonl` (the UTC date, as the times are).
 * A file of the operator's own that `--purge-local` cleaned gets a line too: its path, how many
 * rows went, and when.
 *
 * Every erasure run is one request with an id of its own (`requestId`, on every line it writes and
 * printed when it runs), so that of a day's typed requests — all "line 1" — each receipt answers
 * exactly one: the id of the erasure job (10 hex characters, random: no personal data, no time),
 * which --resume keeps, so a request file's receipts carry one id however often it is resumed.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { newJobId } from '../bulk/job.js';
import { RuntimeError } from '../errors.js';
import type { Redact } from '../output/files.js';

export type Receipt =
  | { request: number | string; id: string; erased: true; at: string }
  | { request: number | string; found: 0; at: string }
  | { cleaned: string; rows: number; at: string };

/** The id of an erasure request that runs as no job (`contacts rm <id>`): of the form of a job's. */
export const newRequestId = newJobId;

/**
 * Where the receipts go: `--receipts`, else beside the request file, else (a typed request, stdin,
 * or a pipe, whose folder is rarely writable) the config folder's `erasures/`.
 */
export function receiptsPathOf(o: { receipts: string | undefined; from: string | undefined; stream: boolean; cwd: string; configPath: string; now: number }): string {
  if (o.receipts !== undefined) return resolve(o.cwd, o.receipts);
  if (o.from !== undefined && !o.stream) return resolve(o.cwd, `${o.from}.erasures.jsonl`);
  return join(dirname(o.configPath), 'erasures', `${new Date(o.now).toISOString().slice(0, 10)}.jsonl`);
}

export class ReceiptsFile {
  private fd: number | undefined;
  /** Whether open() created the file. */
  private created = false;
  written = 0;

  /**
   * `makeFolder`: for the config folder's `erasures/`, created on the first receipt. `redact`: the
   * logger's masking, which every file callctl writes passes (output/files.ts).
   */
  /** The request this run answers, on every line it writes: set before the first (a resumed job's is known once its journal is read). */
  requestId: string | undefined;

  constructor(
    readonly path: string,
    private readonly makeFolder = false,
    private readonly redact: Redact = (t) => t,
  ) {}

  /** Opens the file for appending: called before the first DELETE, so an unwritable place stops the erasure before it starts. */
  open(): void {
    if (this.fd !== undefined) return;
    try {
      if (this.makeFolder) mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      this.created = !existsSync(this.path);
      this.fd = openSync(this.path, 'a', 0o600);
    } catch (err) {
      throw new RuntimeError('receipts_unwritable', `cannot write the receipts file ${this.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'choose another place with --receipts; nothing was erased');
    }
  }

  add(receipt: Receipt): void {
    if (this.requestId === undefined) throw new Error('a receipt written before its request had an id');
    this.open();
    writeSync(this.fd as number, `${this.redact(JSON.stringify({ requestId: this.requestId, ...receipt }))}\n`);
    fsyncSync(this.fd as number);
    this.written += 1;
  }

  /**
   * The erasures this request already has receipts for, as `<request> <id>`: a resumed run writes
   * none twice. A line of another request is another's; one with no id was written before ids were.
   */
  erasedBefore(): Set<string> {
    const out = new Set<string>();
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return out;
    }
    for (const line of text.split('\n')) {
      try {
        const r = JSON.parse(line) as Partial<Record<string, unknown>>;
        if (r.erased === true && (typeof r.request === 'number' || typeof r.request === 'string') && typeof r.id === 'string' && (r.requestId === undefined || r.requestId === this.requestId)) out.add(`${r.request} ${r.id}`);
      } catch {
        // a line cut short by a crash, or a blank one
      }
    }
    return out;
  }

  /** Closes it; a file this run created and wrote nothing to (the erasure was refused) is removed. */
  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    if (this.created && this.written === 0) rmSync(this.path, { force: true });
  }
}
