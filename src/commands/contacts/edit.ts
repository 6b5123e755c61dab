/** `callctl contacts edit <id>`: PATCH with only the fields given. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { CONTACT_CSV, updateContact } from '../../api/contacts.js';
import { writeRecord } from '../../output/writers.js';
import { contactFields } from './fields.js';

export async function run(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<number> {
  const format = ctx.format;
  const fields = await contactFields(ctx, opts);
  if (Object.keys(fields).length === 0) throw new UsageError('no field to change', 'give at least one field flag or --data');
  const contact = await updateContact(await ctx.api(), args[0] as string, fields);
  ctx.log.info(`updated ${Object.keys(fields).join(', ')} of contact ${args[0] as string}`);
  await writeRecord(ctx.deps.io.stdout, format, contact, CONTACT_CSV);
  return 0;
}
