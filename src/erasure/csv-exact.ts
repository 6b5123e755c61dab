/**
 * A CSV file callctl wrote (a rejects or changes file), read so that rows can be taken out of it
 * and every other byte left as it was: each record's cells for matching, and the byte range it
 * occupies in the file. The file is read in its own encoding — a BOM (UTF-8, UTF-16), else UTF-8
 * when valid, else Windows-1252, as every bulk job reads (src/source/encoding.ts) — and its delimiter
 * is sniffed on the header line as the import does. Rewriting copies the kept byte ranges as they
 * are (never re-encodes), into a temporary file beside it, fsync'd, then renamed over it.
 *
 * csv-parse counts each record's end in the bytes of the text it parsed; for an encoding other than
 * UTF-8 the text is handed over as UTF-8 and each end is mapped back to the file's bytes.
 */
import { closeSync, fsyncSync, openSync, readFileSync, realpathSync, renameSync, rmSync, type Stats, statSync, writeSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { basename, dirname, join } from 'node:path';
import { TextDecoder } from 'node:util';
import { parse } from 'csv-parse/sync';
import { bomOf } from '../source/encoding.js';
import { sniffDelimiter } from '../source/open.js';

export type FileEncoding = 'utf8' | 'utf16le' | 'utf16be' | 'windows-1252';

export interface CsvRecord {
  cells: string[];
  /** Byte range in the file, BOM included in the offsets. */
  start: number;
  end: number;
}

export interface ExactCsv {
  path: string;
  bytes: Buffer;
  /** The file as it was read: a file changed since (a job appending to it) is not rewritten. */
  stat: Stats;
  encoding: FileEncoding;
  delimiter: string;
  /** The first record is the header. */
  records: CsvRecord[];
}

const BOM_LENGTH: Record<string, number> = { utf8: 3, utf16le: 2, utf16be: 2 };

/** Reads a CSV file exactly; a reason when it cannot be read so (then it is never rewritten). */
export function readExactCsv(path: string): ExactCsv | { path: string; unreadable: string } {
  let bytes: Buffer;
  let stat: Stats;
  try {
    stat = statSync(path);
    bytes = readFileSync(path);
  } catch (err) {
    return { path, unreadable: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  }
  const bom = bomOf(bytes);
  const skip = bom ? (BOM_LENGTH[bom] as number) : 0;
  const body = bytes.subarray(skip);
  const encoding: FileEncoding = bom ?? (isUtf8(body) ? 'utf8' : 'windows-1252');
  let text: string;
  try {
    // Windows-1252 is read byte for byte as Latin-1 for the structure: one byte, one character.
    text = encoding === 'windows-1252' ? body.toString('latin1') : new TextDecoder(encoding === 'utf8' ? 'utf-8' : encoding === 'utf16le' ? 'utf-16le' : 'utf-16be', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return { path, unreadable: `bytes that are not valid ${encoding}` };
  }
  const delimiter = sniffDelimiter(text.replace(/^[\r\n]+/, '').split(/\r?\n|\r/, 1)[0] ?? '');
  const utf8 = encoding === 'utf8' ? body : Buffer.from(text, 'utf8');
  let parsed: Array<{ record: string[]; info: { bytes: number } }>;
  try {
    parsed = parse(utf8, { delimiter, info: true, relax_column_count: true, skip_empty_lines: false, record_delimiter: ['\r\n', '\n', '\r'] }) as unknown as typeof parsed;
  } catch (err) {
    return { path, unreadable: (err as Error).message.split('\n')[0] ?? 'not a CSV file' };
  }
  const perUnit = encoding === 'utf16le' || encoding === 'utf16be' ? 2 : 1;
  const cp1252 = encoding === 'windows-1252' ? new TextDecoder('windows-1252') : undefined;
  const records: CsvRecord[] = [];
  let at = 0; // in the UTF-8 text
  let units = 0; // UTF-16 code units (or Latin-1 characters) of the text so far
  for (const { record, info } of parsed) {
    const start = encoding === 'utf8' ? at : units * perUnit;
    if (encoding !== 'utf8') units += utf8.subarray(at, info.bytes).toString('utf8').length;
    at = info.bytes;
    const end = encoding === 'utf8' ? at : units * perUnit;
    const cells = cp1252 ? record.map((c) => cp1252.decode(Buffer.from(c, 'latin1'))) : record;
    records.push({ cells, start: start + skip, end: end + skip });
  }
  const last = records.at(-1)?.end ?? skip;
  if (last !== bytes.length) return { path, unreadable: 'its rows could not be told apart exactly' };
  return { path, bytes, stat, encoding, delimiter, records };
}

/**
 * Rewrites the file without the records at `drop` (never the header): temp file, fsync, rename —
 * over the file a symlink points to (replacing the link would leave the rows in its target), and
 * only if the file has not changed since it was read (else its new rows would be lost).
 */
export function rewriteWithout(file: ExactCsv, drop: ReadonlySet<number>): void {
  const target = realpathSync(file.path);
  const keep: Buffer[] = [file.bytes.subarray(0, file.records[0]?.start ?? 0)];
  file.records.forEach((r, i) => {
    if (i === 0 || !drop.has(i)) keep.push(file.bytes.subarray(r.start, r.end));
  });
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  const mode = file.stat.mode & 0o777;
  const fd = openSync(temp, 'w', mode);
  try {
    for (const part of keep) writeSync(fd, part);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  const now = statSync(target);
  if (now.ino !== file.stat.ino || now.size !== file.stat.size || now.mtimeMs !== file.stat.mtimeMs) {
    rmSync(temp, { force: true });
    throw new Error('it changed while being read (a job writing to it?)');
  }
  renameSync(temp, target);
}
