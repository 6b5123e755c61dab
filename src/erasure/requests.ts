/**
 * Erasure requests. A file of them: a bare id, phone or e-mail a line, or a CSV with `id`, phone
 * or e-mail columns (header names matched as for the import: `Mobile Phone`, `Phone 1 - Value`,
 * `E-mail Address`…). Requests are few (dozens, thousands), so the file is read whole and every line
 * checked before anything is sent: one bad line is exit 2, nothing sent. A request typed on the
 * command line is one phone (`--phone`) or e-mail (`--email`).
 *
 * A bare line is an e-mail when it is written as one, a phone when it holds only what a phone is
 * written with (`+`, digits, spaces, `()`, `.`, `/`, `-`, an extension, several numbers) and at
 * least six digits, and anything else an id, taken as given. A CSV row stands for every contact
 * any of its cells finds — every phone column, every e-mail column, the id: a miss is a breach. A
 * phone is never refused for being invalid — it is compared by its digits (src/phone/compare.ts) —
 * only for holding too few digits to identify anyone.
 */
import { emailTypeOfName, phoneTypeOfName } from '../source/column-types.js';
import { UsageError } from '../errors.js';
import { fieldOfHeader, normalizeHeader, someNames } from '../source/headers.js';
import { type EncodingName, lineName, openSource, type Source } from '../source/open.js';
import { workbookSheets } from '../source/workbook.js';
import type { InStream } from '../deps.js';
import { askedKind, phoneOf } from '../contacts/asked.js';
import { emailKeys } from '../contacts/email.js';
import type { NumberKey } from '../phone/compare.js';

export interface ErasureRequest {
  line: number;
  /** A workbook's sheet: the request is named `Leads!12` in messages and receipts (source/open.ts). */
  sheet?: string;
  /** As typed: shown in the preview, never written to a receipt. */
  text: string;
  id?: string;
  /** The phones given (a CSV row may give several), read by their digits. */
  numbers?: NumberKey[];
  /** The e-mails given, compared as `emailKey` writes them. */
  emails?: string[];
  /**
   * A bare line of digits alone, read as a phone: it may be an id of a service whose ids are
   * numbers (the API does not show their form) — resolve.ts decides with the listing.
   */
  digitsOnly?: true;
}

export const ID_HEADERS = new Set(['id', 'contactid', 'contact', 'customerid'].map(normalizeHeader));
const PHONE_HEADERS = new Set(['phone', 'phonenumber', 'mobile', 'mobilephone', 'telephone', 'tel', 'number'].map(normalizeHeader));

type ColumnKind = 'id' | 'phone' | 'email' | { loose: 'phone' | 'email' };

/**
 * A header's words (`Telefonnummer` → `telefonnummer`, `Tel. number` → `tel`, `number`,
 * `phoneNumber2` → `phone`, `number2`), without case or accents.
 */
const wordsOf = (header: string) =>
  header
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');

/** Words (or their beginnings, for compounds: `Telefonnummer`, `Handynummer`, `Mailadresse`) that name a phone or an e-mail. */
const PHONE_WORD = /^(?:phone|tel$|telef|teleph|mobil|mob$|cell|handy|whatsapp|gsm$|ph$)/;
const EMAIL_WORD = /^(?:e?mail|courriel|correo)/;

/**
 * The kind of request a column holds, by its header: the import's names for an id, a phone or an
 * e-mail; else a header with a word for one (`Telefonnummer`, `Phone 2`, `E-Mail-Adresse`,
 * `Courriel`) is read loosely — its cells written as that kind are requests, the others are
 * passed over rather than refused (a miss is a breach: a phone column the list of names does not
 * know must not be skipped while the row's e-mail is read).
 */
function columnKind(header: string): ColumnKind | undefined {
  const name = normalizeHeader(header);
  if (ID_HEADERS.has(name)) return 'id';
  if (PHONE_HEADERS.has(name)) return 'phone';
  // The import's typed names too (`Direct Line`, `Person - Phone - Mobile`): a column the import
  // reads as a phone is searched as one.
  const phoneType = phoneTypeOfName(header);
  if (phoneType !== undefined && phoneType !== 'fax') return 'phone'; // a fax line is often an office's, shared
  if (emailTypeOfName(header) !== undefined) return 'email';
  const field = fieldOfHeader(header);
  if (field === 'phone' || field === 'email') return field;
  const words = wordsOf(header);
  if (words.some((w) => EMAIL_WORD.test(w))) return { loose: 'email' };
  if (words.some((w) => PHONE_WORD.test(w))) return { loose: 'phone' };
  return undefined;
}

/** A cell of a loosely named column, as a request when it is written as its kind. */
function looseRequest(cell: string, line: number, region: string | undefined, kind: 'phone' | 'email', sheet: string | undefined): ErasureRequest[] {
  const as = askedKind(cell);
  return as === kind ? [requestOf(cell, line, region, kind, sheet)] : [];
}

