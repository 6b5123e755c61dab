/**
 * A workbook's shared strings, kept on disk: an `.xlsx` stores every distinct text once, in a
 * table its cells point into, so a reader that holds that table in memory grows with the
 * workbook's distinct texts (one e-mail a row: ~50 MB per 100,000 rows). Here each string is
 * appended to a temporary file and only its place is kept — 12 bytes a string — and a cell's text
 * is read back from the file (the page cache keeps that cheap), with the most used ones cached.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Strings appended are written in blocks of about this many bytes. */
const BLOCK = 256 * 1024;
/** Texts read back and kept in memory (a city or a tag repeats on every row). */
const CACHE = 4096;
/**
 * The file is read back a window at a time, the last few windows kept: a sheet's rows point into
 * the table mostly in the order it was written (a new text is added where first used), so one read
 * serves a run of rows rather than each text costing a read of its own.
 */
const WINDOW = 64 * 1024;
const WINDOWS = 8;

export class DiskStrings {
  private readonly dir: string;
  private readonly fd: number;
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  private count = 0;
  private written = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private scratch = Buffer.alloc(4096);
  private readonly cache = new Map<number, string>();
  /** Windows of the file read back, by their start: the most recently used last. */
  private readonly windows = new Map<number, Buffer>();
  private closed = false;

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'callctl-strings-'));
    this.fd = openSync(join(this.dir, 'shared-strings'), 'w+', 0o600);
  }

  get size(): number {
    return this.count;
  }

  /** Bytes of text held, on disk or about to be: the temporary space it takes. */
  get bytes(): number {
    return this.written + this.pendingBytes;
  }

  add(text: string): void {
    if (this.count === this.offsets.length) {
      const offsets = new Float64Array(this.count * 2);
      offsets.set(this.offsets);
      this.offsets = offsets;
      const lengths = new Uint32Array(this.count * 2);
      lengths.set(this.lengths);
      this.lengths = lengths;
    }
    const bytes = Buffer.from(text, 'utf8');
    this.offsets[this.count] = this.written + this.pendingBytes;
    this.lengths[this.count] = bytes.length;
    this.count += 1;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= BLOCK) this.flush();
  }

  /** The text of string `index`; undefined when the table has no such string. */
  get(index: number): string | undefined {
    if (this.closed || !Number.isInteger(index) || index < 0 || index >= this.count) return undefined;
    const hit = this.cache.get(index);
    if (hit !== undefined) {
      // Most recently used last: the oldest is dropped first.
      this.cache.delete(index);
      this.cache.set(index, hit);
      return hit;
    }
    this.flush();
    const length = this.lengths[index] as number;
    const offset = this.offsets[index] as number;
    const start = offset - (offset % WINDOW);
    let text: string;
    if (offset + length <= start + WINDOW) {
      const window = this.window(start);
      text = window.toString('utf8', offset - start, Math.min(offset - start + length, window.length));
    } else {
      if (this.scratch.length < length) this.scratch = Buffer.alloc(Math.max(length, this.scratch.length * 2));
      text = this.scratch.toString('utf8', 0, this.readAt(this.scratch, length, offset));
    }
    this.cache.set(index, text);
    if (this.cache.size > CACHE) this.cache.delete(this.cache.keys().next().value as number);
    return text;
  }

  /** The window of the file at `start` (a multiple of WINDOW), read now unless kept. */
  private window(start: number): Buffer {
    const kept = this.windows.get(start);
    if (kept) {
      this.windows.delete(start);
      this.windows.set(start, kept);
      return kept;
    }
    const buf = Buffer.allocUnsafe(Math.min(WINDOW, this.written - start));
    const window = buf.subarray(0, this.readAt(buf, buf.length, start));
    this.windows.set(start, window);
    if (this.windows.size > WINDOWS) this.windows.delete(this.windows.keys().next().value as number);
    return window;
  }

  /** Reads `length` bytes at `position` into `into`; how many were read. */
  private readAt(into: Buffer, length: number, position: number): number {
    let got = 0;
    while (got < length) {
      const n = readSync(this.fd, into, got, length - got, position + got);
      if (n === 0) break;
      got += n;
    }
    return got;
  }

  private flush(): void {
    if (this.pendingBytes === 0) return;
    const block = Buffer.concat(this.pending, this.pendingBytes);
    let done = 0;
    while (done < block.length) done += writeSync(this.fd, block, done, block.length - done, this.written + done);
    this.written += block.length;
    this.pending = [];
    this.pendingBytes = 0;
  }

  /** Removes the file (once: a descriptor closed twice may be another file's by then). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
    this.windows.clear();
    try {
      closeSync(this.fd);
    } catch {
      // its file is removed below all the same
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
