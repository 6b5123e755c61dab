/**
 * `callctl auth logout` (and `config unset apiKey`, its alias): removes the profile's key from
 * the system keychain and from the config file; its other settings stay.
 */
import type { Context } from '../../context.js';
import { envValue } from '../../deps.js';
import { RuntimeError } from '../../errors.js';
import { requireFormat } from '../../output/format-check.js';
import type { AuthLogoutOptions } from './options.js';

export async function run(ctx: Context, _o: AuthLogoutOptions): Promise<number> {
  requireFormat('callctl auth logout', ctx.globals, [], 'nothing on stdout');
  return logout(ctx);
}

/** Removes the key of the profile in effect and says where from. */
export async function logout(ctx: Context): Promise<number> {
  const store = await ctx.config();
  const name = ctx.profileName;
  const { removeKey } = await import('../../config/key.js');
  const { KeychainUnreachable } = await import('../../config/keychain.js');
  let from: string[];
  try {
    from = (await removeKey(store, name)).from;
  } catch (err) {
    if (!(err instanceof KeychainUnreachable)) throw err;
    throw new RuntimeError(
      'keychain_unreachable',
      `the key of profile "${name}" is still in the system keychain: ${err.message}`,
      `run callctl auth logout again where the keychain can be unlocked, or remove the entry "${store.keychainService}" / "${name}" with the system's keychain tool`,
    );
  }
  const where = from.map((f) => (f === 'keychain' ? 'the system keychain' : store.path)).join(' and ');
  ctx.log.info(from.length > 0 ? `logged out: profile "${name}", key removed from ${where}` : `profile "${name}" had no stored key: nothing to remove`);
  if (envValue(ctx.deps.env, 'CALLCTL_API_KEY') !== undefined) ctx.log.warn('CALLCTL_API_KEY is still set in this environment: commands use it');
  return 0;
}