/** One request as typed: an e-mail, a phone or an id (`as` forces the kind); `sheet`: a workbook's. */
export function requestOf(text: string, line: number, region: string | undefined, as?: 'id' | 'phone' | 'email', sheet?: string): ErasureRequest {
  const t = text.trim();
  const kind = as ?? askedKind(t);
  const at = { line, ...(sheet !== undefined ? { sheet } : {}) };
  const named = lineName(at);
  if (kind === 'phone') return { ...at, text: t, numbers: [phoneOf(t, named, region)], ...(as === undefined && /^\d+$/.test(t) ? { digitsOnly: true as const } : {}) };
  if (kind === 'email') {
    if (t === '') throw new UsageError(`line ${named}: the e-mail is empty`, 'nothing was sent');
    return { ...at, text: t, emails: emailKeys(t) };
  }
  if (t === '.' || t === '..') throw new UsageError(`line ${named}: the id "${t}" cannot be sent as a path segment`, 'nothing was sent');
  return { ...at, text: t, id: t };
}

export interface RequestFile {
  /** The file (resolved), or `-` for stdin; `shown`: as the operator named it. */
  path: string;
  shown?: string | undefined;
  stdin: InStream;
  region: string | undefined;
  encoding?: EncodingName | undefined;
  /**
   * Told the columns of a CSV (or of a workbook's sheet) that are no id, phone or e-mail — a
   * column the names above do not know (`Record ID`) finds no one, and a person is told rather
   * than left to believe it was searched.
   */
  unread?: ((headers: string[], sheet?: string) => void) | undefined;
  /** A line for the operator about how the file was read (a hidden worksheet read too). */
  note?: ((line: string) => void) | undefined;
}

/**
 * Reads and checks every request of a file (or stdin). A workbook is read sheet by sheet, every
 * one of them — hidden sheets too, said on stderr; empty ones passed over — each with its own
 * header (or bare lines) through the same reader (source/open.ts), its requests named `Sheet!12`:
 * a person asked for on the second sheet is searched as on the first. A sheet holding rows but no
 * request column is refused, naming it, before anything is sent.
 */
export async function readRequests(o: RequestFile): Promise<ErasureRequest[]> {
  const shown = o.path === '-' ? 'stdin' : (o.shown ?? o.path);
  const open = (sheet?: string) => openSource({ path: o.path, stdin: o.stdin, cwdResolve: (p) => p, ...(o.encoding ? { encoding: o.encoding } : {}), ...(sheet !== undefined ? { sheet } : {}) });
  const sheets = o.path === '-' ? undefined : await workbookSheets(o.path, shown);
  const requests: ErasureRequest[] = [];
  if (sheets === undefined) requests.push(...(await requestsOf(await open(), o)));
  else {
    for (const s of sheets) {
      // An empty sheet holds no request; one that cannot be read is opened, and says why.
      if (s.header === undefined && s.rows !== undefined) continue;
      if (s.hidden) o.note?.(`${shown}: reading hidden worksheet "${s.name}" too`);
      requests.push(...(await requestsOf(await open(s.name), o, { name: s.name, where: `${shown}, worksheet "${s.name}": ` })));
    }
  }
  if (requests.length === 0) throw new UsageError(`${shown} holds no erasure request`, 'one id or phone a line, or a CSV with an id or phone column');
  return requests;
}

/** The requests of one CSV or one worksheet (`sheet`: its name, and how a refusal names it), with its own header. */
async function requestsOf(source: Source, o: RequestFile, sheet?: { name: string; where: string }): Promise<ErasureRequest[]> {
  try {
    const kinds = source.header.map(columnKind);
    const requests: ErasureRequest[] = [];
    if (kinds.every((k) => k === undefined)) {
      if (source.header.filter((h) => h.trim() !== '').length > 1) {
        throw new UsageError(`${sheet?.where ?? ''}no id, phone or e-mail column among: ${someNames(source.header)}`, 'name a column id, phone or email, or give one id, phone or e-mail a line; nothing was sent');
      }
      // Bare lines: the "header" is the first request.
      if ((source.header[0] ?? '').trim() !== '') requests.push(requestOf(source.header[0] as string, source.headerLine ?? 1, o.region, undefined, sheet?.name));
      for await (const row of source.rows) {
        if (row.refused !== undefined) throw new UsageError(`line ${lineName(row)}: ${row.refused}`, 'nothing was sent');
        const text = row.cells.join(source.delimiter).trim();
        if (text !== '') requests.push(requestOf(text, row.line, o.region, undefined, row.sheet));
      }
    } else {
      const unread = source.header.filter((h, i) => kinds[i] === undefined && h.trim() !== '');
      if (unread.length > 0) o.unread?.(unread, sheet?.name);
      for await (const row of source.rows) {
        if (row.refused !== undefined) throw new UsageError(`line ${lineName(row)}: ${row.refused}`, 'nothing was sent');
        const given = kinds.flatMap((kind, at) => {
          const cell = (row.cells[at] ?? '').trim();
          if (kind === undefined || cell === '') return [];
          return typeof kind === 'object' ? looseRequest(cell, row.line, o.region, kind.loose, row.sheet) : [requestOf(cell, row.line, o.region, kind, row.sheet)];
        });
        if (given.length === 0) throw new UsageError(`line ${lineName(row)}: no id, phone or e-mail`, 'fill it in or remove the line; nothing was sent');
        const id = given.find((g) => g.id !== undefined)?.id;
        requests.push({
          line: row.line,
          ...(row.sheet !== undefined ? { sheet: row.sheet } : {}),
          text: given.map((g) => g.text).join(' '),
          ...(id !== undefined ? { id } : {}),
          numbers: given.flatMap((g) => g.numbers ?? []),
          emails: given.flatMap((g) => g.emails ?? []),
        });
      }
    }
    return requests;
  } finally {
    source.close();
  }
}
