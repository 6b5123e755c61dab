/**
 * `callctl contacts dupes [--country CC] [--fix]`: the duplicate trap of the API in existing data
 * (docs/api.md: a national-format POST creates a second contact instead of matching). Groups of
 * contacts whose phones are one number in different formats, and contacts whose phone is stored
 * in national format. `--fix` rewrites a lone national phone to E.164 (PATCH) so later imports
 * match it; a group is only reported — merging would erase one record's history, and a person
 * decides (the ids are there for `contacts rm`).
 */
import { updateContact } from '../../api/contacts.js';
import type { Context } from '../../context.js';
import { everyContact, isNational } from '../../erasure/people.js';
import { createListWriter } from '../../output/writers.js';
import { regionOf } from '../../phone/e164.js';
import type { DupesOptions } from './options.js';

export async function run(ctx: Context, o: DupesOptions): Promise<number> {
  const region = regionOf(o.country, (await ctx.settings()).country);
  if (region === undefined) ctx.log.warn('no region set (--country or config set country): national-format phones cannot be read, only international ones compared');
  const format = ctx.format;
  const client = await ctx.api();
  // E.164 → ids: only numbers, never names, are kept — memory grows with the contacts, not their fields.
  const byNumber = new Map<string, string[]>();
  const national: Array<{ id: string; phone: string; e164: string }> = [];
  let read = 0;
  for await (const { stored } of everyContact(client, region)) {
    read += 1;
    if (!stored.e164) continue;
    const ids = byNumber.get(stored.e164);
    if (ids) ids.push(stored.id);
    else byNumber.set(stored.e164, [stored.id]);
    if (isNational(stored)) national.push({ id: stored.id, phone: stored.phone as string, e164: stored.e164 });
  }
  const groups = [...byNumber].filter(([, ids]) => ids.length > 1).map(([phone, ids]) => ({ phone, ids }));
  let fixed = 0;
  if (o.fix) {
    for (const n of national) {
      if ((byNumber.get(n.e164)?.length ?? 0) > 1) continue; // a group: a person decides
      await updateContact(client, n.id, { phone: n.e164 });
      fixed += 1;
      ctx.log.info(`fixed ${n.id}: ${n.phone} → ${n.e164}`);
    }
  }
  if (format === 'json') {
    ctx.deps.io.stdout.write(`${JSON.stringify({ groups, national, fixed })}\n`);
  } else {
    const writer = await createListWriter(ctx.deps.io.stdout, format, [
      { key: 'kind', header: 'Kind' },
      { key: 'phone', header: 'Number (E.164)' },
      { key: 'ids', header: 'Contacts' },
      { key: 'stored', header: 'Stored as' },
    ], ctx);
    await writer.write([
      ...groups.map((g) => ({ kind: 'same number', phone: g.phone, ids: g.ids.join(' '), stored: '' })),
      ...national.map((n) => ({ kind: 'national format', phone: n.e164, ids: n.id, stored: n.phone })),
    ]);
    await writer.end();
  }
  ctx.log.info(`${read} contacts read: ${groups.length} number${groups.length === 1 ? '' : 's'} held by several contacts, ${national.length} stored in national format${o.fix ? `, ${fixed} fixed` : ''}`);
  return 0;
}
