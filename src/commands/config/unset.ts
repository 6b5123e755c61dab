/** `callctl config unset <key>`: removes a setting from the profile (`apiKey`: logs out). */
import type { Context } from '../../context.js';
import { checkKey } from './keys.js';
import type { ConfigOptions } from './options.js';

export async function run(ctx: Context, o: ConfigOptions): Promise<number> {
  const key = checkKey(o.key);
  const store = await ctx.config();
  const name = ctx.profileName;
  const next = { ...store.profile(name) };
  delete next[key];
  await store.writeProfile(name, next);
  ctx.log.info(`${key} unset in profile "${name}"`);
  return 0;
}
