/**
 * `callctl contacts edit <id>`: PATCH with only the fields given. The API replaces a contact's
 * tag list as a whole, so `--add-tag`/`--remove-tag` read the contact and send the changed list.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { CONTACT_CSV, getContact, updateContact } from '../../api/contacts.js';
import { writeRecord } from '../../output/writers.js';
import { contactFields } from './fields.js';
import type { EditOptions } from './fields-options.js';

export async function run(ctx: Context, o: EditOptions): Promise<number> {
  const format = ctx.format;
  const { id, addTag: add, removeTag: remove } = o;
  const fields = await contactFields(ctx, o.fields);
  const changesTags = add.length > 0 || remove.length > 0;
  if (changesTags && fields.tags !== undefined) {
    throw new UsageError('--tag (or tags in --data) sets exactly the tags given; it cannot be combined with --add-tag/--remove-tag', 'use one or the other');
  }
  if (Object.keys(fields).length === 0 && !changesTags) throw new UsageError('no field to change', 'give at least one field flag, --add-tag/--remove-tag, or --data');
  const client = await ctx.api();
  if (changesTags) {
    const current = await getContact(client, id);
    const tags = typeof current === 'object' && current !== null && 'tags' in current ? current.tags : undefined;
    const had = Array.isArray(tags) ? tags.map(String) : [];
    for (const t of remove) if (!had.includes(t)) ctx.log.warn(`contact ${id} has no tag "${t}"`);
    const next = [...new Set([...had.filter((t) => !remove.includes(t)), ...add.filter((t) => !remove.includes(t))])];
    if (Object.keys(fields).length === 0 && next.length === had.length && next.every((t, i) => t === had[i])) {
      ctx.log.info(`tags of contact ${id} unchanged: ${had.join(', ') || '(none)'}; nothing sent`);
      await writeRecord(ctx.deps.io.stdout, format, current, CONTACT_CSV, ctx);
      return 0;
    }
    fields.tags = next;
  }
  const contact = await updateContact(client, id, fields);
  ctx.log.info(`updated ${Object.keys(fields).join(', ')} of contact ${id}${changesTags ? ` (tags now: ${(fields.tags ?? []).join(', ') || 'none'})` : ''}`);
  await writeRecord(ctx.deps.io.stdout, format, contact, CONTACT_CSV, ctx);
  return 0;
}
