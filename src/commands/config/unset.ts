/** `callctl config unset <key>`: removes a setting from the profile (`apiKey`: logs out). */
import type { Context } from '../../context.js';
import { checkKey } from './keys.js';

export async function run(ctx: Context, rawKey: string | undefined): Promise<number> {
  const key = checkKey(rawKey);
  const store = await ctx.config();
  const name = ctx.profileName;
  const next = { ...store.profile(name) };
  delete next[key];
  await store.writeProfile(name, next);
  ctx.log.info(`${key} unset in profile "${name}"`);
  return 0;
}
