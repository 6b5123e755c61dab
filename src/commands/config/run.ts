/**
 * `callctl config <get|set|unset|list|path> [key] [value]`: the settings of the current profile.
 * The key is never shown in full (masked), and is only ever set through `callctl login`. `list`
 * and `get` show the value in effect — the one commands use — and where it comes from (flag, env,
 * profile, default), so `CALLCTL_BASE_URL` set in the shell is what `config list` shows. One file
 * a verb, beside this one.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { requireFormat } from '../../output/format-check.js';

/** What each verb receives: the context, the current profile's name, and its arguments. */
export interface ConfigVerb {
  run(ctx: Context, key: string | undefined, value: string | undefined): Promise<number>;
}

const VERBS: Record<string, () => Promise<ConfigVerb>> = {
  get: () => import('./get.js'),
  set: () => import('./set.js'),
  unset: () => import('./unset.js'),
  list: () => import('./list.js'),
  path: () => import('./path.js'),
};

export async function run(ctx: Context, args: string[]): Promise<number> {
  const [action, key, value] = args as [string, string | undefined, string | undefined];
  const load = VERBS[action];
  if (!load) throw new UsageError(`unknown action ${action}`, 'get, set, unset, list or path');
  if (action === 'list' || action === 'get') requireFormat(`callctl config ${action}`, ctx.globals, ['table', 'json'], 'settings as key=value lines, or JSON with --json');
  else requireFormat(`callctl config ${action}`, ctx.globals, [], action === 'path' ? 'a path' : 'nothing on stdout');
  return (await load()).run(ctx, key, value);
}
