/** Typed calls for calls and their outcomes (docs/api.md, Calls). No printing. */
import type { ApiClient } from '../http/client.js';
import { pathOf } from '../http/client.js';
import { pages, type PageQuery } from '../http/paginate.js';
import type { Column } from '../output/writers.js';

export const CALL_TABLE: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'startedAt', header: 'Started' },
  { key: 'direction', header: 'Dir' },
  { key: 'from', header: 'From' },
  { key: 'channel', header: 'Channel' },
  { key: 'durationSec', header: 'Secs' },
  { key: 'outcome', header: 'Outcome' },
  { key: 'value', header: 'Value' },
  { key: 'currency', header: 'Cur' },
];
export const CALL_CSV: Column[] = ['id', 'contactId', 'from', 'to', 'direction', 'channel', 'startedAt', 'durationSec', 'outcome', 'value', 'currency', 'recordingUrl'].map((key) => ({ key, header: key }));

export function listCalls(client: ApiClient, q: Omit<PageQuery, 'path'>): AsyncGenerator<unknown[]> {
  return pages(client, { ...q, path: '/calls' });
}

export async function getCall(client: ApiClient, id: string): Promise<unknown> {
  return (await client.request({ method: 'GET', path: pathOf`/calls/${id}` })).body;
}

export interface Outcome {
  outcome: string;
  value?: number;
  currency?: string;
}

/** PATCH /calls/{id} with the outcome: it then shows on the call and in the totals. */
export async function writeOutcome(client: ApiClient, id: string, outcome: Outcome, signal?: AbortSignal): Promise<unknown> {
  return (await client.request({ method: 'PATCH', path: pathOf`/calls/${id}`, body: outcome, ...(signal ? { signal } : {}) })).body;
}
