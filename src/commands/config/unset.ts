/** `callctl config unset <key>`: removes a setting from the profile (`apiKey`: `auth logout`, its alias). */
import type { Context } from '../../context.js';
import { checkKey } from './keys.js';
import type { ConfigOptions } from './options.js';

export async function run(ctx: Context, o: ConfigOptions): Promise<number> {
  const key = checkKey(o.key);
  if (key === 'apiKey') return (await import('../auth/logout.js')).logout(ctx);
  const store = await ctx.config();
  const name = ctx.profileName;
  const next = { ...store.rawProfile(name) };
  delete next[key];
  await store.writeProfile(name, next);
  ctx.log.info(`${key} unset in profile "${name}"`);
  return 0;
}
