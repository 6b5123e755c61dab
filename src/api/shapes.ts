/**
 * What each operation of the API returns (docs/api.md), as the client checks it: a 2xx of another
 * shape is not the API's answer (docs/network.md, "What counts as the API's answer") and never
 * counts as done. The checks ask only what the API documents, and every value is returned as it
 * came: typed by its fields' names, unknown extra fields kept.
 * A list of contacts or calls is paging's list (src/http/paginate.ts, `LIST_PAGE`) whose items are
 * all records.
 */
import type { AnswerShape } from '../http/answer.js';
import { listItems } from '../http/paginate.js';
import type { ContactField } from './fields.js';

/** Fields the service returns beyond those callctl names: kept as they came, never dropped. */
export type MoreFields = { [field: string]: unknown };

/**
 * Fields by name whose types the API does not document: each is read for what it holds (a phone
 * may come back as a JSON number, a value as a string).
 */
type Named<K extends string> = { [F in K]?: unknown };

/** What a contact may carry besides its id: the documented fields (fields.ts) and the service's times. */
type ContactNames = ContactField | 'createdAt' | 'updatedAt';

/** A contact as the API returns it: an identifier (its format is not documented), its fields by name, and what else the service adds. */
export type Contact = { id: string | number } & Named<ContactNames> & MoreFields;

/**
 * The call fields callctl reads. None is documented but the outcome, value and currency
 * (docs/api.md): the others are read when a call has them, and the rest kept as they came.
 */
type CallNames = 'outcome' | 'value' | 'currency' | 'startedAt' | 'contactId' | 'contact_id' | 'contact';

/** A call as the API returns it. */
export type Call = { id?: string | number } & Named<CallNames> & MoreFields;

/** A contact in a list: its fields by name, none checked (a listed contact without an id is shown as it came). */
export type ListedContact = Named<'id' | ContactNames> & MoreFields;

/** A call in a list: its fields by name, none checked. */
export type ListedCall = Named<'id' | CallNames> & MoreFields;

/** A JSON object (not an array, not null): what a record of the API is. */
export const isRecord = (v: unknown): v is MoreFields => v !== null && typeof v === 'object' && !Array.isArray(v);

const hasId = (v: MoreFields): v is Contact => (typeof v.id === 'string' && v.id.trim() !== '') || (typeof v.id === 'number' && Number.isFinite(v.id));

/** The body as a Contact, or undefined when it is not one (no identifier). */
export function asContact(body: unknown): Contact | undefined {
  return isRecord(body) && hasId(body) ? body : undefined;
}

/**
 * The body as a Call, or undefined. The API calls the answer to an outcome update "the call" and
 * shows no field of it: a call is an object that names itself (an id) or carries the outcome the
 * update wrote — `{}` or an error envelope is neither.
 */
export function asCall(body: unknown): Call | undefined {
  if (!isRecord(body)) return undefined;
  return hasId(body) || typeof body.outcome === 'string' ? body : undefined;
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

/**
 * GET /contacts, GET /calls: a list (paginate.ts) of records. An item that is no object is no
 * contact nor call, so such a page is not the API's answer.
 */
export const RECORDS_PAGE: AnswerShape = { what: 'a list of records (an envelope with a data array of objects)', names: 'collection', accepts: (b) => listItems(b)?.every(isRecord) === true };
