/** `callctl config set <key> <value>`: checks the value and stores it in the profile. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { explainSettings, type Sourced } from '../../config/settings.js';
import { checkKey, parseValue, shown, whence } from './keys.js';
import type { ConfigOptions } from './options.js';

export async function run(ctx: Context, o: ConfigOptions): Promise<number> {
  const key = checkKey(o.key);
  const { value } = o;
  if (value === undefined) throw new UsageError(`config set ${key} needs a value`);
  const parsed = await parseValue(key, value);
  const store = await ctx.config();
  const name = ctx.profileName;
  const profile = store.rawProfile(name);
  await store.writeProfile(name, { ...profile, [key]: parsed });
  ctx.log.info(`${key} set to ${String(parsed)} in profile "${name}"`);
  // A flag or a variable in effect hides the profile's value: say so, or the operator is misled.
  const hidden: Sourced<unknown> | undefined = explainSettings(ctx.globals, ctx.deps.env, { ...profile, [key]: parsed })[key];
  if (hidden && hidden.source !== 'profile') ctx.log.warn(`${whence(hidden)} takes precedence over the profile: commands use ${shown(key, hidden.value)}`);
  return 0;
}
