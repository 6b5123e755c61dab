/**
 * The rows of a CSV file, stdin or a pipe, streamed: bytes are decoded (the --encoding given, else
 * a UTF-16/UTF-8 BOM, else UTF-8 when the whole file is valid UTF-8, else Windows-1252 — see
 * encoding.ts; Windows-1252 and UTF-16BE through TextDecoder, which csv-parse cannot do), the
 * delimiter is sniffed on the header line (csv-parse's own detection breaks on non-ASCII), and
 * csv-parse yields arrays of cells with their line numbers. A CRLF, an LF and a bare CR each end a
 * line, mixed in one file as a spreadsheet reads them. A row longer than 1 MB is refused without
 * being held (long-records.ts). A malformed file stops with the line it broke on.
 *
 * Stdin, a FIFO and process substitution (`<(…)`) are streams: read once, front to back, never
 * seeked — the encoding is decided on the first chunk, a workbook is told by its first bytes and
 * refused (a workbook needs a file), and no journal is kept (bulk/job.ts).
 */
import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { RuntimeError, UsageError } from '../errors.js';
import { unguardCell } from '../output/csv-guard.js';
import { cheaperRecordInfo, lineEnds, openedOn, recordsOf } from './csv-records.js';
import { Decode, detectFileEncoding, type EncodingName, guessedNote } from './encoding.js';
import { CUT_MARK, MAX_RECORD, RecordWatch } from './long-records.js';
import { cfbOnStream, fileKind, isCfb } from './file-kind.js';
import { openWorkbook } from './workbook.js';
import type { InStream } from '../deps.js';

export { recordsOf } from './csv-records.js';
export type { EncodingName } from './encoding.js';

export interface Row {
  cells: string[];
  /** Line of the file where the row starts (1-based); in a workbook, the row's number in its sheet. */
  line: number;
  /** A workbook's row: the sheet it is on (its line is named `Sheet!12`, lineName). */
  sheet?: string;
  /** Why the row was refused before any check (longer than 1 MB: its cells were not kept). */
  refused?: string;
}

export interface Source {
  header: string[];
  /** The line the header row ends on (1-based; blank lines before it are not it): a CSV's. */
  headerLine?: number;
  delimiter: string;
  encoding: EncodingName;
  rows: AsyncGenerator<Row>;
  /** Bytes read so far and the file's size (undefined for a stream): for the ETA. */
  bytesRead(): number;
  size: number | undefined;
  /** Stops reading (an import that stops early must not keep the file open). */
  close(): void;
  /** Lines for the operator about how the file was read (an encoding that was guessed). */
  notes: string[];
  /**
   * A workbook read with `--sheet all`: the index of the column that names each row's sheet (the
   * last; the columns before it are every read sheet's, by name). Not a column of the data.
   */
  sheetColumn?: number;
}

/**
 * A row's line as callctl names it in every message and file: a CSV's line number (`12`), a
 * workbook's row with its sheet, as a spreadsheet writes a reference (`Leads!12`, `'March leads'!4`).
 */
export function lineName(row: { line: number; sheet?: string | undefined }): string {
  if (row.sheet === undefined) return String(row.line);
  const plain = /^[\p{L}_][\p{L}\p{N}_.]*$/u.test(row.sheet) && !/^[A-Za-z]{1,3}\d+$/.test(row.sheet);
  return `${plain ? row.sheet : `'${row.sheet.replace(/'/g, "''")}'`}!${row.line}`;
}

/** A line as a record keeps it: its number in a CSV, `Leads!12` (lineName) in a workbook. */
export function lineRef(row: { line: number; sheet?: string | undefined }): number | string {
  return row.sheet === undefined ? row.line : lineName(row);
}

/** The delimiter that splits the header line into the most fields, outside quotes. */
export function sniffDelimiter(headerLine: string): string {
  let best = ',';
  let bestCount = 0;
  for (const d of [',', ';', '\t', '|']) {
    let count = 0;
    let quoted = false;
    for (const ch of headerLine) {
      if (ch === '"') quoted = !quoted;
      else if (ch === d && !quoted) count += 1;
    }
    if (count > bestCount) (best = d), (bestCount = count);
  }
  return best;
}

