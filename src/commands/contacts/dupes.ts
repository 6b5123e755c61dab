/**
 * `callctl contacts dupes [--country CC] [--fix]`: the duplicate trap of the API in existing data
 * (docs/api.md: a national-format POST creates a second contact instead of matching). Groups of
 * contacts whose numbers compare equal as `contacts find` compares them (src/phone/compare.ts: by
 * their digits, valid or not), and every contact whose phone is stored in national format.
 * `--fix` rewrites a lone national phone to E.164 (PATCH) so later imports match it — only when
 * that is a valid number; the rest are listed for a person. A group is only reported — merging
 * would erase one record's history, and a person decides (the ids are there for `contacts rm`).
 */
import { updateContact } from '../../api/contacts.js';
import type { Context } from '../../context.js';
import { changedWhileRead, everyContact, isNational, unreadableLine } from '../../contacts/people.js';
import { createListWriter } from '../../output/writers.js';
import { type NumberKey, NumberIndex, severalNumbers } from '../../phone/compare.js';
import { regionOf } from '../../phone/e164.js';
import type { DupesOptions } from './options.js';

interface National {
  id: string;
  phone: string;
  /** `+` country code + national number, valid or not; null without a region to read it. */
  e164: string | null;
}

/** Groups of positions whose numbers compare equal (connected through any equal pair). */
function groupsOf(keys: NumberKey[]): number[][] {
  const index = new NumberIndex<number>();
  keys.forEach((k, i) => index.add(k, i));
  const parent = keys.map((_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i] as number] as number;
    return i;
  };
  keys.forEach((k, i) => {
    for (const j of index.find(k)) parent[root(j)] = root(i);
  });
  const groups = new Map<number, number[]>();
  keys.forEach((_, i) => {
    const r = root(i);
    const g = groups.get(r);
    if (g) g.push(i);
    else groups.set(r, [i]);
  });
  return [...groups.values()].filter((g) => g.length > 1).sort((a, b) => (a[0] as number) - (b[0] as number));
}

export async function run(ctx: Context, o: DupesOptions): Promise<number> {
  const region = regionOf(o.country, (await ctx.settings()).country);
  if (region === undefined) ctx.log.warn('no region set (--country or config set country): national-format phones are compared by their national digits and cannot be rewritten');
  const format = ctx.format;
  const client = await ctx.api();
  // Only ids and numbers are kept, never names: memory grows with the contacts, not their fields.
  const ids: string[] = [];
  const keys: NumberKey[] = [];
  const national: Array<National & { valid: boolean; ext: boolean; text: boolean; at: number }> = [];
  const unreadable: string[] = [];
  let read = 0;
  for await (const { stored } of everyContact(client, region, { whole: true, changed: (n) => ctx.log.warn(changedWhileRead(n)) })) {
    read += 1;
    if (stored.unreadable) unreadable.push(stored.id);
    if (!stored.number) continue;
    if (isNational(stored)) national.push({ id: stored.id, phone: stored.phone, e164: stored.number.e164 ?? null, valid: stored.number.valid, ext: stored.number.ext !== undefined, text: stored.phoneIsText, at: ids.length });
    ids.push(stored.id);
    keys.push(stored.number);
  }
  const unread = unreadableLine(unreadable);
  if (unread !== undefined) ctx.log.warn(unread);
  const grouped = groupsOf(keys);
  const inGroup = new Set(grouped.flat());
  const groups = grouped.map((g) => ({ phone: g.map((i) => keys[i]?.e164).find((e) => e !== undefined) ?? (keys[g[0] as number] as NumberKey).national, ids: g.map((i) => ids[i] as string) }));
  let fixed = 0;
  const notFixed: Array<National & { reason: string }> = [];
  if (o.fix) {
    for (const n of national) {
      if (inGroup.has(n.at)) continue; // a group: a person decides
      // A field of several numbers rewritten to one would lose the others; an extension, itself.
      const reason = severalNumbers(n.phone) ? 'it holds several numbers' : !n.text ? 'the service stores it as a JSON number, a list or an object: a rewrite as text would change its form' : n.ext ? 'it has an extension, which E.164 cannot hold' : n.e164 === null ? 'no region to read it (give --country)' : !n.valid ? `${n.e164} is not a valid number` : undefined;
      if (reason !== undefined || n.e164 === null) {
        notFixed.push({ id: n.id, phone: n.phone, e164: n.e164, reason: reason ?? '' });
        continue;
      }
      await updateContact(client, n.id, { phone: n.e164 });
      fixed += 1;
      ctx.log.info(`fixed ${n.id}: ${n.phone} → ${n.e164}`);
    }
    for (const n of notFixed) ctx.log.info(`not fixed ${n.id}: ${n.phone} — ${n.reason}; a person decides`);
  }
  const nationals = national.map(({ id, phone, e164 }) => ({ id, phone, e164 }));
  if (format === 'json') {
    ctx.deps.io.stdout.write(`${JSON.stringify({ groups, national: nationals, fixed, ...(o.fix ? { notFixed } : {}) })}\n`);
  } else {
    const writer = await createListWriter(ctx.deps.io.stdout, format, [
      { key: 'kind', header: 'Kind' },
      { key: 'phone', header: 'Number (E.164)' },
      { key: 'ids', header: 'Contacts' },
      { key: 'stored', header: 'Stored as' },
    ], ctx);
    await writer.write([
      ...groups.map((g) => ({ kind: 'same number', phone: g.phone, ids: g.ids.join(' '), stored: '' })),
      ...nationals.map((n) => ({ kind: 'national format', phone: n.e164 ?? '(no region)', ids: n.id, stored: n.phone })),
    ]);
    await writer.end();
  }
  const invalid = national.filter((n) => n.e164 !== null && !n.valid).length;
  ctx.log.info(
    `${read} contacts read: ${groups.length} number${groups.length === 1 ? '' : 's'} held by several contacts, ${national.length} stored in national format${invalid > 0 ? ` (${invalid} not valid numbers)` : ''}${o.fix ? `, ${fixed} fixed, ${notFixed.length} left for a person` : ''}`,
  );
  return 0;
}
