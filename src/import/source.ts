/**
 * The rows of a CSV file (or stdin), streamed: bytes are decoded (the --encoding given, else a
 * UTF-16/UTF-8 BOM, else UTF-8 when the whole file is valid UTF-8, else Windows-1252 — see
 * encoding.ts; Windows-1252 and UTF-16BE through TextDecoder, which csv-parse cannot do),
 * the delimiter is sniffed on the header line (csv-parse's own detection breaks on non-ASCII),
 * and csv-parse yields arrays of cells with their line numbers. A malformed file stops with the
 * line it broke on.
 */
import { createReadStream, statSync } from 'node:fs';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { TextDecoder } from 'node:util';
import { parse } from 'csv-parse';
import { RuntimeError, UsageError } from '../errors.js';
import { detectFileEncoding, guessedNote, Utf8Check } from './encoding.js';
import { headOf, isZip, openWorkbook } from './xlsx.js';
import type { InStream } from '../deps.js';

export type EncodingName = 'utf8' | 'utf16le' | 'utf16be' | 'latin1' | 'windows-1252';

export interface Row {
  cells: string[];
  /** Line of the file where the row starts (1-based). */
  line: number;
}

export interface Source {
  header: string[];
  delimiter: string;
  encoding: EncodingName;
  rows: AsyncGenerator<Row>;
  /** Bytes read so far and the file's size (undefined for stdin): for the ETA. */
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

const DECODER_LABEL: Record<EncodingName, string> = { utf8: 'utf-8', utf16le: 'utf-16le', utf16be: 'utf-16be', latin1: 'windows-1252', 'windows-1252': 'windows-1252' };

/** Bytes → text, the BOM detected and dropped; undecodable bytes stop the stream with the line. */
class Decode extends Transform {
  private decoder: TextDecoder | undefined;
  private head: Buffer | undefined = Buffer.alloc(0);
  private lines = 1;
  encoding: EncodingName;
  /** Newlines decoded so far, plus one: the line the next text starts on. */
  get lineCount(): number {
    return this.lines;
  }

  /**
   * `guessFromHead`: with no encoding given and no way to read the input twice (stdin), the first
   * chunk decides between UTF-8 and Windows-1252; a file is checked whole before (encoding.ts).
   */
  constructor(
    private readonly given: EncodingName | undefined,
    private readonly guessFromHead = false,
    private readonly onGuess: (encoding: EncodingName) => void = () => undefined,
  ) {
    super({ readableObjectMode: false, decodeStrings: true });
    this.encoding = given ?? 'utf8';
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let data = chunk;
    if (this.head !== undefined) {
      // Wait for three bytes to tell a BOM.
      this.head = Buffer.concat([this.head, chunk]);
      if (this.head.length < 3) return done();
      data = this.head;
      this.head = undefined;
      let skip = 0;
      if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf && (this.given === undefined || this.given === 'utf8')) (this.encoding = 'utf8'), (skip = 3);
      else if (data[0] === 0xff && data[1] === 0xfe && (this.given === undefined || this.given === 'utf16le')) (this.encoding = 'utf16le'), (skip = 2);
      else if (data[0] === 0xfe && data[1] === 0xff && this.given === undefined) (this.encoding = 'utf16be'), (skip = 2);
      else if (this.given === undefined && this.guessFromHead && !new Utf8Check().push(data)) {
        this.encoding = 'windows-1252';
        this.onGuess(this.encoding);
      }
      this.decoder = new TextDecoder(DECODER_LABEL[this.encoding], { fatal: true });
      data = data.subarray(skip);
    }
    this.decode(data, true, done);
  }

  override _flush(done: TransformCallback): void {
    if (this.head !== undefined) {
      const rest = this.head;
      this.head = undefined;
      this.decoder = new TextDecoder(DECODER_LABEL[this.encoding], { fatal: true });
      if (rest[0] === 0xef && rest[1] === 0xbb && rest[2] === 0xbf) return this.decode(rest.subarray(3), false, done);
      return this.decode(rest, false, done);
    }
    this.decode(Buffer.alloc(0), false, done);
  }

