/**
 * `callctl contacts find --phone <number> | --email <address> | --name <text>`: every contact that
 * is this person. The API shows no search, so every page is read, streamed (memory stays flat).
 * A phone is compared by its digits (src/phone/compare.ts): a stored national-format one read with
 * the region, valid or not — so the twins a national-format POST creates are found with the
 * original, and a number libphonenumber calls invalid is still found (one line says so). Only a
 * text with too few digits to identify anyone is refused. Exit 4 when none matches.
 */
import { CONTACT_CSV, CONTACT_TABLE, type ListedContact } from '../../api/contacts.js';
import type { Context } from '../../context.js';
import { EXIT, UsageError } from '../../errors.js';
import { emailKey } from '../../contacts/email.js';
import { changedWhileRead, everyContact, nameMatcher, nearLine, type StoredContact, unreadableLine } from '../../contacts/people.js';
import { emailLook } from '../../contacts/email.js';
import { phoneNotes, phoneOf } from '../../contacts/asked.js';
import { createListWriter } from '../../output/writers.js';
import { compareNumbers } from '../../phone/compare.js';
import { regionOf } from '../../phone/e164.js';
import type { FindOptions } from './options.js';

/**
 * `lookalikes`: contacts whose address only looks like the one asked for (emailLook); `near`:
 * contacts with the number and an extension on one side only; `unreadable`: contacts whose phone
 * cannot be read as a number — each named, not matched.
 */
type Test = { test: (stored: StoredContact, raw: ListedContact) => boolean; what: string; lookalikes?: string[]; near?: string[]; unreadable?: string[] };

/** The test a contact must pass, and what it is in the summary line. */
function testOf(ctx: Context, o: FindOptions, region: string | undefined): Test {
  if (o.by === 'phone') {
    const wanted = phoneOf(o.phone, undefined, region);
    for (const note of phoneNotes([{ line: 1, text: o.phone.trim(), numbers: [wanted] }], region, true)) ctx.log.warn(note);
    const near: string[] = [];
    const unreadable: string[] = [];
    const test = (s: StoredContact) => {
      if (s.unreadable) unreadable.push(s.id);
      const how = s.number === undefined ? undefined : compareNumbers(wanted, s.number);
      if (how === 'near') near.push(s.id);
      return how === 'same';
    };
    return { test, near, unreadable, what: `with phone ${wanted.others.length === 0 && wanted.e164 !== undefined ? wanted.e164 : o.phone.trim()}` };
  }
  if (o.by === 'email') {
    // Checked after the region: with a bad --country as well, the region's error is the one shown.
    const wanted = emailKey(o.email);
    if (wanted === '') throw new UsageError('--email is empty');
    const look = emailLook(wanted);
    const lookalikes: string[] = [];
    return {
      lookalikes,
      test: (s) => {
        if (s.emails.includes(wanted)) return true;
        if (s.emails.some((e) => emailLook(e) === look)) lookalikes.push(s.id);
        return false;
      },
      what: `with e-mail ${wanted}`,
    };
  }
  // A name of separators only (`---`) has no word to look for: it matches no one.
  const matches = nameMatcher(o.name);
  return { test: (_s, raw) => matches?.(raw) === true, what: `named ${o.name.trim()}` };
}

export async function run(ctx: Context, o: FindOptions): Promise<number> {
  const region = regionOf(o.country, (await ctx.settings()).country);
  const { test, what, lookalikes = [], near = [], unreadable = [] } = testOf(ctx, o, region);
  const format = ctx.format;
  const client = await ctx.api();
  const writer = await createListWriter(ctx.deps.io.stdout, format, format === 'csv' ? CONTACT_CSV : CONTACT_TABLE, ctx);
  let found = 0;
  let read = 0;
  for await (const { stored, raw } of everyContact(client, region, { whole: true, changed: (n) => ctx.log.warn(changedWhileRead(n)) })) {
    read += 1;
    if (!test(stored, raw)) continue;
    found += 1;
    await writer.write([raw]);
  }
  await writer.end();
  ctx.log.info(`${found} contact${found === 1 ? '' : 's'} of ${read} ${what}`);
  if (near.length > 0) ctx.log.warn(nearLine(near, 'not listed'));
  const unread = unreadableLine(unreadable);
  if (unread !== undefined) ctx.log.warn(unread);
  if (lookalikes.length > 0) ctx.log.warn(`${lookalikes.length === 1 ? `contact ${lookalikes[0]} has an address` : `contacts ${lookalikes.join(', ')} have addresses`} that look like it but are written with other letters: not listed (check them: callctl contacts get <id>)`);
  return found > 0 ? EXIT.ok : EXIT.notFound;
}
