/** `callctl contacts ls`: one page, or every page streamed with --all. */
import type { Context } from '../../context.js';
import { CONTACT_CSV, CONTACT_TABLE, listContacts } from '../../api/contacts.js';
import { runList } from '../list.js';

export function run(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<number> {
  return runList(ctx, opts, { list: listContacts, table: CONTACT_TABLE, csv: CONTACT_CSV });
}
