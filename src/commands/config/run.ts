/**
 * `callctl config <get|set|unset|list|path> [key] [value]`: the settings of the current profile.
 * The key is never shown in full (masked), and is only ever set through `callctl login`. `list`
 * and `get` show the value in effect — the one commands use — and where it comes from (flag, env,
 * profile, default), so `CALLCTL_BASE_URL` set in the shell is what `config list` shows. One file
 * a verb, beside this one.
 */
import type { Context } from '../../context.js';
import { requireFormat } from '../../output/format-check.js';
import type { ConfigAction, ConfigOptions } from './options.js';

/** What each verb receives: the context and the typed options (its key and value). */
export interface ConfigVerb {
  run(ctx: Context, o: ConfigOptions): Promise<number>;
}

const VERBS: Record<ConfigAction, () => Promise<ConfigVerb>> = {
  get: () => import('./get.js'),
  set: () => import('./set.js'),
  unset: () => import('./unset.js'),
  list: () => import('./list.js'),
  path: () => import('./path.js'),
};

export async function run(ctx: Context, o: ConfigOptions): Promise<number> {
  const { action } = o;
  if (action === 'list' || action === 'get') requireFormat(`callctl config ${action}`, ctx.globals, ['table', 'json'], 'settings as key=value lines, or JSON with --json');
  else requireFormat(`callctl config ${action}`, ctx.globals, [], action === 'path' ? 'a path' : 'nothing on stdout');
  return (await VERBS[action]()).run(ctx, o);
}