  private decode(data: Buffer, stream: boolean, done: TransformCallback): void {
    let text: string;
    try {
      text = (this.decoder as TextDecoder).decode(data, { stream });
    } catch {
      return done(new RuntimeError('bad_encoding', `line ${this.lines}: bytes that are not valid ${this.encoding}`, 'give the file\'s encoding with --encoding (e.g. windows-1252 for Excel on Windows)'));
    }
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.lines += 1;
    done(null, text);
  }
}

/**
 * The parser's records in order, and its error only after every record before it: a stream's own
 * async iterator drops buffered records when the stream errors, which would lose the good rows
 * above a broken quote. A bounded queue keeps backpressure.
 */
export function recordsOf<T>(parser: Readable): AsyncIterator<T> {
  const queue: T[] = [];
  let head = 0;
  let error: unknown;
  let ended = false;
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  let salvaging = false;
  parser.on('data', (r: T) => {
    if (salvaging) return;
    queue.push(r);
    if (queue.length - head > 512) parser.pause();
    poke();
  });
  parser.on('error', (e) => {
    // A file that breaks at its end (a quote never closed) fails in the parser's flush, which runs
    // once the input has ended even while parsed records still wait in its buffer (paused, here):
    // the error destroys the stream and no 'data' comes for them. read() still hands them over.
    // (Under load, a dry run with phone workers lost 182 rows above the break this way.)
    salvaging = true;
    for (let r = parser.read() as T | null; r !== null; r = parser.read() as T | null) queue.push(r);
    salvaging = false;
    error = e;
    poke();
  });
  parser.on('end', () => {
    ended = true;
    poke();
  });
  return {
    async next(): Promise<IteratorResult<T>> {
      for (;;) {
        if (head < queue.length) {
          const value = queue[head++] as T;
          if (head > 1024) queue.splice(0, head), (head = 0);
          if (queue.length - head < 64 && parser.isPaused()) parser.resume();
          return { value, done: false };
        }
        if (error !== undefined) throw error;
        if (ended) return { value: undefined, done: true };
        if (parser.isPaused()) parser.resume();
        await new Promise<void>((r) => (wake = r));
      }
    },
  };
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
  /** For an `.xlsx` workbook: the worksheet to read (default the first), or `all`. */
  sheet?: string;
  /** With `--sheet all`: whether a sheet's header maps, or why not. */
  accepts?: (header: string[]) => true | string;
}

function openBytes(o: SourceOptions): { stream: Readable; size: number | undefined; counter: { n: number } } {
  const counter = { n: 0 };
  if (o.path === '-') {
    const stream = o.stdin as unknown as Readable;
    stream.on('data', (c: Buffer) => (counter.n += c.length));
    return { stream, size: undefined, counter };
  }
  const file = o.cwdResolve(o.path);
  let size: number;
  try {
    const st = statSync(file);
    if (st.isDirectory()) throw new UsageError(`${o.path} is a folder, not a CSV file`);
    size = st.size;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `no such file: ${o.path}` : `cannot read ${o.path}: ${code ?? (err as Error).message}`);
  }
  // csv-parse turns each chunk into its records at once (~500 rows for 32 KiB): smaller chunks
  // keep fewer rows alive at a time, so fewer outlive V8's young generation (BENCHMARKS.md §3).
  const stream = createReadStream(file, { highWaterMark: 32 * 1024 });
  stream.on('data', (c) => (counter.n += (c as Buffer).length));
  return { stream, size, counter };
}

