/**
 * `callctl contacts ls`'s options, typed before any code loads: the shared listing flags, and the
 * filters `--tag` (every one of them) and `--status`, compared ignoring case (docs/commands/contacts.md, "Listing").
 */
import { type ListOptions, listOptions } from '../list-options.js';

export type ContactsLsOptions = ListOptions & {
  /** Trimmed and lower-cased; a contact must carry every one. */
  tags: string[];
  /** Trimmed and lower-cased. */
  status: string | undefined;
};

export function contactsLsOptions(_args: string[], opts: Record<string, unknown>): ContactsLsOptions {
  const tags = Array.isArray(opts.tag) ? opts.tag.map((t) => String(t).trim().toLowerCase()) : [];
  const status = typeof opts.status === 'string' ? opts.status.trim().toLowerCase() : undefined;
  return { ...listOptions(opts), tags, status };
}
