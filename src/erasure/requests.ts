/**
 * Erasure requests. A file of them: a bare id or phone a line, or a CSV with an `id` or `phone`
 * column (header names matched as for the import). Requests are few (dozens, thousands), so the
 * file is read whole and every line checked before anything is sent: one bad line is exit 2,
 * nothing sent. A request typed on the command line is one phone (`--phone`) or e-mail (`--email`).
 *
 * A bare line is a phone when it holds only what a phone is written with (`+`, digits, spaces,
 * `()`, `.`, `-`) and at least six digits, and anything else an id, taken as given. A CSV row
 * that gives both an id and a phone stands for every contact either finds: a miss is a breach. A
 * phone is never refused for being invalid — it is compared by its digits (src/phone/compare.ts) —
 * only for holding too few digits to identify anyone.
 */
import { UsageError } from '../errors.js';
import { normalizeHeader } from '../import/mapping.js';
import { type EncodingName, openSource } from '../import/source.js';
import type { InStream } from '../deps.js';
import { digitCount, MIN_DIGITS, type NumberKey } from '../phone/compare.js';
import { phoneOf } from './phones.js';

export interface ErasureRequest {
  line: number;
  /** As typed: shown in the preview, never written to a receipt. */
  text: string;
  id?: string;
  number?: NumberKey;
  email?: string;
}

export const ID_HEADERS = new Set(['id', 'contactid', 'contact', 'customerid'].map(normalizeHeader));
const PHONE_HEADERS = new Set(['phone', 'phonenumber', 'mobile', 'mobilephone', 'telephone', 'tel', 'number'].map(normalizeHeader));

/** One request as typed: a phone or an id (`as` forces the kind, or makes it an e-mail). */
export function requestOf(text: string, line: number, region: string | undefined, as?: 'id' | 'phone' | 'email'): ErasureRequest {
  const t = text.trim();
  const kind = as ?? (/^[+\d\s().-]+$/.test(t) && digitCount(t) >= MIN_DIGITS ? 'phone' : 'id');
  if (kind === 'phone') return { line, text: t, number: phoneOf(t, line, region) };
  if (kind === 'email') {
    if (t === '') throw new UsageError(`line ${line}: the e-mail is empty`, 'nothing was sent');
    return { line, text: t, email: t.toLowerCase() };
  }
  if (t === '.' || t === '..') throw new UsageError(`line ${line}: the id "${t}" cannot be sent as a path segment`, 'nothing was sent');
  return { line, text: t, id: t };
}

/** Reads and checks every request of a file (or stdin). */
export async function readRequests(o: { path: string; stdin: InStream; region: string | undefined; encoding?: EncodingName | undefined }): Promise<ErasureRequest[]> {
  const source = await openSource({ path: o.path, stdin: o.stdin, cwdResolve: (p) => p, ...(o.encoding ? { encoding: o.encoding } : {}) });
  try {
    const names = source.header.map(normalizeHeader);
    const idCol = names.findIndex((h) => ID_HEADERS.has(h));
    const phoneCol = names.findIndex((h) => PHONE_HEADERS.has(h));
    const requests: ErasureRequest[] = [];
    if (idCol < 0 && phoneCol < 0) {
      if (source.header.filter((h) => h.trim() !== '').length > 1) {
        throw new UsageError(`no id or phone column among: ${source.header.join(', ')}`, 'name a column id or phone, or give one id or phone a line; nothing was sent');
      }
      // Bare lines: the "header" is the first request.
      if ((source.header[0] ?? '').trim() !== '') requests.push(requestOf(source.header[0] as string, 1, o.region));
      for await (const row of source.rows) {
        if (row.refused !== undefined) throw new UsageError(`line ${row.line}: ${row.refused}`, 'nothing was sent');
        const text = row.cells.join(source.delimiter).trim();
        if (text !== '') requests.push(requestOf(text, row.line, o.region));
      }
    } else {
      const cell = (cells: string[], at: number) => (at >= 0 ? (cells[at] ?? '').trim() : '');
      for await (const row of source.rows) {
        if (row.refused !== undefined) throw new UsageError(`line ${row.line}: ${row.refused}`, 'nothing was sent');
        const [id, phone] = [cell(row.cells, idCol), cell(row.cells, phoneCol)];
        if (id === '' && phone === '') throw new UsageError(`line ${row.line}: neither an id nor a phone`, 'fill it in or remove the line; nothing was sent');
        const given = [id !== '' ? requestOf(id, row.line, o.region, 'id') : undefined, phone !== '' ? requestOf(phone, row.line, o.region, 'phone') : undefined].filter((p) => p !== undefined);
        requests.push(Object.assign({}, ...given, { line: row.line, text: given.map((p) => p.text).join(' ') }) as ErasureRequest);
      }
    }
    if (requests.length === 0) throw new UsageError(`${o.path === '-' ? 'stdin' : o.path} holds no erasure request`, 'one id or phone a line, or a CSV with an id or phone column');
    return requests;
  } finally {
    source.close();
  }
}
