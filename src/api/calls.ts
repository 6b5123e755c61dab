/** Typed calls for calls and their outcomes (docs/api.md, Calls). No printing. */
import type { ApiClient } from '../http/client.js';
import { pathOf } from '../http/client.js';
import { allItems, pages, type PageQuery } from '../http/paginate.js';
import type { Column } from '../output/writers.js';
import { type Call, CALL, isRecord, type ListedCall, RECORDS_PAGE } from './shapes.js';

export type { Call, ListedCall } from './shapes.js';

/**
 * Fields a table puts first, in this order, when the calls have them, with a short header. Other
 * fields the service returns follow in its own order; `CALL_TABLE_HIDDEN` are left to --json and
 * csv (long, or a link rather than a fact). Nothing here is assumed to exist: the seed shows no
 * call field but outcome, value and currency (docs/api.md), so the columns are the fields seen.
 */
const CALL_TABLE_FIRST: Record<string, string> = { id: 'ID', startedAt: 'Started', direction: 'Dir', from: 'From' };
const CALL_TABLE_LAST: Record<string, string> = { durationSec: 'Secs', outcome: 'Outcome', value: 'Value', currency: 'Cur' };
const CALL_TABLE_HIDDEN = new Set(['contactId', 'contact_id', 'to', 'recordingUrl', 'createdAt', 'updatedAt']);

/** `source` → Source, `campaignName` → Campaign Name, `lead_type` → Lead Type. */
export function fieldHeader(key: string): string {
  const words = key.replace(/([a-z\d])([A-Z])/g, '$1 $2').split(/[\s_-]+/).filter((w) => w !== '');
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ') || key;
}

/** Every field of the calls, in the order first seen. */
export function fieldsOf(items: ListedCall[]): string[] {
  const seen = new Set<string>();
  for (const item of items) for (const k of Object.keys(item)) seen.add(k);
  return [...seen];
}

/** A table's columns for these calls: the fields they have, known ones first and last, nested objects left out. */
export function callTableColumns(items: ListedCall[]): Column[] {
  const fields = fieldsOf(items);
  const scalar = (k: string) => items.some((i) => { const v = i[k]; return v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v)); });
  const has = new Set(fields);
  const first = Object.entries(CALL_TABLE_FIRST).filter(([k]) => has.has(k)).map(([key, header]) => ({ key, header }));
  const last = Object.entries(CALL_TABLE_LAST).filter(([k]) => has.has(k)).map(([key, header]) => ({ key, header }));
  const middle = fields.filter((k) => !(k in CALL_TABLE_FIRST) && !(k in CALL_TABLE_LAST) && !CALL_TABLE_HIDDEN.has(k) && scalar(k)).map((key) => ({ key, header: fieldHeader(key) }));
  return [...first, ...middle, ...last];
}

/** CSV columns for these calls: every field, under its own name, in the order the service sent them. */
export function callCsvColumns(items: ListedCall[]): Column[] {
  return fieldsOf(items).map((key) => ({ key, header: key }));
}

/**
 * The contact a call belongs to, where the call says: `contactId`, `contact_id`, or a `contact`
 * that is an id or an object with one; null when it has such a field without an id, undefined
 * when it has none of these fields.
 */
export function contactOfCall(c: ListedCall): string | undefined | null {
  for (const v of [c.contactId, c.contact_id]) if (typeof v === 'string' || typeof v === 'number') return String(v);
  const contact = c.contact;
  if (typeof contact === 'string' || typeof contact === 'number') return String(contact);
  if (isRecord(contact) && 'id' in contact) return String(contact.id);
  return 'contactId' in c || 'contact_id' in c || 'contact' in c ? null : undefined;
}

/** GET /calls: the pages asked for, as they arrive. */
export async function* listCalls(client: ApiClient, q: Omit<PageQuery, 'path' | 'shape'>): AsyncGenerator<ListedCall[]> {
  for await (const items of pages(client, { ...q, path: '/calls', shape: RECORDS_PAGE })) yield items.filter(isRecord);
}

/** Every call, page by page, in pages as large as the service takes (paginate.ts, allItems). */
export async function* allCalls(client: ApiClient): AsyncGenerator<ListedCall[]> {
  for await (const items of allItems(client, '/calls', { shape: RECORDS_PAGE })) yield items.filter(isRecord);
}

export async function getCall(client: ApiClient, id: string): Promise<Call> {
  return (await client.request<Call>({ method: 'GET', path: pathOf`/calls/${id}`, shape: CALL })).body;
}

export interface Outcome {
  outcome: string;
  value?: number;
  currency?: string;
}

/** PATCH /calls/{id} with the outcome: it then shows on the call and in the totals. */
export async function writeOutcome(client: ApiClient, id: string, outcome: Outcome, signal?: AbortSignal): Promise<Call> {
  return (await client.request<Call>({ method: 'PATCH', path: pathOf`/calls/${id}`, body: outcome, shape: CALL, ...(signal ? { signal } : {}) })).body;
}
