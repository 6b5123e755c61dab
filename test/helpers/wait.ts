/**
 * Waits (polling every 20 ms, bounded) until `cond` holds — e.g. until a sandbox has stored N rows,
 * or until a request is answered again. A condition may be async; one that throws counts as not
 * yet. Past the deadline it fails, naming `what`.
 */
export async function waitFor(cond: () => boolean | Promise<boolean>, ms = 30_000, what = 'condition'): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (await Promise.resolve().then(cond).catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what} not met in time`);
}
