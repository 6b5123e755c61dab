/** The outcome names the account's calls already carry (every page of calls, read once). */
import { allItems } from '../http/paginate.js';
import type { ApiClient } from '../http/client.js';

export async function knownOutcomes(client: ApiClient): Promise<Set<string>> {
  const names = new Set<string>();
  for await (const page of allItems(client, '/calls')) {
    for (const call of page) {
      const o = (call as { outcome?: unknown } | null)?.outcome;
      if (typeof o === 'string' && o !== '') names.add(o);
    }
  }
  return names;
}
