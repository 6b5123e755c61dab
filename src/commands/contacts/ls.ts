/** `callctl contacts ls`: one page, or pages streamed; `--tag`/`--status` filter while paging. */
import type { Context } from '../../context.js';
import { contactCsvColumns, CONTACT_TABLE, type ListedContact, listContacts } from '../../api/contacts.js';
import { runList } from '../list.js';
import type { ContactsLsOptions } from './ls-options.js';

/** Keeps contacts that carry every given tag and the given status, ignoring case. */
function contactFilter({ tags, status }: ContactsLsOptions): ((c: ListedContact) => boolean) | undefined {
  if (tags.length === 0 && status === undefined) return undefined;
  return (c) => {
    if (status !== undefined && (typeof c.status !== 'string' || c.status.toLowerCase() !== status)) return false;
    const has = Array.isArray(c.tags) ? c.tags.map((t) => String(t).toLowerCase()) : [];
    return tags.every((t) => has.includes(t));
  };
}

export function run(ctx: Context, o: ContactsLsOptions): Promise<number> {
  const filter = contactFilter(o);
  return runList(ctx, o, { list: listContacts, table: CONTACT_TABLE, csv: contactCsvColumns, ...(filter ? { filter } : {}) });
}
