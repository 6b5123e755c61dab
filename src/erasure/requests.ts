/**
 * A file of erasure requests: a bare id or phone a line, or a CSV with an `id` or `phone` column
 * (header names matched as for the import). Requests are few (dozens, thousands), so the file is
 * read whole and every line checked before anything is sent: one bad line is exit 2, nothing sent.
 *
 * A bare line is a phone when it holds only what a phone is written with (`+`, digits, spaces,
 * `()`, `.`, `-`) and at least six digits; anything else is an id, taken as given.
 */
import { UsageError } from '../errors.js';
import { normalizeHeader } from '../import/mapping.js';
import { type EncodingName, openSource } from '../import/source.js';
import type { InStream } from '../deps.js';
import { toE164 } from '../phone/e164.js';

export type ErasureRequest = { line: number; text: string } & ({ kind: 'id'; id: string } | { kind: 'phone'; e164: string });

const ID_HEADERS = new Set(['id', 'contactid', 'contact', 'customerid'].map(normalizeHeader));
const PHONE_HEADERS = new Set(['phone', 'phonenumber', 'mobile', 'mobilephone', 'telephone', 'tel', 'number'].map(normalizeHeader));

/** One request as typed: a phone (read as E.164 with the region) or an id. */
export function requestOf(text: string, line: number, region: string | undefined, as?: 'id' | 'phone'): ErasureRequest {
  const t = text.trim();
  const digits = t.replace(/\D/g, '').length;
  const kind = as ?? (/^[+\d\s().-]+$/.test(t) && digits >= 6 ? 'phone' : 'id');
  if (kind === 'phone') {
    const read = toE164(t, region);
    if (!read.ok) throw new UsageError(`line ${line}: ${read.reason}`, 'fix the line, or give --country for national numbers; nothing was sent');
    return { line, text: t, kind, e164: read.e164 };
  }
  if (t === '.' || t === '..') throw new UsageError(`line ${line}: the id "${t}" cannot be sent as a path segment`, 'nothing was sent');
  return { line, text: t, kind, id: t };
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
      for await (const row of source.rows) {
        if (row.refused !== undefined) throw new UsageError(`line ${row.line}: ${row.refused}`, 'nothing was sent');
        const id = idCol >= 0 ? (row.cells[idCol] ?? '').trim() : '';
        const phone = phoneCol >= 0 ? (row.cells[phoneCol] ?? '').trim() : '';
        if (id !== '') requests.push(requestOf(id, row.line, o.region, 'id'));
        else if (phone !== '') requests.push(requestOf(phone, row.line, o.region, 'phone'));
        else throw new UsageError(`line ${row.line}: neither an id nor a phone`, 'fill it in or remove the line; nothing was sent');
      }
    }
    if (requests.length === 0) throw new UsageError(`${o.path === '-' ? 'stdin' : o.path} holds no erasure request`, 'one id or phone a line, or a CSV with an id or phone column');
    return requests;
  } finally {
    source.close();
  }
}
