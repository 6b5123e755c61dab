/**
 * What csv-parse gives, taken as the reader needs it: its records in order with its error last,
 * a cheaper record `info`, and the line a quote never closed was opened on.
 */
import type { Readable } from 'node:stream';

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
export function cheaperRecordInfo(parser: unknown): void {
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
 * The line an unclosed quote was opened on: the last line of the input less the line ends (CRLF,
 * LF or a bare CR) in the cell csv-parse was still reading (its internal state; undefined if that
 * ever changes shape).
 */
export function openedOn(parser: unknown, lastLine: number): number | undefined {
  const field = (parser as { api?: { state?: { field?: { buf?: Buffer; length?: number } } } }).api?.state?.field;
  if (!field || !Buffer.isBuffer(field.buf) || typeof field.length !== 'number') return undefined;
  return Math.max(1, lastLine - lineEnds(field.buf.subarray(0, field.length).toString('latin1')));
}

/** Line ends in `text`: a CRLF, an LF or a bare CR each end one line. */
export function lineEnds(text: string): number {
  let n = 0;
  for (const re = /\r\n?|\n/g; re.exec(text) !== null; ) n += 1;
  return n;
}
