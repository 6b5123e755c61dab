/**
 * `callctl contacts find --phone <number> | --email <address>`: every contact that is this person.
 * The API shows no search, so every page is read, streamed (memory stays flat): a stored phone is
 * compared as E.164 (a national-format one read with the region), so the twins a national-format
 * POST creates are found with the original. Exit 4 when none matches.
 */
import { CONTACT_CSV, CONTACT_TABLE } from '../../api/contacts.js';
import type { Context } from '../../context.js';
import { EXIT, UsageError } from '../../errors.js';
import { everyContact } from '../../erasure/people.js';
import { createListWriter } from '../../output/writers.js';
import { regionOf, toE164 } from '../../phone/e164.js';
import type { FindOptions } from './options.js';

export async function run(ctx: Context, o: FindOptions): Promise<number> {
  const region = regionOf(o.country, (await ctx.settings()).country);
  let wanted: string;
  if (o.by === 'phone') {
    const read = toE164(o.phone, region);
    if (!read.ok) throw new UsageError(read.reason, 'give the number in international format (+44…) or with --country');
    wanted = read.e164;
  } else {
    // Checked after the region: with a bad --country as well, the region's error is the one shown.
    wanted = o.email.trim().toLowerCase();
    if (wanted === '') throw new UsageError('--email is empty');
  }
  const format = ctx.format;
  const client = await ctx.api();
  const writer = await createListWriter(ctx.deps.io.stdout, format, format === 'csv' ? CONTACT_CSV : CONTACT_TABLE, ctx);
  let found = 0;
  let read = 0;
  for await (const { stored, raw } of everyContact(client, region)) {
    read += 1;
    if ((o.by === 'phone' ? stored.e164 : stored.email) !== wanted) continue;
    found += 1;
    await writer.write([raw]);
  }
  await writer.end();
  ctx.log.info(`${found} contact${found === 1 ? '' : 's'} of ${read} ${o.by === 'phone' ? `with phone ${wanted}` : `with e-mail ${wanted}`}`);
  return found > 0 ? EXIT.ok : EXIT.notFound;
}
