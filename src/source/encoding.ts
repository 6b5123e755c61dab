/**
 * Which encoding a lead list is in, when the operator did not say: a UTF-8 or UTF-16 BOM; else
 * UTF-8 when every byte sequence of the whole file is valid UTF-8; else Windows-1252, what Excel
 * on Windows writes (docs/commands/import.md, "Reading the file"). The whole file is checked, not a first chunk: an
 * accent on the last line is the usual case, and a decision taken on the first rows could not be
 * taken back once they were sent. Plain UTF-8 with accents is never taken for Windows-1252.
 * Input that cannot be read twice (stdin, a pipe) is decided on its first chunk instead (Decode).
 */
import { isUtf8 } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import { TextDecoder } from 'node:util';
import { RuntimeError } from '../errors.js';
import { lineEnds } from './csv-records.js';

export type EncodingName = 'utf8' | 'utf16le' | 'utf16be' | 'latin1' | 'windows-1252';

/** How many bytes at the end of `buf` start a UTF-8 sequence that continues in the next chunk. */
export function incompleteTail(buf: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const b = buf[buf.length - back] as number;
    if (b < 0x80) return 0; // ASCII: nothing pending
    if (b >= 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return need > back ? back : 0;
    }
    // a continuation byte: look further back for its lead byte
  }
  return 0;
}

/** Incremental UTF-8 validity over chunks (a sequence may straddle two chunks). */
export class Utf8Check {
  private carry: Buffer = Buffer.alloc(0);
  valid = true;

  push(chunk: Buffer): boolean {
    if (!this.valid) return false;
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const tail = incompleteTail(data);
    if (!isUtf8(data.subarray(0, data.length - tail))) this.valid = false;
    this.carry = Buffer.from(data.subarray(data.length - tail));
    return this.valid;
  }

  end(): boolean {
    if (this.carry.length > 0) this.valid = false;
    return this.valid;
  }
}

export type Detected = { bom: 'utf8' | 'utf16le' | 'utf16be' } | { text: 'utf8' | 'windows-1252' };

/** The BOM of the first bytes, if any. */
export function bomOf(head: Uint8Array): 'utf8' | 'utf16le' | 'utf16be' | undefined {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf8';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf16be';
  return undefined;
}

/** Reads the whole file once to tell UTF-8 from Windows-1252 (a BOM decides at once). */
export function detectFileEncoding(file: string): Detected {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    const check = new Utf8Check();
    let first = true;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const chunk = buf.subarray(0, n);
      if (first) {
        first = false;
        const bom = bomOf(chunk);
        if (bom) return { bom };
      }
      if (!check.push(chunk)) return { text: 'windows-1252' };
    }
    return { text: check.end() ? 'utf8' : 'windows-1252' };
  } finally {
    closeSync(fd);
  }
}

/** The one line that says an encoding was guessed, and how to override it. */
export function guessedNote(name: string): string {
  return `${name}: not valid UTF-8, read as Windows-1252 (Excel on Windows); if accents look wrong, give --encoding (utf8, utf16le, latin1, windows-1252)`;
}

const DECODER_LABEL: Record<EncodingName, string> = { utf8: 'utf-8', utf16le: 'utf-16le', utf16be: 'utf-16be', latin1: 'windows-1252', 'windows-1252': 'windows-1252' };

/** Bytes → text, the BOM detected and dropped; undecodable bytes stop the stream with the line. */
export class Decode extends Transform {
  private decoder: TextDecoder | undefined;
  private head: Buffer | undefined = Buffer.alloc(0);
  private lines = 1;
  /** The text decoded last ended with a CR: an LF first in the next is the same line end. */
  private endedWithCr = false;
  encoding: EncodingName;
  /** Line ends (CRLF, LF or a bare CR) decoded so far, plus one: the line the next text starts on. */
  get lineCount(): number {
    return this.lines;
  }

  /**
   * `guessFromHead`: with no encoding given and no way to read the input twice (stdin, a pipe),
   * the first chunk decides between UTF-8 and Windows-1252; a file is checked whole before.
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
    if (text.length > 0) {
      this.lines += lineEnds(this.endedWithCr && text.charCodeAt(0) === 10 ? text.slice(1) : text);
      this.endedWithCr = text.charCodeAt(text.length - 1) === 13;
    }
    done(null, text);
  }
}
