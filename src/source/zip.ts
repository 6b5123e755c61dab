/**
 * The members of a ZIP (an `.xlsx`, an `.ods`), read from a file without an archive library: its
 * central directory lists them, and each one is read where it starts, inflated as a stream. Every
 * member is bounded before and while it is inflated (docs/files.md, "Bombs"): its declared size may
 * not pass `INFLATE_RATIO` times its compressed size, and what it inflates to may not pass what it
 * declared — a member that would is refused before a byte of it is held, with one line.
 */
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { createInflateRaw, inflateRawSync } from 'node:zlib';
import { RuntimeError } from '../errors.js';

/**
 * The most a member may inflate to, as a multiple of its compressed size. XML compresses 10 to 30
 * times (a sheet of empty styled cells, ~60); deflate cannot pass ~1,030; a zip bomb is near that.
 */
const INFLATE_RATIO = 150;
/** Below this many bytes inflated, a member's ratio is not checked (a tiny part compresses well). */
const RATIO_GRACE = 1024 * 1024;

/** A ZIP local file header: every `.xlsx` and `.ods` starts with it, whatever the file is called. */
export function isZip(head: Uint8Array): boolean {
  return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

/** The first bytes of a file (fewer if it is shorter). */
export function headOf(file: string, n = 8): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    return buf.subarray(0, readSync(fd, buf, 0, n, 0));
  } finally {
    closeSync(fd);
  }
}

/** A member of a ZIP as its central directory lists it. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  compressed: number;
  /** The size it says it inflates to. */
  size: number;
  /** Bit 0 of its flags: encrypted (a ZIP password, not Office's). */
  encrypted: boolean;
  /** Where its local header starts. */
  local: number;
}

