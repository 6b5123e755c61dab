/** Waits (polling every 20 ms, bounded) until `cond` holds — e.g. until a sandbox has stored N rows. */
export async function waitFor(cond: () => boolean, ms = 30_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition not met in time');
}