export interface SourceOptions {
  path: string;
  stdin: InStream;
  cwdResolve: (p: string) => string;
  encoding?: EncodingName;
  delimiter?: string;
  /** For a workbook (`.xlsx`, `.ods`): the worksheet to read (default the first), or `all`. */
  sheet?: string;
  /** With `--sheet all`: whether a sheet's header maps, or why not. */
  accepts?: (header: string[]) => true | string;
}

function openBytes(o: SourceOptions): { stream: Readable; size: number | undefined; counter: { n: number }; streamed: boolean } {
  const counter = { n: 0 };
  if (o.path === '-') {
    const stream = o.stdin as unknown as Readable;
    stream.on('data', (c: Buffer) => (counter.n += c.length));
    return { stream, size: undefined, counter, streamed: true };
  }
  const file = o.cwdResolve(o.path);
  let size: number | undefined;
  try {
    const st = statSync(file);
    if (st.isDirectory()) throw new UsageError(`${o.path} is a folder, not a CSV file`);
    size = st.isFile() ? st.size : undefined;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `no such file: ${o.path}` : `cannot read ${o.path}: ${code ?? (err as Error).message}`);
  }
  // csv-parse turns each chunk into its records at once (~500 rows for 32 KiB): smaller chunks
  // keep fewer rows alive at a time, so fewer outlive V8's young generation (BENCHMARKS.md §3).
  // A FIFO or a pipe is read as it comes, never seeked (a position-less read).
  const stream = createReadStream(file, { highWaterMark: 32 * 1024 });
  stream.on('data', (c) => (counter.n += (c as Buffer).length));
  return { stream, size, counter, streamed: size === undefined };
}

/** Where the first line break (CR or LF) of `text` at or after `from` is, or -1. */
function lineBreakAt(text: string, from: number): number {
  const re = /[\r\n]/g;
  re.lastIndex = from;
  return re.exec(text)?.index ?? -1;
}

/**
 * Opens the source (a CSV, or a workbook told by its content: file-kind.ts, which also refuses the
 * formats not read) and reads its header row.
 */
