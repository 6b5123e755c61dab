/** `callctl contacts get <id>`. */
import type { Context } from '../../context.js';
import { contactCsvColumns, getContact } from '../../api/contacts.js';
import { writeRecord } from '../../output/writers.js';
import type { ContactsGetOptions } from './options.js';

export async function run(ctx: Context, o: ContactsGetOptions): Promise<number> {
  const format = ctx.format;
  const contact = await getContact(await ctx.api(), o.id);
  await writeRecord(ctx.deps.io.stdout, format, contact, contactCsvColumns([contact]), ctx);
  return 0;
}
