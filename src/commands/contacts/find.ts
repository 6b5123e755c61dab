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

export async function run(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<number> {
  const phone = opts.phone as string | undefined;
  const email = opts.email as string | undefined;
  if ((phone === undefined) === (email === undefined)) throw new UsageError('give --phone or --email (one of them)', 'e.g. callctl contacts find --phone "+44 7911 123456"');
  const region = regionOf(opts.country as string | undefined, (await ctx.settings()).country);
  let wanted: string;
  if (phone !== undefined) {
    const read = toE164(phone, region);
    if (!read.ok) throw new UsageError(read.reason, 'give the number in international format (+44…) or with --country');
    wanted = read.e164;
  } else {
    wanted = (email as string).trim().toLowerCase();
    if (wanted === '') throw new UsageError('--email is empty');
  }
  const format = ctx.format;
  const client = await ctx.api();
  const writer = await createListWriter(ctx.deps.io.stdout, format, format === 'csv' ? CONTACT_CSV : CONTACT_TABLE);
  let found = 0;
  let read = 0;
  for await (const { stored, raw } of everyContact(client, region)) {
    read += 1;
    if ((phone !== undefined ? stored.e164 : stored.email) !== wanted) continue;
    found += 1;
    await writer.write([raw]);
  }
  await writer.end();
  ctx.log.info(`${found} contact${found === 1 ? '' : 's'} of ${read} ${phone !== undefined ? `with phone ${wanted}` : `with e-mail ${wanted}`}`);
  return found > 0 ? EXIT.ok : EXIT.notFound;
}
