/**
 * The parts of an `.xlsx` ZIP read without a spreadsheet library: what a file is (its first
 * bytes), its members (the central directory), and the workbook's sheet list — for completion of
 * `--sheet`, and for xlsx-sheets.ts, which streams the other sheets' XML from here.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

/** A ZIP local file header: every `.xlsx` starts with it, whatever the file is called. */
export function isZip(head: Uint8Array): boolean {
  return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

/** The first bytes of a file (fewer if it is shorter). */
export function headOf(file: string, n = 4): Buffer {
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
  /** Where its local header starts. */
  local: number;
}

/** The members of a ZIP, from its central directory (no member is read). */
export function zipEntries(file: string): ZipEntry[] {
  const out: ZipEntry[] = [];
  const fd = openSync(file, 'r');
  try {
    const size = statSync(file).size;
    const tailLength = Math.min(size, 65_536 + 22);
    const tail = Buffer.alloc(tailLength);
    readSync(fd, tail, 0, tailLength, size - tailLength);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd === -1) return out;
    const entries = tail.readUInt16LE(eocd + 10);
    const dirSize = tail.readUInt32LE(eocd + 12);
    const dirOffset = tail.readUInt32LE(eocd + 16);
    const dir = Buffer.alloc(dirSize);
    readSync(fd, dir, 0, dirSize, dirOffset);
    let p = 0;
    for (let i = 0; i < entries && p + 46 <= dir.length && dir.readUInt32LE(p) === 0x02014b50; i++) {
      const nameLength = dir.readUInt16LE(p + 28);
      out.push({ name: dir.toString('utf8', p + 46, p + 46 + nameLength), method: dir.readUInt16LE(p + 10), compressed: dir.readUInt32LE(p + 20), local: dir.readUInt32LE(p + 42) });
      p += 46 + nameLength + dir.readUInt16LE(p + 30) + dir.readUInt16LE(p + 32);
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

/** Where a member's bytes start: after its local header, whose name and extra field may differ from the directory's. */
export function zipDataAt(file: string, entry: ZipEntry): number {
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(30);
    readSync(fd, header, 0, 30, entry.local);
    return entry.local + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  } finally {
    closeSync(fd);
  }
}

/** Small members of a ZIP, read whole (the workbook's sheet list). */
function readZipMembers(file: string, wanted: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const fd = openSync(file, 'r');
  try {
    for (const entry of zipEntries(file)) {
      if (!wanted.includes(entry.name) || entry.compressed > 16 * 1024 * 1024) continue;
      const data = Buffer.alloc(entry.compressed);
      readSync(fd, data, 0, entry.compressed, zipDataAt(file, entry));
      out.set(entry.name, (entry.method === 8 ? inflateRawSync(data) : data).toString('utf8'));
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

export const unescapeXml = (s: string) => s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** A worksheet: its name, the number of its `sheetN.xml`, and that member's path in the ZIP. */
export interface SheetInfo {
  name: string;
  sheetNo: string | undefined;
  path: string | undefined;
  /** Hidden in Excel (`state="hidden"` or `"veryHidden"`): the operator does not see its tab. */
  hidden: boolean;
}

/** A relationship's target as a member path: relative to xl/, or absolute from the root. */
const memberPath = (target: string) => (target.startsWith('/') ? target.slice(1) : `xl/${target.replace(/^\.\//, '')}`);

/** The worksheets in the workbook's own order, and where its shared strings are. */
export function workbookOf(file: string): { sheets: SheetInfo[]; sharedStrings: string | undefined } {
  const members = readZipMembers(file, ['xl/workbook.xml', 'xl/_rels/workbook.xml.rels']);
  const targets = new Map<string, string>();
  let sharedStrings: string | undefined;
  for (const m of (members.get('xl/_rels/workbook.xml.rels') ?? '').matchAll(/<Relationship\b[^>]*>/g)) {
    const id = /\bId="([^"]*)"/.exec(m[0])?.[1];
    const target = /\bTarget="([^"]*)"/.exec(m[0])?.[1];
    if (id && target) targets.set(id, target);
    if (target && /\/sharedStrings"/.test(m[0])) sharedStrings = memberPath(target);
  }
  const sheets: SheetInfo[] = [];
  for (const m of (members.get('xl/workbook.xml') ?? '').matchAll(/<(?:\w+:)?sheet\b[^>]*>/g)) {
    const name = /\bname="([^"]*)"/.exec(m[0])?.[1];
    const rid = /\br:id="([^"]*)"/.exec(m[0])?.[1];
    if (name === undefined) continue;
    const target = rid ? targets.get(rid) : undefined;
    sheets.push({ name: unescapeXml(name), sheetNo: target ? /sheet(\d+)\.xml$/.exec(target)?.[1] : undefined, path: target ? memberPath(target) : undefined, hidden: /\bstate="(?:hidden|veryHidden)"/.test(m[0]) });
  }
  return { sheets, sharedStrings };
}

/** The worksheets in the workbook's own order, with the number of their `sheetN.xml`. */
export function sheetsOf(file: string): SheetInfo[] {
  return workbookOf(file).sheets;
}