export async function openSource(o: SourceOptions): Promise<Source> {
  const { stream, size, counter, streamed } = openBytes(o);
  const shown = o.path === '-' ? 'stdin' : o.path;
  if (!streamed) {
    let kind: ReturnType<typeof fileKind>;
    try {
      kind = fileKind(o.cwdResolve(o.path), shown);
    } catch (err) {
      stream.destroy();
      throw err;
    }
    if (kind.kind !== 'text') {
      stream.destroy();
      return openWorkbook({ path: o.cwdResolve(o.path), shown, kind, ...(o.sheet !== undefined ? { sheet: o.sheet } : {}), ...(o.accepts ? { accepts: o.accepts } : {}) });
    }
  }
  if (o.sheet !== undefined) {
    stream.destroy();
    throw new UsageError(`--sheet is for a workbook (.xlsx, .ods); ${shown} is not one`);
  }
  const notes: string[] = [];
  let encoding = o.encoding;
  if (encoding === undefined && !streamed) {
    let detected: ReturnType<typeof detectFileEncoding>;
    try {
      detected = detectFileEncoding(o.cwdResolve(o.path));
    } catch (err) {
      stream.destroy();
      throw new UsageError(`cannot read ${o.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if ('text' in detected && detected.text === 'windows-1252') {
      encoding = 'windows-1252';
      notes.push(guessedNote(shown));
    }
  }
  const decode = new Decode(encoding, streamed, () => notes.push(guessedNote(shown)));
  // A stream's first bytes, to name an old Office file read from it (a file is told by fileKind).
  let firstBytes: Buffer = Buffer.alloc(0);
  if (streamed) stream.once('data', (c: Buffer) => (firstBytes = Buffer.from(c.subarray(0, 8))));
  stream.on('error', (err: NodeJS.ErrnoException) => decode.destroy(new UsageError(`cannot read ${o.path}: ${err.code ?? err.message}`)));
  stream.pipe(decode);
  const close = () => {
    decode.destroy();
    if (o.path !== '-') stream.destroy();
    else stream.pause();
  };

  // Text up to the end of the header line, to sniff the delimiter; then all of it goes to
  // csv-parse. Blank lines before the header are skipped; a first line past 1 MB is no header.
  const iterator = decode[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  let prefix = '';
  let searched = 0;
  let firstLine: string | undefined;
  const binary = () => {
    close();
    if (streamed && isCfb(firstBytes)) return cfbOnStream(shown);
    const hint = `${streamed ? `an .xlsx workbook is read from a file, not ${o.path === '-' ? 'stdin' : 'a pipe'}; otherwise ` : ''}export the sheet as CSV, or give --encoding for UTF-16 text`;
    return new RuntimeError('binary_file', `${shown} looks binary, not a CSV file`, hint);
  };
  while (firstLine === undefined) {
    const lead = (/^[\r\n]*/.exec(prefix) as RegExpExecArray)[0].length;
    const end = lineBreakAt(prefix, Math.max(lead, searched));
    if (end !== -1) firstLine = prefix.slice(lead, end);
    else if (prefix.length - lead > MAX_RECORD) {
      if (prefix.includes('\u0000') || looksBinary(prefix, streamed)) throw binary();
      close();
      throw new RuntimeError('line_too_long', `${shown}: line ${lineEnds(prefix.slice(0, lead)) + 1} is longer than 1 MB: no header is that long`, 'a CSV file has a row a line: is this the file meant, and are its line ends there?');
    } else {
      searched = prefix.length;
      const next = await iterator.next().catch((err: unknown) => {
        throw err instanceof RuntimeError ? err : new RuntimeError('read_failed', (err as Error).message);
      });
      if (next.done) firstLine = prefix.slice(lead);
      else prefix += String(next.value);
    }
  }
  if (firstLine.includes('\u0000') || looksBinary(prefix, streamed)) throw binary();
  const delimiter = o.delimiter ?? sniffDelimiter(firstLine);
  const watch = new RecordWatch(delimiter);
  const text = Readable.from(
    (async function* () {
      const head = watch.push(prefix);
      if (head !== '') yield head;
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        const chunk = watch.push(String(next.value));
        if (chunk !== '') yield chunk;
      }
      const tail = watch.end();
      if (tail !== '') yield tail;
    })(),
    { objectMode: false },
  );
  // csv-parse's own limit (in bytes) only backs up the watch, which cuts at 1 MB of characters.
  const parser = text.pipe(parse({ delimiter, record_delimiter: ['\r\n', '\n', '\r'], max_record_size: 4 * MAX_RECORD + 64, relax_column_count: true, skip_empty_lines: true, info: true, columns: false, trim: false, bom: true }));
  text.on('error', (err) => parser.destroy(err));
  cheaperRecordInfo(parser);
  const records = recordsOf<{ record: string[]; info: { lines: number; bytes: number; empty_lines: number } }>(parser);

  const parseError = (err: unknown): never => {
    if (err instanceof RuntimeError || err instanceof UsageError) throw err;
    const e = err as { message?: string; lines?: number; code?: string };
    let at = e.lines;
    // csv-parse names the line where the file ended; the quote was opened as many lines earlier
    // as the unfinished cell holds line ends.
    if (e.code === 'CSV_QUOTE_NOT_CLOSED') at = openedOn(parser, decode.lineCount) ?? at;
    const line = at !== undefined ? `line ${at}: ` : '';
    // csv-parse's own messages may quote a whole cell: never more than a line of it is shown.
    const what = PARSE_ERRORS[e.code ?? ''] ?? cut(e.message ?? String(err));
    throw new RuntimeError('malformed_csv', `${shown}: ${line}${what}`, 'fix the file there, then run again with --resume');
  };

  const first = await records.next().catch(parseError);
  if (first.done) throw new UsageError(`${shown} is empty: no header row`, 'the first row must name the columns');
  if (first.value.record.some((h) => h.includes(CUT_MARK))) {
    close();
    throw new RuntimeError('line_too_long', `${shown}: the header row is longer than 1 MB`, 'a CSV file has a row a line: is this the file meant, and are its quotes closed?');
  }
  const header = first.value.record.map((h) => unguardCell(h.trim()));
  // How far the rows handed out reach into the file, in the file's bytes (near enough: csv-parse
  // counts the UTF-8 bytes of the decoded text, doubled for UTF-16): the bytes read from disk run
  // ahead — the encoding check reads a whole file first — and would make the progress's estimate
  // of the total rows say the file was done at its first row.
  const bytesOf = (utf8Bytes: number) => (decode.encoding === 'utf16le' || decode.encoding === 'utf16be' ? utf8Bytes * 2 : utf8Bytes);
  let consumed = bytesOf(first.value.info.bytes);

  /** CRLFs inside quoted cells so far, each of which csv-parse counted as two lines. */
  let crlfCounted = 0;
  /** Cut records met so far (the watch runs ahead of the parser). */
  let cutsMet = 0;
  async function* rows(): AsyncGenerator<Row> {
    for (;;) {
      const next = await records.next().catch(parseError);
      if (next.done) {
        consumed = Math.max(consumed, counter.n);
        return;
      }
      const { record: cells, info } = next.value;
      consumed = bytesOf(info.bytes);
      // The line a row starts on: info.lines is where the record ends, less the line ends inside
      // its quoted cells — csv-parse counts each CR and each LF there, so a CRLF twice, in this
      // record and every one after it: those are taken off too. (Blank lines before a row are not
      // in it.)
      let inner = 0;
      let crlf = 0;
      for (const c of cells) {
        if (c.indexOf('\n') === -1 && c.indexOf('\r') === -1) continue;
        for (let i = 0; i < c.length; i++) {
          const ch = c.charCodeAt(i);
          if (ch === 10) inner += 1;
          else if (ch === 13) {
            inner += 1;
            if (c.charCodeAt(i + 1) === 10) crlf += 1;
          }
        }
      }
      const line = info.lines - inner - crlfCounted;
      crlfCounted += crlf;
      if (watch.cuts > cutsMet && cells.some((c) => c.includes(CUT_MARK))) {
        cutsMet += 1;
        yield { cells: [], line, refused: 'the row is longer than 1 MB: not read (a broken export, or a quote never closed?)' };
        continue;
      }
      // Blank lines, and lines of only spaces or only delimiters (Excel leaves those), are no rows.
      if (cells.every((c) => c.trim() === '')) continue;
      // The formula guard of a CSV callctl wrote (output/csv-guard.ts) comes off: the value itself.
      for (let i = 0; i < cells.length; i++) if ((cells[i] as string).charCodeAt(0) === 39) cells[i] = unguardCell(cells[i] as string);
      yield { cells, line };
    }
  }

  const closeAll = () => {
    parser.destroy();
    text.destroy();
    close();
  };
  return { header, headerLine: first.value.info.lines, delimiter, encoding: decode.encoding, rows: rows(), bytesRead: () => Math.min(consumed, counter.n), size, close: closeAll, notes };
}

/** What a parse error says, in the operator's words. */
const PARSE_ERRORS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quote is never closed',
  CSV_INVALID_CLOSING_QUOTE: 'a quote closes in the middle of a cell',
  INVALID_OPENING_QUOTE: 'a quote opens in the middle of a cell',
  CSV_MAX_RECORD_SIZE: 'a row longer than 1 MB',
};

function cut(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * No text file holds a NUL byte; a binary one (an image, an archive) has one in its first bytes,
 * though not always before its first line end (a PNG's signature has one at byte 6). A workbook
 * on a stream is told by its ZIP signature.
 */
function looksBinary(text: string, streamed: boolean): boolean {
  return text.slice(0, 1024).includes('\u0000') || (streamed && text.startsWith('PK\u0003\u0004'));
}
