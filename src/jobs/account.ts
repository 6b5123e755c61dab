/**
 * A job done again (`jobs resume`) or undone (`import undo`) only against the account that ran it:
 * the base URL and the key (by fingerprint) its record keeps must be the ones in effect — exit 2
 * otherwise, before anything is sent. Two accounts can sit behind one base URL and number their
 * contacts alike (1, 2, 3): an undo run with another key would erase the other account's contacts.
 * An undo is strict (docs/people.md, "What undo takes back"): a record that does not say which
 * base URL or key ran it is refused too; a resume of such a record goes on as before.
 */
import { keyFingerprint } from '../bulk/job.js';
import type { JobRecord } from '../bulk/records.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

/** Two base URLs are one (a trailing slash aside). */
export const sameBase = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

export async function refuseOtherAccount(ctx: Context, job: JobRecord, o: { doing: 'resume' | 'undo'; strict: boolean }): Promise<void> {
  const settings = await ctx.settings();
  const name = `job ${job.id}`;
  if (o.strict && (job.baseUrl === undefined || job.key === undefined)) {
    const unsaid = [job.baseUrl === undefined ? 'base URL' : '', job.key === undefined ? 'key' : ''].filter((w) => w !== '').join(' and ');
    throw new UsageError(`${name}'s record does not say which ${unsaid} ran it: an undo cannot tell that it would touch only that account`, 'nothing was sent; undo the contacts by id (callctl contacts rm <id>) after checking them');
  }
  if (job.baseUrl !== undefined && settings.baseUrl !== undefined && !sameBase(job.baseUrl, settings.baseUrl)) {
    throw new UsageError(`${name} ran against ${job.baseUrl}, not ${settings.baseUrl}`, `${o.doing} it where it ran: --base-url ${job.baseUrl}`);
  }
  if (job.key === undefined) return;
  const key = await ctx.apiKey();
  if (key === undefined ? o.strict : keyFingerprint(key) !== job.key) {
    throw new UsageError(`${name} ran with another key than the one in effect`, `${o.doing} it with the key it ran with (its profile, or CALLCTL_API_KEY): another key may be another account, whose contacts it would change`);
  }
}
