/** `callctl contacts add`: POST; the service may match an existing contact by phone (200). */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { contactCsvColumns, createContact } from '../../api/contacts.js';
import { writeRecord } from '../../output/writers.js';
import { contactFields } from './fields.js';
import type { AddOptions } from './fields-options.js';

export async function run(ctx: Context, o: AddOptions): Promise<number> {
  const format = ctx.format;
  const fields = await contactFields(ctx, o.fields);
  if (Object.keys(fields).length === 0) throw new UsageError('no field given', 'e.g. --first-name Ada --phone "+44 20 7946 0958"');
  const { status, contact } = await createContact(await ctx.api(), fields);
  const id = typeof contact === 'object' && contact !== null && 'id' in contact ? contact.id : undefined;
  ctx.log.info(status === 201 ? `created contact ${String(id ?? '')}` : `matched existing contact ${String(id ?? '')} by phone; the given fields were merged into it`);
  await writeRecord(ctx.deps.io.stdout, format, contact, contactCsvColumns([contact]), ctx);
  return 0;
}
