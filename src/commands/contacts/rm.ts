/**
 * `callctl contacts rm <id> --confirm`: the erasure of a person (docs/api.md, Contacts) — the
 * contact, every call and recording attached to them, irreversibly. Never sent without --confirm;
 * without it the contact is read so the refusal names who would go and how many calls. Like every
 * erasure it leaves a receipt (the config folder's `erasures/<date>.jsonl`, or `--receipts`), and
 * names the files callctl wrote that hold the person (read before the DELETE: their phone and
 * e-mail), cleaned with `--purge-local`. `--phone`, `--email` and `--from` are erasure requests
 * (src/erasure/).
 */
import type { Context } from '../../context.js';
import { ApiError, CallctlError, UsageError } from '../../errors.js';
import { eraseContact, getContact } from '../../api/contacts.js';
import { allCalls, contactOfCall } from '../../api/calls.js';
import { ownCopyFiles, type Person, reportLocalCopies, searchLocalCopies } from '../../erasure/local-copies.js';
import { storedContact } from '../../contacts/people.js';
import { newRequestId, ReceiptsFile, receiptsPathOf } from '../../erasure/receipts.js';
import type { ApiClient } from '../../http/client.js';
import { requireFormat } from '../../output/format-check.js';
import { regionOf } from '../../phone/e164.js';
import type { RmOptions } from './rm-options.js';

/**
 * What the refusal says would go: "contact ct_1 (Ada Lovelace, +447400100000) and their 3 calls
 * with their recordings". Read-only, and a failure to read never changes the answer: without
 * --confirm the command is a usage error (exit 2) whatever the service says.
 */
async function whatWouldGo(ctx: Context, id: string): Promise<string> {
  try {
    const client = await ctx.api();
    const contact = await getContact(client, id);
    const name = [contact.firstName, contact.lastName].filter((v) => typeof v === 'string' && v !== '').join(' ');
    const who = [name || '(no name)', typeof contact.phone === 'string' ? contact.phone : '(no phone)'].join(', ');
    // The API lists calls with no filter: every page is read to count this contact's.
    let calls = 0;
    for await (const page of allCalls(client)) calls += page.filter((c) => contactOfCall(c) === id).length;
    return `this would erase contact ${id} (${who}) and their ${calls} call${calls === 1 ? '' : 's'} with their recordings, irreversibly`;
  } catch (err) {
    if (!(err instanceof CallctlError)) throw err;
    if (err instanceof ApiError && err.status === 404) return `there is no contact ${id} (404): nothing to erase`;
    return `this would erase contact ${id} with all their calls and recordings, irreversibly (could not read it: ${err.message})`;
  }
}

/** Who the contact is, for the search of the files callctl wrote: read before it is gone. */
async function personOf(ctx: Context, client: ApiClient, id: string): Promise<Person> {
  const person: Person = { request: 1, numbers: [], emails: [], ids: [id] };
  try {
    const stored = storedContact(await getContact(client, id), regionOf(undefined, (await ctx.settings()).country));
    if (stored?.number) person.numbers.push(stored.number);
    person.emails.push(...(stored?.emails ?? []));
  } catch (err) {
    if (!(err instanceof CallctlError)) throw err;
    if (!(err instanceof ApiError && err.status === 404)) ctx.log.warn(`could not read contact ${id} (${err.message}): your own files are searched for its id only`);
  }
  return person;
}

export async function run(ctx: Context, o: RmOptions): Promise<number> {
  if (o.kind === 'requests') {
    const { runErasure } = await import('../../erasure/run-erasure.js');
    return runErasure(ctx, o);
  }
  const { id } = o;
  requireFormat('callctl contacts rm', ctx.globals, ['table', 'json', 'ndjson'], 'a receipt (on stderr, or as JSON with --json)');
  if (!o.confirm) {
    const what = await whatWouldGo(ctx, id);
    const missing = what.startsWith('there is no contact');
    throw new UsageError(`${what}; nothing was erased`, missing ? 'check the id with callctl contacts ls; an erasure also needs --confirm' : `add --confirm to erase: callctl contacts rm ${id} --confirm`);
  }
  const format = ctx.format;
  const client = await ctx.api();
  const configPath = (await ctx.config()).path;
  const receipts = new ReceiptsFile(receiptsPathOf({ receipts: o.receipts, from: undefined, stream: false, cwd: ctx.deps.cwd, configPath, now: ctx.deps.now() }), o.receipts === undefined, (t) => ctx.log.redact(t));
  const files = ownCopyFiles(configPath);
  const person = files.length > 0 ? await personOf(ctx, client, id) : undefined;
  const at = () => new Date(ctx.deps.now()).toISOString();
  receipts.requestId = newRequestId();
  receipts.open();
  try {
    const erasure = await eraseContact(client, id);
    if (!erasure.erased) {
      receipts.add({ request: 1, found: 0, at: at() });
      ctx.log.info(`receipt → ${receipts.path} (request ${receipts.requestId})`);
      throw erasure.notFound;
    }
    if (erasure.earlierAttempt) ctx.log.warn(`contact ${id} is gone: an earlier attempt erased it before its answer was lost`);
    const erasedAt = at();
    receipts.add({ request: 1, id, erased: true, at: erasedAt });
    if (format === 'json' || format === 'ndjson') ctx.deps.io.stdout.write(`${JSON.stringify({ id, erased: true, at: erasedAt })}\n`);
    else ctx.log.info(`erased contact ${id} with their calls and recordings at ${erasedAt}`);
    ctx.log.info(`receipt → ${receipts.path} (request ${receipts.requestId})`);
    if (person) reportLocalCopies(ctx.log, searchLocalCopies(files, [person], o.purgeLocal, (copy) => receipts.add({ cleaned: copy.file, rows: copy.rows, at: at() })), { purge: o.purgeLocal, dryRun: false });
  } finally {
    receipts.close();
  }
  return 0;
}
