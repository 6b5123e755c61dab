/**
 * The options of `callctl contacts add` and `edit`, typed before any code loads: the field flags,
 * `--tag`, `--data` and `--country` as given. Reading `--data` (inline JSON or @file) and the
 * checks on the result — E.164 phone, e-mail, whether any field is left — happen when the verb
 * runs (fields.ts), because `--data` can name a file.
 */
import { STRING_FIELDS } from '../../api/fields.js';
import { str } from '../../values.js';
import { required } from '../parse.js';

export type StringField = (typeof STRING_FIELDS)[number];

/** The field flags of `add` and `edit`, before `--data` is read. */
export interface FieldInput {
  /** `--data`: a JSON object, or `@file`. */
  data: string | undefined;
  /** `--first-name`, `--phone`, …: each field given by a flag, as typed (flags win over --data). */
  flags: Partial<Record<StringField, string>>;
  /** `--tag`, repeated: the tags become exactly these. */
  tags: string[] | undefined;
  /** The region of a national-format `--phone`. */
  country: string | undefined;
}

export interface AddOptions {
  fields: FieldInput;
}

export interface EditOptions {
  id: string;
  fields: FieldInput;
  /** `--add-tag`/`--remove-tag`, trimmed, empty ones dropped. */
  addTag: string[];
  removeTag: string[];
}

function fieldInput(opts: Record<string, unknown>): FieldInput {
  const flags: Partial<Record<StringField, string>> = {};
  for (const f of STRING_FIELDS) if (opts[f] !== undefined) flags[f] = String(opts[f]);
  return {
    data: opts.data !== undefined ? String(opts.data) : undefined,
    flags,
    tags: Array.isArray(opts.tag) ? opts.tag.map(String) : undefined,
    country: str(opts.country),
  };
}

/** Tags from a repeatable option, trimmed, empty ones dropped. */
function tagList(value: unknown): string[] {
  return Array.isArray(value) ? value.map((t) => String(t).trim()).filter((t) => t !== '') : [];
}

export function addOptions(_args: string[], opts: Record<string, unknown>): AddOptions {
  return { fields: fieldInput(opts) };
}

export function editOptions(args: string[], opts: Record<string, unknown>): EditOptions {
  return { id: required(args, 0, 'id'), fields: fieldInput(opts), addTag: tagList(opts.addTag), removeTag: tagList(opts.removeTag) };
}