/** The members of a ZIP, from its central directory (no member is read); empty for no ZIP. */
export function zipEntries(file: string): ZipEntry[] {
  const out: ZipEntry[] = [];
  const fd = openSync(file, 'r');
  try {
    const size = statSync(file).size;
    const tailLength = Math.min(size, 65_536 + 22);
    const tail = Buffer.alloc(tailLength);
    readSync(fd, tail, 0, tailLength, size - tailLength);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd === -1 || eocd + 22 > tail.length) return out;
    const entries = tail.readUInt16LE(eocd + 10);
    const dirSize = tail.readUInt32LE(eocd + 12);
    const dirOffset = tail.readUInt32LE(eocd + 16);
    // A directory larger than the file is a broken one: nothing is allocated for it.
    if (dirOffset + dirSize > size) return out;
    const dir = Buffer.alloc(dirSize);
    readSync(fd, dir, 0, dirSize, dirOffset);
    let p = 0;
    for (let i = 0; i < entries && p + 46 <= dir.length && dir.readUInt32LE(p) === 0x02014b50; i++) {
      const nameLength = dir.readUInt16LE(p + 28);
      out.push({
        name: dir.toString('utf8', p + 46, p + 46 + nameLength),
        method: dir.readUInt16LE(p + 10),
        compressed: dir.readUInt32LE(p + 20),
        size: dir.readUInt32LE(p + 24),
        encrypted: (dir.readUInt16LE(p + 8) & 1) === 1,
        local: dir.readUInt32LE(p + 42),
      });
      p += 46 + nameLength + dir.readUInt16LE(p + 30) + dir.readUInt16LE(p + 32);
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

/** Where a member's bytes start: after its local header, whose name and extra field may differ from the directory's. */
function dataAt(file: string, entry: ZipEntry): number {
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(30);
    readSync(fd, header, 0, 30, entry.local);
    return entry.local + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  } finally {
    closeSync(fd);
  }
}

const mb = (n: number) => (n >= 1024 * 1024 * 1024 ? `${(n / 1024 ** 3).toFixed(1)} GB` : `${(n / 1024 ** 2).toFixed(1)} MB`);

/** A member callctl will not inflate: one line naming it, and what to do. */
function bombError(shown: string, entry: ZipEntry, why: string): RuntimeError {
  return new RuntimeError('workbook_bomb', `${shown}: ${entry.name} ${why} — a zip bomb, or a broken file: not read`, 'open it in the program that made it and save it again, or export the sheet as CSV');
}

/**
 * What a member may inflate to: the size it declares, refused at once when that is more than
 * `INFLATE_RATIO` times its compressed size (past the grace) or a member over 4 GB (ZIP64), or
 * encrypted, or in a method other than stored or deflated.
 */
function allowance(shown: string, entry: ZipEntry): number {
  if (entry.compressed === 0xffffffff || entry.size === 0xffffffff) throw bombError(shown, entry, 'is over 4 GB');
  if (entry.encrypted) throw new RuntimeError('workbook_encrypted', `${shown}: ${entry.name} is encrypted in the ZIP`, 'save it again without a password, or export the sheet as CSV');
  if (entry.method !== 0 && entry.method !== 8) throw new RuntimeError('malformed_workbook', `${shown}: ${entry.name} is compressed in a way callctl does not read (method ${entry.method})`, 'save it again, or export the sheet as CSV');
  if (entry.size > RATIO_GRACE && entry.size > INFLATE_RATIO * Math.max(entry.compressed, 1)) {
    throw bombError(shown, entry, `would inflate to ${mb(entry.size)} from ${mb(entry.compressed)} (over ${INFLATE_RATIO} times)`);
  }
  return entry.method === 0 ? entry.compressed : entry.size;
}

/**
 * A member's text, streamed in chunks: inflated as it is read, and stopped with `bombError` the
 * moment it passes its declared size (an archive may lie about it). `onRead` is told of the
 * compressed bytes read (a reading's progress).
 */
export function memberText(file: string, entry: ZipEntry, shown = file, onRead?: (bytes: number) => void): Readable {
  const limit = allowance(shown, entry);
  const at = dataAt(file, entry);
  const bytes = createReadStream(file, { start: at, end: at + Math.max(entry.compressed, 1) - 1, highWaterMark: 64 * 1024 });
  if (onRead) bytes.on('data', (c) => onRead((c as Buffer).length));
  let seen = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > limit) return done(bombError(shown, entry, `inflates past the ${mb(limit)} its archive declares`));
      done(null, chunk);
    },
  });
  const inflated = entry.method === 8 ? bytes.pipe(createInflateRaw({ chunkSize: 64 * 1024 })) : bytes;
  inflated.on('error', (e: Error) => count.destroy(new RuntimeError('malformed_workbook', `${shown}: ${entry.name} cannot be inflated (${e.message})`, 'save it again, or export the sheet as CSV')));
  if (inflated !== bytes) bytes.on('error', (e) => count.destroy(e));
  const out = inflated.pipe(count);
  // A reader that stops early (a sheet's header found) destroys the text: the file and the
  // inflater behind it go with it, not left open until the process ends.
  out.on('close', () => {
    bytes.destroy();
    if (inflated !== bytes) inflated.destroy();
  });
  out.setEncoding('utf8');
  return out;
}

/** A small member read whole (a workbook's sheet list, its styles), up to `max` bytes inflated. */
export function memberWhole(file: string, entry: ZipEntry, max: number, shown = file): string {
  const limit = allowance(shown, entry);
  if (limit > max) throw bombError(shown, entry, `would inflate to ${mb(limit)}, more than such a part ever holds (${mb(max)})`);
  const data = Buffer.alloc(entry.compressed);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, data, 0, entry.compressed, dataAt(file, entry));
  } finally {
    closeSync(fd);
  }
  try {
    return (entry.method === 8 ? inflateRawSync(data, { maxOutputLength: limit + 1 }) : data).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw bombError(shown, entry, `inflates past the ${mb(limit)} its archive declares`);
    throw new RuntimeError('malformed_workbook', `${shown}: ${entry.name} cannot be inflated (${(e as Error).message})`, 'save it again, or export the sheet as CSV');
  }
}
