/**
 * What each operation of the API returns (docs/api.md), as the client checks it: a 2xx of another
 * shape is not the API's answer (docs/network.md, "What counts as the API's answer") and never counts as done. The checks
 * ask only what the API documents, and every value is returned as it came — unknown fields kept.
 * A list page's shape is paging's (src/http/paginate.ts, `LIST_PAGE`).
 */
import type { AnswerShape } from '../http/answer.js';

/** A contact as the API returns it: an identifier (its format is not documented) and any fields. */
export type Contact = { id: string | number } & Record<string, unknown>;

/** A call as the API returns it: its fields beyond the outcome are not documented. */
export type Call = { id?: string | number; outcome?: unknown } & Record<string, unknown>;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const hasId = (v: Record<string, unknown>) => (typeof v.id === 'string' && v.id.trim() !== '') || (typeof v.id === 'number' && Number.isFinite(v.id));

/** The body as a Contact, or undefined when it is not one (no identifier). */
export function asContact(body: unknown): Contact | undefined {
  return isRecord(body) && hasId(body) ? (body as Contact) : undefined;
}

/**
 * The body as a Call, or undefined. The API calls the answer to an outcome update "the call" and
 * shows no field of it: a call is an object that names itself (an id) or carries the outcome the
 * update wrote — `{}` or an error envelope is neither.
 */
export function asCall(body: unknown): Call | undefined {
  if (!isRecord(body)) return undefined;
  return hasId(body) || typeof body.outcome === 'string' ? (body as Call) : undefined;
}

/** POST /contacts, GET and PATCH /contacts/{id}: the contact. */
export const CONTACT: AnswerShape = { what: 'a contact with an id', names: 'record', accepts: (b) => asContact(b) !== undefined };

/** GET and PATCH /calls/{id}: the call. */
export const CALL: AnswerShape = { what: 'a call', names: 'record', accepts: (b) => asCall(b) !== undefined };

/**
 * DELETE /contacts/{id}: the API gives no body shape, so an empty body or any JSON counts — the
 * client already refuses a page or text that is not JSON.
 */
export const ERASED: AnswerShape = { what: 'an empty answer or JSON', names: 'record', accepts: () => true };
