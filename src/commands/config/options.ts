/**
 * `callctl config`'s options, typed before any code loads: the action, and the key and value as
 * given. The key is checked by the action itself (keys.ts), after the output format: with both
 * wrong, the format's error is the one shown.
 */
import { UsageError } from '../../errors.js';

export const ACTIONS = ['get', 'set', 'unset', 'list', 'path'] as const;
export type ConfigAction = (typeof ACTIONS)[number];

export interface ConfigOptions {
  action: ConfigAction;
  /** The setting's name (get, set, unset). */
  key: string | undefined;
  /** The new value (set). */
  value: string | undefined;
}

export function configOptions(args: string[]): ConfigOptions {
  const [name, key, value] = args;
  // commander checked the choices; this gives the action its type without a cast.
  const action = ACTIONS.find((a) => a === name);
  if (action === undefined) throw new UsageError(`unknown action ${String(name)}`, 'get, set, unset, list or path');
  return { action, key, value };
}