/** Opens the source (a CSV, or an `.xlsx` workbook told by its content) and reads its header row. */
export async function openSource(o: SourceOptions): Promise<Source> {
  const { stream, size, counter } = openBytes(o);
  if (o.path !== '-' && isZip(headOf(o.cwdResolve(o.path)))) {
    stream.destroy();
    return openWorkbook({ path: o.cwdResolve(o.path), ...(o.sheet !== undefined ? { sheet: o.sheet } : {}), ...(o.accepts ? { accepts: o.accepts } : {}) });
  }
  if (o.sheet !== undefined) throw new UsageError(`--sheet is for an Excel workbook (.xlsx); ${o.path === '-' ? 'stdin' : o.path} is not one`);
  const notes: string[] = [];
  const shown = o.path === '-' ? 'stdin' : o.path;
  let encoding = o.encoding;
  if (encoding === undefined && o.path !== '-') {
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
  const decode = new Decode(encoding, o.path === '-', () => notes.push(guessedNote(shown)));
  stream.on('error', (err: NodeJS.ErrnoException) => decode.destroy(new UsageError(`cannot read ${o.path}: ${err.code ?? err.message}`)));
  stream.pipe(decode);

  // Read text up to the end of the header line to sniff the delimiter, then hand all of it to csv-parse.
  const iterator = decode[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  let prefix = '';
  for (;;) {
    if (prefix.replace(/^[\r\n]+/, '').includes('\n')) break;
    const next = await iterator.next().catch((err: unknown) => {
      throw err instanceof RuntimeError ? err : new RuntimeError('read_failed', (err as Error).message);
    });
    if (next.done) break;
    prefix += String(next.value);
  }
  const firstLine = prefix.replace(/^[\r\n]+/, '').split(/\r?\n/, 1)[0] ?? '';
  // No text file holds a NUL byte; a binary one (an image, an archive) has one in its first bytes,
  // though not always before its first newline byte (a PNG's signature has one at byte 6).
  if (firstLine.includes('\u0000') || prefix.slice(0, 1024).includes('\u0000') || (o.path === '-' && prefix.startsWith('PK\u0003\u0004'))) {
    const stdin = o.path === '-';
    const hint = `${stdin ? 'an .xlsx workbook is read from a file, not stdin; otherwise ' : ''}export the sheet as CSV, or give --encoding for UTF-16 text`;
    throw new RuntimeError('binary_file', `${stdin ? 'stdin' : o.path} looks binary, not a CSV file`, hint);
  }
  const delimiter = o.delimiter ?? sniffDelimiter(firstLine);
  const text = Readable.from(
    (async function* () {
      yield prefix;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield String(next.value);
      }
    })(),
    { objectMode: false },
  );
  const parser = text.pipe(parse({ delimiter, relax_column_count: true, skip_empty_lines: true, info: true, columns: false, trim: false, bom: true }));
  text.on('error', (err) => parser.destroy(err));
  cheaperRecordInfo(parser);
  const records = recordsOf<{ record: string[]; info: { lines: number; bytes: number; empty_lines: number } }>(parser);

  const parseError = (err: unknown): never => {
    if (err instanceof RuntimeError || err instanceof UsageError) throw err;
    const e = err as { message?: string; lines?: number; code?: string };
    let at = e.lines;
    // csv-parse names the line where the file ended; the quote was opened as many lines earlier
    // as the unfinished cell holds newlines.
    if (e.code === 'CSV_QUOTE_NOT_CLOSED') at = openedOn(parser, decode.lineCount) ?? at;
    const line = at !== undefined ? `line ${at}: ` : '';
    const what = e.code === 'CSV_QUOTE_NOT_CLOSED' ? 'a quote is never closed' : e.code === 'CSV_INVALID_CLOSING_QUOTE' ? 'a quote closes in the middle of a cell' : (e.message ?? String(err));
    throw new RuntimeError('malformed_csv', `${o.path === '-' ? 'stdin' : o.path}: ${line}${what}`, 'fix the file there, then run again with --resume');
  };

  const first = await records.next().catch(parseError);
  if (first.done) throw new UsageError(`${o.path === '-' ? 'stdin' : o.path} is empty: no header row`, 'the first row must name the columns');
  const header = first.value.record.map((h) => h.trim());
  // How far the rows handed out reach into the file, in the file's bytes (near enough: csv-parse
  // counts the UTF-8 bytes of the decoded text, doubled for UTF-16): the bytes read from disk run
  // ahead — the encoding check reads a whole file first — and would make the progress's estimate
  // of the total rows say the file was done at its first row.
  const bytesOf = (utf8Bytes: number) => (decode.encoding === 'utf16le' || decode.encoding === 'utf16be' ? utf8Bytes * 2 : utf8Bytes);
  let consumed = bytesOf(first.value.info.bytes);

  /** \r\n inside quoted cells so far, each of which csv-parse counted as two lines. */
  let crlfCounted = 0;
  async function* rows(): AsyncGenerator<Row> {
    for (;;) {
      const next = await records.next().catch(parseError);
      if (next.done) {
        consumed = Math.max(consumed, counter.n);
        return;
      }
      const { record: cells, info } = next.value;
      consumed = bytesOf(info.bytes);
      // The line a row starts on: info.lines is where the record ends, less the newlines inside its
      // quoted cells. csv-parse counts a \r\n inside quotes as two lines, in this record and every
      // one after it: those are taken off too. (Blank lines before a row are not in it: with \n
      // line ends they used to be subtracted, and a row after blank lines was reported too early.)
      let inner = 0;
      let crlf = 0;
      for (const c of cells) {
        for (let i = c.indexOf('\n'); i !== -1; i = c.indexOf('\n', i + 1)) {
          inner += 1;
          if (i > 0 && c.charCodeAt(i - 1) === 13) crlf += 1;
        }
      }
      const line = info.lines - inner - crlf - crlfCounted;
      crlfCounted += crlf;
      // Blank lines, and lines of only spaces or only delimiters (Excel leaves those), are no rows.
      if (cells.every((c) => c.trim() === '')) continue;
      yield { cells, line };
    }
  }

  const close = () => {
    parser.destroy();
    text.destroy();
    decode.destroy();
    if (o.path !== '-') stream.destroy();
    else stream.pause();
  };
  return { header, delimiter, encoding: decode.encoding, rows: rows(), bytesRead: () => Math.min(consumed, counter.n), size, close, notes };
}

type ParserApi = {
  info?: Record<string, number>;
  options?: { columns?: unknown; record_delimiter?: Buffer[] };
  state?: { error?: unknown; record?: unknown[] };
  __infoRecord?: () => unknown;
};

/**
 * csv-parse (7.x) builds each record's `info` by spreading its counters into a new object twice:
 * a quarter of a dry run's parsing time. The same fields, written out, cost a plain object. Only
 * when its internals still have the shape this was written against; otherwise it is left alone.
 */
function cheaperRecordInfo(parser: unknown): void {
  const api = (parser as { api?: ParserApi }).api;
  const info = api?.info;
  const keys = ['bytes', 'bytes_records', 'comment_lines', 'empty_lines', 'invalid_field_length', 'lines', 'records'];
  if (!api || !info || typeof api.__infoRecord !== 'function' || !api.state || !api.options) return;
  if (Object.keys(info).sort().join() !== keys.join()) return;
  api.__infoRecord = function (this: Required<ParserApi>) {
    const i = this.info;
    return {
      bytes: i.bytes,
      bytes_records: i.bytes,
      comment_lines: i.comment_lines,
      empty_lines: i.empty_lines,
      invalid_field_length: i.invalid_field_length,
      lines: i.lines,
      records: i.records,
      columns: this.options.columns,
      error: this.state.error,
      header: this.options.columns === true,
      index: this.state.record?.length,
      raw: undefined,
    };
  };
}

/**
 * The line an unclosed quote was opened on: the last line of the input less the newlines in the
 * cell csv-parse was still reading (its internal state; undefined if that ever changes shape).
 */
function openedOn(parser: unknown, lastLine: number): number | undefined {
  const field = (parser as { api?: { state?: { field?: { buf?: Buffer; length?: number } } } }).api?.state?.field;
  if (!field || !Buffer.isBuffer(field.buf) || typeof field.length !== 'number') return undefined;
  let newlines = 0;
  const bytes = field.buf.subarray(0, field.length);
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) newlines += 1;
  return Math.max(1, lastLine - newlines);
}
