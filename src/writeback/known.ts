/**
 * The outcome names the account's calls already carry, read from the first pages of calls. The
 * API has no list of outcomes and no search, and a single `calls outcome` must not read 100,000
 * calls at the rate limit to warn of a typo: at most KNOWN_PAGES pages are read (with a vocabulary
 * set by `config set outcomes`, none are).
 */
import { allCalls } from '../api/calls.js';
import type { ApiClient } from '../http/client.js';

const KNOWN_PAGES = 20;

/** The names seen, and how many calls were read to see them. */
export async function knownOutcomes(client: ApiClient): Promise<{ names: Set<string>; read: number; complete: boolean }> {
  const names = new Set<string>();
  let read = 0;
  let pages = 0;
  for await (const page of allCalls(client)) {
    for (const call of page) {
      const o = call.outcome;
      if (typeof o === 'string' && o !== '') names.add(o);
    }
    read += page.length;
    if (++pages >= KNOWN_PAGES) return { names, read, complete: false };
  }
  return { names, read, complete: true };
}
