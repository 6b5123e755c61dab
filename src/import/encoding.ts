/**
 * Which encoding a lead list is in, when the operator did not say: a UTF-8 or UTF-16 BOM; else
 * UTF-8 when every byte sequence of the whole file is valid UTF-8; else Windows-1252, what Excel
 * on Windows writes (README, "File formats"). The whole file is checked, not a first chunk: an
 * accent on the last line is the usual case, and a decision taken on the first rows could not be
 * taken back once they were sent. Plain UTF-8 with accents is never taken for Windows-1252.
 */
import { isUtf8 } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';

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
