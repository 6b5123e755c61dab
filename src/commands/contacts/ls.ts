/** `callctl contacts ls`: one page, or pages streamed; `--tag`/`--status` filter while paging. */
import type { Context } from '../../context.js';
import { CONTACT_CSV, CONTACT_TABLE, listContacts } from '../../api/contacts.js';
import { runList } from '../list.js';

/** Keeps contacts that carry every given tag and the given status, ignoring case. */
function contactFilter(opts: Record<string, unknown>): ((item: unknown) => boolean) | undefined {
  const tags = Array.isArray(opts.tag) ? opts.tag.map((t) => String(t).trim().toLowerCase()) : [];
  const status = typeof opts.status === 'string' ? opts.status.trim().toLowerCase() : undefined;
  if (tags.length === 0 && status === undefined) return undefined;
  return (item) => {
    const c = item as { tags?: unknown; status?: unknown };
    if (status !== undefined && (typeof c.status !== 'string' || c.status.toLowerCase() !== status)) return false;
    const has = Array.isArray(c.tags) ? c.tags.map((t) => String(t).toLowerCase()) : [];
    return tags.every((t) => has.includes(t));
  };
}

export function run(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<number> {
  const filter = contactFilter(opts);
  return runList(ctx, opts, { list: listContacts, table: CONTACT_TABLE, csv: CONTACT_CSV, ...(filter ? { filter } : {}) });
}
