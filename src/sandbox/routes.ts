/**
 * The endpoints of the sandbox: under `/api/v1` contacts (full CRUD, matched on phone), calls
 * (list, show, recording, outcome writeback) and outcome totals; and the public callback. Each
 * handler gets the parsed request and returns an answer; auth, rate limit and faults are the
 * server's job.
 */
import { type Answer, failure } from './http.js';
import { type Contact, matchKey, type Store } from './store.js';
import { callbackInput, contactInput, FieldError, outcomeInput } from './validate.js';

export type Scope = 'contacts:read' | 'contacts:write' | 'calls:read' | 'calls:write';

export interface RestRequest {
  method: string;
  /** Decoded path segments after /api/v1. */
  segments: string[];
  query: URLSearchParams;
  body: unknown;
}

export interface Route {
  /** A stable name for stats: `POST /contacts`, `GET /contacts/{id}`. */
  name: string;
  /** The scope a secret key needs; none for the public callback, where the widget key is the permission. */
  scope?: Scope;
  write: boolean;
  handle(req: RestRequest): Answer;
}

function listParams(query: URLSearchParams): { page: number; limit: number } | Answer {
  const page = query.has('page') ? Number(query.get('page')) : 1;
  const limit = query.has('limit') ? Number(query.get('limit')) : 50;
  if (!Number.isInteger(page) || page < 1) return failure(422, 'invalid_page', '"page" must be an integer of at least 1');
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return failure(422, 'invalid_limit', '"limit" must be an integer from 1 to 100');
  return { page, limit };
}

function envelope<T>(items: (page: number, limit: number) => T[], total: number, query: URLSearchParams): Answer {
  const p = listParams(query);
  if ('status' in p) return p;
  return { status: 200, body: { data: items(p.page, p.limit), pagination: { page: p.page, limit: p.limit, total, totalPages: Math.ceil(total / p.limit) } } };
}

/** Reads a body by the field rules: an invalid field is the 422 answer, else `use` answers. */
function withInput<I>(parse: (body: unknown) => I, body: unknown, use: (input: I) => Answer): Answer {
  let input: I;
  try {
    input = parse(body);
  } catch (err) {
    if (err instanceof FieldError) return failure(422, 'invalid_field', err.message);
    throw err;
  }
  return use(input);
}

/** Finds the route for a method and path, with the ids it names; undefined when there is none. */
export function route(store: Store, method: string, segments: string[]): Route | undefined {
  const [resource, id, sub, ...rest] = segments;
  if (rest.length > 0) return undefined;
  if (resource === 'contacts' && id === undefined) {
    if (method === 'GET') return { name: 'GET /contacts', scope: 'contacts:read', write: false, handle: (r) => envelope((p, l) => store.contactPage(p, l), store.contactCount(), r.query) };
    if (method === 'POST') return { name: 'POST /contacts', scope: 'contacts:write', write: true, handle: (r) => createContact(store, r.body) };
  }
  if (resource === 'contacts' && id !== undefined && sub === undefined) {
    const found = (handle: (c: Contact, r: RestRequest) => Answer) => (r: RestRequest) => {
      const c = store.contact(id);
      return c ? handle(c, r) : failure(404, 'not_found', `no contact with id "${id}"`);
    };
    if (method === 'GET') return { name: 'GET /contacts/{id}', scope: 'contacts:read', write: false, handle: found((c) => ({ status: 200, body: c })) };
    if (method === 'PATCH') return { name: 'PATCH /contacts/{id}', scope: 'contacts:write', write: true, handle: found((c, r) => patchContact(store, c, r.body)) };
    if (method === 'DELETE') {
      return { name: 'DELETE /contacts/{id}', scope: 'contacts:write', write: true, handle: found((c) => (store.deleteContact(c), { status: 204 })) };
    }
  }
  if (resource === 'calls' && id === undefined && method === 'GET') {
    return { name: 'GET /calls', scope: 'calls:read', write: false, handle: (r) => envelope((p, l) => store.callPage(p, l), store.callCount(), r.query) };
  }
  if (resource === 'calls' && id !== undefined) {
    const found = (handle: (r: RestRequest) => Answer) => (r: RestRequest) => (store.call(id) ? handle(r) : failure(404, 'not_found', `no call with id "${id}"`));
    if (sub === undefined && method === 'GET') return { name: 'GET /calls/{id}', scope: 'calls:read', write: false, handle: found(() => ({ status: 200, body: store.call(id) })) };
    if (sub === undefined && method === 'PATCH') {
      return { name: 'PATCH /calls/{id}', scope: 'calls:write', write: true, handle: found((r) => writeOutcome(store, id, r.body)) };
    }
    if (sub === 'recording' && method === 'GET') {
      return {
        name: 'GET /calls/{id}/recording',
        scope: 'calls:read',
        write: false,
        handle: found(() => {
          const call = store.call(id)!;
          if (!call.recordingUrl) return failure(404, 'not_found', `call "${id}" has no recording`);
          return { status: 200, body: { callId: call.id, url: call.recordingUrl, durationSec: call.durationSec } };
        }),
      };
    }
  }
  if (resource === 'analytics' && id === 'outcomes' && sub === undefined && method === 'GET') {
    return { name: 'GET /analytics/outcomes', scope: 'calls:read', write: false, handle: () => ({ status: 200, body: { data: store.outcomeTotals() } }) };
  }
  return undefined;
}

/** `POST /api/public/callback` (widget surface): a visitor asks to be called back. */
export function callbackRoute(store: Store): Route {
  return { name: 'POST /api/public/callback', write: true, handle: (r) => requestCallback(store, r.body) };
}

function requestCallback(store: Store, body: unknown): Answer {
  return withInput(callbackInput, body, (input) => ({ status: 201, body: { id: store.newId('cb'), ...input, status: 'requested', createdAt: new Date().toISOString() } }));
}

function createContact(store: Store, body: unknown): Answer {
  return withInput(contactInput, body, (input) => {
    // Contacts are matched on the phone (docs/api.md): an international one matches; a national one never does.
    const existing = store.matchPhone(typeof input.phone === 'string' ? input.phone : undefined);
    if (existing) return { status: 200, body: store.updateContact(existing, input) };
    return { status: 201, body: store.createContact(input) };
  });
}

function patchContact(store: Store, contact: Contact, body: unknown): Answer {
  return withInput(contactInput, body, (input) => {
    const other = store.matchPhone(typeof input.phone === 'string' ? input.phone : undefined);
    if (other && other.id !== contact.id) {
      return failure(409, 'phone_taken', `phone ${matchKey(input.phone as string)} belongs to another contact ("${other.id}")`);
    }
    return { status: 200, body: store.updateContact(contact, input) };
  });
}

function writeOutcome(store: Store, id: string, body: unknown): Answer {
  return withInput(outcomeInput, body, (input) => {
    const call = store.call(id)!;
    call.outcome = input.outcome ?? call.outcome;
    call.value = input.value ?? null;
    call.currency = input.currency ?? null;
    return { status: 200, body: call };
  });
}
