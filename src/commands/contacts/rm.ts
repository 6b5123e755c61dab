/**
 * `callctl contacts rm <id> --confirm`: the erasure of a person (seed §4 rule 3) — the contact,
 * every call and recording attached to them, irreversibly. Never sent without --confirm.
 */
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import { eraseContact } from '../../api/contacts.js';

export async function run(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<number> {
  const id = args[0] as string;
  if (opts.confirm !== true) {
    throw new UsageError(`this would erase contact ${id} with all their calls and recordings, irreversibly; nothing was sent`, `add --confirm to erase: callctl contacts rm ${id} --confirm`);
  }
  const format = ctx.format;
  const client = await ctx.api();
  try {
    await eraseContact(client, id);
  } catch (err) {
    // A DELETE retried after a lost answer meets 404 when the first attempt went through.
    if (err instanceof ApiError && err.status === 404 && err.attempts > 1) {
      ctx.log.warn(`contact ${id} is gone: an earlier attempt erased it before its answer was lost`);
    } else throw err;
  }
  const at = new Date(ctx.deps.now()).toISOString();
  if (format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify({ id, erased: true, at })}\n`);
  else ctx.log.info(`erased contact ${id} with their calls and recordings at ${at}`);
  return 0;
}
