/**
 * Field rules of the sandbox (its choices where docs/api.md says "not documented"): the eleven contact
 * fields, `tags` an array of strings, the others strings of at most 1000 characters; unknown
 * fields are refused. Each refusal names the field (422).
 */
import { isEmail } from '../api/fields.js';
import { CONTACT_FIELDS, type ContactInput, matchKey } from './store.js';

export class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export const MAX_FIELD_LENGTH = 1000;
const KNOWN = new Set<string>(CONTACT_FIELDS);

/** Checks a contact body (POST or PATCH) and returns the fields to store. */
export function contactInput(body: unknown): ContactInput {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new FieldError('body', 'the body must be a JSON object of contact fields');
  const out: ContactInput = {};
  for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
    if (!KNOWN.has(field)) throw new FieldError(field, `unknown field "${field}"`);
    if (field === 'tags') {
      if (!Array.isArray(value) || !value.every((t) => typeof t === 'string')) throw new FieldError(field, '"tags" must be an array of strings');
      if (value.some((t: string) => t.length > MAX_FIELD_LENGTH)) throw new FieldError(field, `a tag is longer than ${MAX_FIELD_LENGTH} characters`);
      out.tags = value as string[];
      continue;
    }
    if (typeof value !== 'string') throw new FieldError(field, `"${field}" must be a string`);
    if (value.length > MAX_FIELD_LENGTH) throw new FieldError(field, `"${field}" is longer than ${MAX_FIELD_LENGTH} characters`);
    if (field === 'email' && value !== '' && !isEmail(value)) throw new FieldError(field, '"email" is not an e-mail address');
    out[field as Exclude<keyof ContactInput, 'tags'>] = value;
  }
  return out;
}

export interface OutcomeInput {
  outcome?: string;
  value?: number;
  currency?: string;
}

/** Checks an outcome writeback: outcome a non-empty string, value ≥ 0, currency required with a value. */
export function outcomeInput(body: unknown): OutcomeInput {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new FieldError('body', 'the body must be a JSON object');
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!['outcome', 'value', 'currency'].includes(k)) throw new FieldError(k, `unknown field "${k}"`);
  if (typeof b.outcome !== 'string' || b.outcome.trim() === '') throw new FieldError('outcome', '"outcome" must be a non-empty string');
  const out: OutcomeInput = { outcome: b.outcome };
  if (b.value !== undefined && b.value !== null) {
    if (typeof b.value !== 'number' || !Number.isFinite(b.value) || b.value < 0) throw new FieldError('value', '"value" must be a number ≥ 0');
    out.value = b.value;
  }
  if (b.currency !== undefined && b.currency !== null) {
    if (typeof b.currency !== 'string' || !/^[A-Z]{3}$/.test(b.currency)) throw new FieldError('currency', '"currency" must be three upper-case letters');
    out.currency = b.currency;
  }
  if (out.value !== undefined && out.currency === undefined) throw new FieldError('currency', '"currency" is required when "value" is sent');
  return out;
}

export interface CallbackInput {
  /** The phone in international format, separators removed. */
  phone: string;
  name?: string;
}

/** Checks a public callback request: `phone` in international format, an optional `name`. */
export function callbackInput(body: unknown): CallbackInput {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new FieldError('body', 'the body must be a JSON object');
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (k !== 'phone' && k !== 'name') throw new FieldError(k, `unknown field "${k}"`);
  const phone = typeof b.phone === 'string' ? matchKey(b.phone) : undefined;
  if (!phone) throw new FieldError('phone', '"phone" must be in international format (+ and digits)');
  if (b.name === undefined) return { phone };
  if (typeof b.name !== 'string' || b.name.length > MAX_FIELD_LENGTH) throw new FieldError('name', `"name" must be a string of at most ${MAX_FIELD_LENGTH} characters`);
  return { phone, name: b.name };
}
