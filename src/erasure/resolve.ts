/**
 * What each erasure request stands for: every contact that is this person — the id given (taken as
 * given), every contact whose number compares equal to the phone given (src/phone/compare.ts:
 * valid or not, national-format twins included), every contact with the e-mail given — with one
 * listing of all contacts for a whole file. The dry run and the refusal without --confirm show it
 * (dry-run.ts).
 */
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import type { NumberKey } from '../phone/compare.js';
import type { Person } from './local-copies.js';
import { nearLine, PeopleIndex, type StoredContact, unreadableLine } from '../contacts/people.js';
import type { ErasureRequest } from './requests.js';
import { lineName } from '../source/open.js';

export type FoundContact = Pick<StoredContact, 'id'> & Partial<StoredContact>;

/** What one request resolves to. */
export interface Resolution {
  request: ErasureRequest;
  contacts: FoundContact[];
  /** Contacts with a phone it gives and an extension where the other has none: named, never erased (nearLines). */
  near?: string[];
}

/**
 * Resolves every request; `index` is the one listing (needed when any request gives a phone or
 * e-mail). A bare line of digits alone is a phone — unless it is the id of a listed contact and no
 * contact has it as a phone: then it is that id (a service whose ids are numbers; read as a phone
 * it would find no one, and the person would be told "found 0"). Both at once cannot be told
 * apart: exit 2 before anything is sent, for a person to say which.
 */
export function resolveAll(requests: ErasureRequest[], index: PeopleIndex | undefined, note: (line: string) => void = () => undefined): Resolution[] {
  return requests.map((request) => {
    const found: FoundContact[] = [];
    const add = (c: FoundContact) => {
      if (!found.some((f) => f.id === c.id)) found.push(c);
    };
    if (request.id !== undefined) add(index?.id(request.id) ?? { id: request.id });
    const near = new Set<string>();
    if (index) {
      for (const number of request.numbers ?? []) {
        for (const c of index.phone(number)) add(c);
        for (const c of index.near(number)) near.add(c.id);
      }
    }
    if (index) for (const email of request.emails ?? []) for (const c of index.email(email)) add(c);
    const byId = request.digitsOnly ? index?.id(request.text) : undefined;
    if (byId !== undefined) {
      if (found.length > 0) {
        throw new UsageError(
          `line ${lineName(request)}: ${request.text} is the id of contact ${byId.id} and the phone of ${found.length === 1 ? `contact ${found[0]?.id}` : `${found.length} contacts`}`,
          'say which: a CSV with an id column or a phone column; nothing was sent',
        );
      }
      note(`line ${lineName(request)}: ${request.text} is read as the id of contact ${byId.id} (no contact has it as a phone)`);
      add(byId);
    }
    const nearOnly = [...near].filter((id) => !found.some((f) => f.id === id));
    return { request, contacts: found, ...(nearOnly.length > 0 ? { near: nearOnly } : {}) };
  });
}

/**
 * The contacts whose address only looks like one a request gives (a Cyrillic `о` for a Latin `o`):
 * not erased — another mailbox, and erasing cannot be undone — but named for a person to check.
 */
export function lookalikeLines(resolutions: Resolution[], index: PeopleIndex | undefined): string[] {
  if (!index) return [];
  return resolutions.flatMap(({ request, contacts }) => {
    const ids = [...new Set((request.emails ?? []).flatMap((e) => index.lookalikes(e).map((c) => c.id)))].filter((id) => !contacts.some((c) => c.id === id));
    return ids.length === 0 ? [] : [`line ${lineName(request)}: ${ids.length === 1 ? `contact ${ids[0]} has an address` : `contacts ${ids.join(', ')} have addresses`} that look like the e-mail asked for but are written with other letters: not erased (check, and erase by id if it is this person)`];
  });
}

/**
 * The contacts with a phone a request gives and an extension where the other has none (a
 * switchboard and one of its lines, docs/people.md): not erased — perhaps another person — but
 * named for a person to check. A request that found only such contacts is refused, not receipted
 * "found 0" (erase-plan.ts).
 */
export function nearLines(resolutions: Resolution[]): string[] {
  return resolutions.flatMap(({ request, near }) => (near === undefined ? [] : [`line ${lineName(request)}: ${nearLine(near, 'not erased')}`]));
}

/** Who each request is, for the search of the operator's own copies. */
export function peopleOf(resolutions: Resolution[]): Array<Person> {
  return resolutions.map(({ request, contacts }) => ({
    request: request.line,
    numbers: [...(request.numbers ?? []), ...contacts.map((c) => c.number)].filter((n): n is NumberKey => n !== undefined),
    emails: [...(request.emails ?? []), ...contacts.flatMap((c) => c.emails ?? [])],
    ids: contacts.map((c) => c.id),
  }));
}

/** The one listing, when a request needs it (a phone, an e-mail) or the people's own copies are searched. */
export async function listingFor(ctx: Context, client: ApiClient, requests: ErasureRequest[], region: string | undefined, force: boolean): Promise<PeopleIndex | undefined> {
  if (!force && !requests.some((r) => (r.numbers?.length ?? 0) > 0 || (r.emails?.length ?? 0) > 0)) return undefined;
  const index = await PeopleIndex.load(client, region, (line) => ctx.log.warn(line));
  ctx.log.info(`read ${index.listed} contacts to find the people requested`);
  const unread = requests.some((r) => (r.numbers?.length ?? 0) > 0) ? unreadableLine(index.unreadable) : undefined;
  if (unread !== undefined) ctx.log.warn(unread);
  return index;
}
