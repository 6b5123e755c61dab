/**
 * What a file is, told by its content, not its name (docs/files.md, "Formats"): an Excel workbook
 * (`.xlsx`), an OpenDocument spreadsheet (`.ods`) — both read — or text for the CSV reader. Every
 * other format an operator is likely to hold is named in one line with how to export it, exit 2,
 * before anything is read or sent: an Excel 97–2003 workbook (`.xls`) and a password-protected
 * `.xlsx` (both in Microsoft's old binary container, OLE2/CFB), an `.xlsb`, an Apple Numbers
 * document, a web page or an Excel 2003 XML file saved as `.xls`, another Office document, a ZIP.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { RuntimeError, UsageError } from '../errors.js';
import { workbookPart } from './xlsx-book.js';
import { headOf, isZip, memberWhole, zipEntries, type ZipEntry } from './zip.js';

export type FileKind = { kind: 'xlsx'; entries: Map<string, ZipEntry>; workbook: string } | { kind: 'ods'; entries: Map<string, ZipEntry>; content: ZipEntry } | { kind: 'text' };

const SAVE_AS = 'open it in Excel or LibreOffice and save it as .xlsx or CSV (without Excel: soffice --headless --convert-to xlsx <file>), then import that';

/** Refused: what the file is, and how to get a file callctl reads. */
const refused = (shown: string, what: string, hint: string) => new UsageError(`${shown} is ${what}, which callctl does not read`, hint, 'unread_format');

/** The old binary container's signature (OLE2 / Compound File Binary). */
const CFB = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** Whether the first bytes of a stream are an OLE2 file (stdin cannot be seeked to read its directory). */
export function isCfb(head: Uint8Array): boolean {
  return head.length >= 8 && Buffer.from(head.subarray(0, 8)).equals(CFB);
}

/** The refusal of an OLE2 file read from a stream: which one it is cannot be told there. */
export function cfbOnStream(shown: string): UsageError {
  return refused(shown, 'an Excel 97–2003 workbook (.xls) or a password-protected Office file', `${SAVE_AS}; a password is removed in Excel under File → Info → Protect Workbook`);
}

/** What the file at `path` is (a file, not a stream), or the refusal of a format not read. */
export function fileKind(path: string, shown: string): FileKind {
  const head = headOf(path, 8);
  if (isCfb(head)) throw cfbRefusal(path, shown);
  if (isZip(head)) return zipKind(path, shown);
  const text = headOf(path, 4096).toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart().slice(0, 4096).toLowerCase();
  if (text.startsWith('<?xml') && text.includes('urn:schemas-microsoft-com:office:spreadsheet')) throw refused(shown, 'an Excel 2003 XML spreadsheet', SAVE_AS);
  if (/^<(?:!doctype html|html|table|meta)\b/.test(text)) throw refused(shown, 'a web page (HTML) — the "Excel" export of many web apps is one', SAVE_AS);
  return { kind: 'text' };
}

/** A ZIP: a workbook, an OpenDocument spreadsheet, or another kind of document named. */
function zipKind(path: string, shown: string): FileKind {
  const list = zipEntries(path);
  // Its directory is at its end: a file cut short (a download stopped) has none.
  if (list.length === 0) throw new RuntimeError('malformed_workbook', `${shown} is a ZIP archive (a workbook?) whose directory is missing — cut short?`, 'download or save it again, or export the sheet as CSV');
  const entries = new Map(list.map((e) => [e.name, e]));
  const has = (name: string) => entries.has(name);
  const mimetype = entries.get('mimetype');
  const odf = mimetype && mimetype.size < 200 ? memberWhole(path, mimetype, 200, shown).trim() : undefined;
  if (odf === 'application/vnd.oasis.opendocument.spreadsheet') {
    const content = entries.get('content.xml');
    const manifest = entries.get('META-INF/manifest.xml');
    if (manifest && /<manifest:encryption-data\b/.test(memberWhole(path, manifest, 4 * 1024 * 1024, shown))) {
      throw refused(shown, 'a password-protected OpenDocument spreadsheet', 'open it in LibreOffice, save it without the password (File → Properties → Security), or export the sheet as CSV');
    }
    if (content) return { kind: 'ods', entries, content };
  }
  if (odf?.startsWith('application/vnd.oasis.opendocument.')) throw refused(shown, `an OpenDocument ${odf.slice(35).split('.')[0]} document, not a spreadsheet`, 'import a sheet of contacts: .csv, .xlsx or .ods');
  const workbook = list.length > 0 ? workbookPart(path, entries, shown) : undefined;
  if (workbook && !/\.bin$/i.test(workbook)) return { kind: 'xlsx', entries, workbook };
  if (workbook || list.some((e) => /^xl\/workbook\.bin$/i.test(e.name))) throw refused(shown, 'an Excel binary workbook (.xlsb)', 'in Excel: File → Save As → Excel Workbook (.xlsx) or CSV, then import that');
  if (has('Index/Document.iwa') || has('Index.zip') || has('index.xml.gz') || list.some((e) => e.name.startsWith('Index/'))) {
    const numbers = has('Index/CalculationEngine.iwa') || list.some((e) => e.name.startsWith('Index/Tables/'));
    throw refused(shown, numbers ? 'an Apple Numbers document' : 'an Apple iWork document (Numbers, Pages or Keynote)', 'in Numbers: File → Export To → Excel… or CSV…, then import that');
  }
  if (has('word/document.xml')) throw refused(shown, 'a Word document, not a spreadsheet', 'import a sheet of contacts: .csv, .xlsx or .ods');
  if (list.some((e) => e.name.startsWith('ppt/'))) throw refused(shown, 'a PowerPoint file, not a spreadsheet', 'import a sheet of contacts: .csv, .xlsx or .ods');
  throw refused(shown, 'a ZIP archive but not a workbook', 'unzip it and import the .xlsx, .ods or .csv inside, or export the sheet as CSV');
}

