/** `callctl config get <key>`: one setting in effect (the key masked), its source on stderr. */
import type { Context } from '../../context.js';
import { explainSettings, type Sourced } from '../../config/settings.js';
import { checkKey, SET_BY, shown, whence } from './keys.js';
import type { ConfigOptions } from './options.js';

export async function run(ctx: Context, o: ConfigOptions): Promise<number> {
  const key = checkKey(o.key);
  const store = await ctx.config();
  const out = ctx.deps.io.stdout;
  const s: Sourced<unknown> | undefined = explainSettings(ctx.globals, ctx.deps.env, store.profile(ctx.profileName))[key];
  if (s === undefined) {
    ctx.log.info(`${key} is not set (set it with ${SET_BY[key]})`);
    return 0;
  }
  if (ctx.format === 'json') out.write(`${JSON.stringify({ key, value: key === 'apiKey' ? shown(key, s.value) : s.value, source: whence(s) })}\n`);
  else {
    out.write(`${shown(key, s.value)}\n`);
    ctx.log.info(`(from ${whence(s)})`);
  }
  return 0;
}
