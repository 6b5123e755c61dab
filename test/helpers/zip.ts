/**
 * A small ZIP writer for tests and fixtures: the workbooks no writer on this machine makes (Google
 * Sheets' and Numbers' package layouts, reproduced by hand in fixtures/make-workbooks.mjs) and
 * hostile ones (zip bombs whose compressed bytes are built without ever holding what they inflate
 * to). Each member is stored or deflated; `descriptor` writes its sizes after the data (bit 3, as
 * Google Sheets does); `compressed` gives the member's deflated bytes directly with the `size` and
 * `crc` to declare (a member that lies about its size declares less than it inflates to).
 */
import { deflateRawSync } from 'node:zlib';
import * as zlib from 'node:zlib';

export interface ZipMember {
  name: string;
  data?: string | Buffer;
  /** 0 stored, 8 deflated (default 8). */
  method?: 0 | 8;
  /** Sizes and CRC in a data descriptor after the data (general purpose flag bit 3). */
  descriptor?: boolean;
  /** Already deflated bytes, with what to declare for them. */
  compressed?: { bytes: Buffer; size: number; crc?: number };
}

const crc32 = (b: Buffer): number => (zlib as unknown as { crc32(b: Buffer): number }).crc32(b);

/** The bytes of a ZIP holding `members` in that order. */
export function zipOf(members: ZipMember[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name, 'utf8');
    const method = m.compressed ? 8 : (m.method ?? 8);
    const raw = m.compressed ? undefined : Buffer.isBuffer(m.data) ? m.data : Buffer.from(m.data ?? '', 'utf8');
    const body = m.compressed ? m.compressed.bytes : method === 8 ? deflateRawSync(raw as Buffer) : (raw as Buffer);
    const size = m.compressed ? m.compressed.size : (raw as Buffer).length;
    const crc = m.compressed ? (m.compressed.crc ?? 0) : crc32(raw as Buffer);
    const flags = (m.descriptor ? 0x0008 : 0) | 0x0800;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(0x21000000, 10); // 1980-01-01
    local.writeUInt32LE(m.descriptor ? 0 : crc, 14);
    local.writeUInt32LE(m.descriptor ? 0 : body.length, 18);
    local.writeUInt32LE(m.descriptor ? 0 : size, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, body);
    let length = local.length + name.length + body.length;
    if (m.descriptor) {
      const d = Buffer.alloc(16);
      d.writeUInt32LE(0x08074b50, 0);
      d.writeUInt32LE(crc, 4);
      d.writeUInt32LE(body.length, 8);
      d.writeUInt32LE(size, 12);
      parts.push(d);
      length += d.length;
    }
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(flags, 8);
    c.writeUInt16LE(method, 10);
    c.writeUInt32LE(0x21000000, 12);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(body.length, 20);
    c.writeUInt32LE(size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    central.push(c, name);
    offset += length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, dir, end]);
}

/**
 * Deflated bytes that inflate to `repeat` copies of `block`, built from one compressed block
 * repeated: each copy is flushed whole (Z_FULL_FLUSH: no back-reference crosses it), so the same
 * bytes stand for every copy, and a final empty block ends the stream. Nothing of the inflated
 * size is ever held.
 */
export function repeatedDeflate(block: Buffer, repeat: number, head = Buffer.alloc(0), tail = Buffer.alloc(0)): { bytes: Buffer; size: number } {
  const flushed = (b: Buffer) => deflateRawSync(b, { finishFlush: zlib.constants.Z_FULL_FLUSH });
  const one = flushed(block);
  const parts = [flushed(head)];
  for (let i = 0; i < repeat; i++) parts.push(one);
  parts.push(deflateRawSync(tail));
  return { bytes: Buffer.concat(parts), size: head.length + block.length * repeat + tail.length };
}
