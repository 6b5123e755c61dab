/**
 * `callctl calls ls`: one page, or pages streamed; `--outcome`/`--since`/`--until`/`--contact`
 * filter while paging. The columns are the fields the calls have (src/api/calls.ts).
 */
import type { Context } from '../../context.js';
import { callCsvColumns, callTableColumns, contactOfCall, fieldsOf, type ListedCall, listCalls } from '../../api/calls.js';
import { ApiError, UsageError } from '../../errors.js';
import { getContact } from '../../api/contacts.js';
import type { ApiClient } from '../../http/client.js';
import { runList } from '../list.js';
import type { CallsLsOptions } from './ls-options.js';

/** Keeps the calls with the outcome, started in [since, until), of the contacts; a call without a start time has none. */
function callFilter({ outcome, since, until }: CallsLsOptions, contacts: Set<string> | undefined): ((c: ListedCall) => boolean) | undefined {
  if (outcome === undefined && since === undefined && until === undefined && contacts === undefined) return undefined;
  return (c) => {
    if (outcome !== undefined && c.outcome !== outcome) return false;
    if (contacts !== undefined && !contacts.has(contactOfCall(c) ?? '')) return false;
    if (since === undefined && until === undefined) return true;
    const at = typeof c.startedAt === 'string' ? Date.parse(c.startedAt) : Number.NaN;
    if (Number.isNaN(at)) return false;
    return (since === undefined || at >= since) && (until === undefined || at < until);
  };
}

/**
 * The contact ids `--contact` stands for: an id as given, or a phone's person — every contact
 * `contacts find --phone` returns (src/contacts/people.ts). A bare value is a phone as in a file of
 * erasure requests (src/contacts/asked.ts); an e-mail is taken as an id.
 */
async function contactIds(ctx: Context, client: ApiClient, o: CallsLsOptions): Promise<Set<string> | undefined> {
  if (o.contact === undefined) return undefined;
  const { askedKind, phoneOf } = await import('../../contacts/asked.js');
  const { regionOf } = await import('../../phone/e164.js');
  const region = regionOf(o.country, (await ctx.settings()).country);
  const text = o.contact.trim();
  const hint = 'give a contact id, or the phone in international format (+44…) or with --country';
  if (askedKind(text) !== 'phone') {
    if (text === '.' || text === '..') throw new UsageError(`--contact ${o.contact}: the id "${text}" cannot be sent as a path segment`, hint);
    // An id no contact has (a typo, a contact erased) is said, as a phone no contact has is: an
    // empty list alone cannot tell it from a contact without calls.
    try {
      await getContact(client, text);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      ctx.log.info(`${text}: no contact has this id`);
    }
    return new Set([text]);
  }
  let number;
  try {
    number = phoneOf(text, undefined, region);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new UsageError(`--contact ${o.contact}: ${err.message}`, hint);
  }
  const { PeopleIndex, nearLine, unreadableLine } = await import('../../contacts/people.js');
  const people = await PeopleIndex.load(client, region, (line) => ctx.log.warn(line));
  const ids = people.phone(number).map((c) => c.id);
  const near = people.near(number).map((c) => c.id);
  if (near.length > 0) ctx.log.warn(nearLine(near, 'their calls are not listed'));
  const unread = unreadableLine(people.unreadable);
  if (unread !== undefined) ctx.log.warn(unread);
  ctx.log.info(`${number.e164 ?? text}: ${ids.length === 0 ? 'no contact has this phone' : `contact${ids.length === 1 ? '' : 's'} ${ids.join(', ')}`}`);
  return new Set(ids);
}

export async function run(ctx: Context, o: CallsLsOptions): Promise<number> {
  const client = await ctx.api();
  const contacts = await contactIds(ctx, client, o);
  const filter = callFilter(o, contacts);
  // What the calls read say of a contact: none of them having a contact field is not "no calls".
  let linked = false;
  const read: ListedCall[] = [];
  const watch = contacts === undefined ? filter : (item: ListedCall) => {
    if (!linked && contactOfCall(item) !== undefined) linked = true;
    else if (!linked && read.length < 100) read.push(item);
    return filter?.(item) ?? true;
  };
  const code = await runList(ctx, o, { list: listCalls, table: callTableColumns, csv: callCsvColumns, ...(watch ? { filter: watch } : {}) });
  if (contacts !== undefined && !linked && read.length > 0) {
    throw new UsageError('the calls carry no contact field (contactId, contact_id or contact): --contact cannot tell whose they are', `their fields: ${fieldsOf(read).join(', ')}`);
  }
  return code;
}