/**
 * An OLE2 file, by the streams its directory names (only the directory is read): an `.xls`
 * (`Workbook`, `Book`), an encrypted OOXML file (`EncryptionInfo`, `EncryptedPackage`: Office's
 * "Encrypt with Password"), another Office document. No library: one that reads it reads it whole.
 */
function cfbRefusal(path: string, shown: string): UsageError {
  const names = cfbStreamNames(path);
  if (names.has('EncryptionInfo') || names.has('EncryptedPackage')) {
    return refused(shown, 'a password-protected Office file (an .xlsx saved with "Encrypt with Password")', 'in Excel: File → Info → Protect Workbook → Encrypt with Password, clear it and save; or export the sheet as CSV');
  }
  if (names.has('Workbook') || names.has('Book') || names.size === 0) return refused(shown, 'an Excel 97–2003 workbook (.xls)', SAVE_AS);
  if (names.has('WordDocument')) return refused(shown, 'a Word 97–2003 document, not a spreadsheet', 'import a sheet of contacts: .csv, .xlsx or .ods');
  if ([...names].some((n) => n.startsWith('__substg1.0_'))) return refused(shown, 'an Outlook message (.msg), not a spreadsheet', 'import a sheet of contacts: .csv, .xlsx or .ods');
  return refused(shown, 'an Office 97–2003 file, not a workbook callctl reads', SAVE_AS);
}

/** The names in an OLE2 file's directory, read sector by sector through its FAT (a bounded walk). */
function cfbStreamNames(path: string): Set<string> {
  const names = new Set<string>();
  const fd = openSync(path, 'r');
  try {
    const size = statSync(path).size;
    const header = Buffer.alloc(512);
    if (readSync(fd, header, 0, 512, 0) < 512) return names;
    const shift = header.readUInt16LE(0x1e);
    if (shift !== 9 && shift !== 12) return names;
    const sectorSize = 1 << shift;
    const perSector = sectorSize / 4;
    const sector = (n: number): Buffer | undefined => {
      const at = (n + 1) * sectorSize;
      if (n >= 0xfffffffa || at + sectorSize > size) return undefined;
      const buf = Buffer.alloc(sectorSize);
      readSync(fd, buf, 0, sectorSize, at);
      return buf;
    };
    // The FAT's own sectors: 109 in the header, the rest in a chain of DIFAT sectors.
    const fatSectors: number[] = [];
    for (let i = 0; i < 109; i++) fatSectors.push(header.readUInt32LE(0x4c + i * 4));
    let difat = header.readUInt32LE(0x44);
    for (let hops = 0; difat < 0xfffffffa && hops < 1024; hops++) {
      const buf = sector(difat);
      if (!buf) break;
      for (let i = 0; i < perSector - 1; i++) fatSectors.push(buf.readUInt32LE(i * 4));
      difat = buf.readUInt32LE((perSector - 1) * 4);
    }
    const next = (n: number): number => {
      const fat = sector(fatSectors[Math.floor(n / perSector)] ?? 0xffffffff);
      return fat ? fat.readUInt32LE((n % perSector) * 4) : 0xfffffffe;
    };
    let dir = header.readUInt32LE(0x30);
    for (let hops = 0; dir < 0xfffffffa && hops < 4096; hops++) {
      const buf = sector(dir);
      if (!buf) break;
      for (let p = 0; p + 128 <= buf.length; p += 128) {
        const length = buf.readUInt16LE(p + 0x40);
        if (length >= 2 && length <= 64 && buf[p + 0x42] !== 0) names.add(buf.toString('utf16le', p, p + length - 2));
      }
      dir = next(dir);
    }
  } finally {
    closeSync(fd);
  }
  return names;
}
