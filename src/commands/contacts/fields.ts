/**
 * The contact fields of `add` and `edit`, from flags and `--data` (flags win). Everything is
 * checked before anything is sent: the phone becomes E.164 (the service's matching key) or the
 * command stops with exit 2, and so does a malformed e-mail.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { ContactFields } from '../../api/contacts.js';
import { CONTACT_FIELDS, isEmail } from '../../api/fields.js';
import type { FieldInput } from './fields-options.js';

const ALL_FIELDS = new Set<string>(CONTACT_FIELDS);

function fromData(ctx: Context, raw: string): Record<string, unknown> {
  let text = raw;
  if (raw.startsWith('@')) {
    const file = resolve(ctx.deps.cwd, raw.slice(1));
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --data file ${raw.slice(1)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--data is not valid JSON: ${(err as Error).message}`, 'give a JSON object, e.g. --data \'{"firstName":"Ada"}\'');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError('--data must be a JSON object of contact fields');
  for (const k of Object.keys(parsed)) {
    if (!ALL_FIELDS.has(k)) throw new UsageError(`--data has an unknown field "${k}"`, `contact fields are ${[...ALL_FIELDS].join(', ')}`);
  }
  return parsed as Record<string, unknown>;
}

/** Builds the body to send; `country` is the region for a national-format phone. */
export async function contactFields(ctx: Context, input: FieldInput): Promise<ContactFields> {
  const fields: Record<string, unknown> = input.data !== undefined ? fromData(ctx, input.data) : {};
  Object.assign(fields, input.flags);
  if (input.tags !== undefined) fields.tags = input.tags;

  for (const [k, v] of Object.entries(fields)) {
    if (k === 'tags') {
      if (!Array.isArray(v) || !v.every((t) => typeof t === 'string')) throw new UsageError('tags must be a list of strings');
    } else if (typeof v !== 'string') {
      throw new UsageError(`${k} must be a string`);
    } else {
      fields[k] = v.trim();
    }
  }
  if (typeof fields.email === 'string' && fields.email !== '' && !isEmail(fields.email)) {
    throw new UsageError(`"${fields.email}" is not an e-mail address`, 'nothing was sent');
  }
  if (typeof fields.phone === 'string' && fields.phone !== '') {
    const { regionOf, toE164 } = await import('../../phone/e164.js');
    const country = regionOf(input.country, (await ctx.settings()).country);
    const phone = toE164(fields.phone, country);
    if (!phone.ok) throw new UsageError(phone.reason, 'nothing was sent');
    fields.phone = phone.e164;
  }
  return fields as ContactFields;
}
