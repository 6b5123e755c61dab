/**
 * Where a profile's secret key lives, and the three things done with it: store (`login`), read
 * (a command that calls the API), remove (`auth logout`, `config unset apiKey`). The keychain
 * first; the 0600 config file when `--insecure-storage` asks for it or no keychain is reachable,
 * with one line saying so. A key left in the file by an earlier version keeps working, and the
 * next `login` moves the key into the keychain (docs/commands/auth.md, "Where the key lives").
 */
import { AuthError } from '../errors.js';
import type { KeychainRef, Profile } from './profile.js';
import type { Settings } from './settings.js';
import type { ConfigStore } from './store.js';

/** What `saveKey` did: where the key went, and the line to show when the keychain was not used. */
export interface Saved {
  storage: 'keychain' | 'file';
  /** Set when the file was used although the keychain was wanted: one line, why. */
  fallback?: string;
  /** Set when an old copy could not be removed: one line. */
  leftover?: string;
}

/** The keychain entry of a profile of this config file. */
export function keychainRef(store: ConfigStore, profile: string): KeychainRef {
  return { service: store.keychainService, account: profile };
}

/**
 * Stores `key` for `name`, with the profile's other settings (`fields`) — in the keychain unless
 * `insecure`, else (or when no keychain answers) in the file. The profile keeps one copy: the file
 * loses its key when the keychain has it, and an entry left in the keychain is removed when the
 * key goes to the file.
 */
export async function saveKey(store: ConfigStore, name: string, key: string, fields: Profile, insecure: boolean): Promise<Saved> {
  const { KeychainUnreachable, saveToKeychain, removeFromKeychain } = await import('./keychain.js');
  const before = store.rawProfile(name);
  const ref = keychainRef(store, name);
  let fallback: string | undefined;
  if (!insecure) {
    try {
      await saveToKeychain(ref, key);
      try {
        await store.writeProfile(name, { ...before, ...fields, apiKey: undefined, keychain: ref });
      } catch (err) {
        // A profile that cannot be written would leave an entry nothing points at.
        await removeFromKeychain(ref).catch(() => undefined);
        throw err;
      }
      // An entry under another service (the config folder moved) is left for its own folder.
      return { storage: 'keychain' };
    } catch (err) {
      if (!(err instanceof KeychainUnreachable)) throw err;
      fallback = err.message;
    }
  }
  store.checkKeyPrivate(false);
  await store.writeProfile(name, { ...before, ...fields, apiKey: key, keychain: undefined });
  const saved: Saved = { storage: 'file', ...(fallback !== undefined ? { fallback } : {}) };
  const old = validRef(before.keychain);
  if (old !== undefined && fallback === undefined) {
    try {
      await removeFromKeychain(old);
    } catch (err) {
      saved.leftover = `the key stored earlier in the keychain (service "${old.service}", account "${old.account}") could not be removed: ${(err as Error).message}`;
    }
  }
  return saved;
}

/** A keychain reference as stored, when it has the right shape. */
function validRef(v: unknown): KeychainRef | undefined {
  const r = v as KeychainRef | undefined;
  return r && typeof r.service === 'string' && typeof r.account === 'string' ? r : undefined;
}

/**
 * The key of the settings in effect, wherever it lives — CALLCTL_API_KEY, the file, the system
 * keychain: the one way every command that needs the key (and `auth status`, per profile) finds it.
 * Undefined when there is none; AuthError (exit 3) when it is in a keychain that cannot give it.
 */
export async function readKey(settings: Settings): Promise<string | undefined> {
  if (settings.keyStorage !== 'keychain' || settings.keychain === undefined) return settings.apiKey;
  return readKeychainKey(settings.keychain, settings.profileName);
}

/** The key kept in the keychain for profile `name`, or AuthError (exit 3) saying why there is none. */
async function readKeychainKey(ref: KeychainRef, name: string): Promise<string> {
  const { KeychainUnreachable, readFromKeychain } = await import('./keychain.js');
  const hint = 'run callctl login again (--insecure-storage keeps it in the config file), or set CALLCTL_API_KEY';
  let key: string | null;
  try {
    key = await readFromKeychain(ref);
  } catch (err) {
    if (!(err instanceof KeychainUnreachable)) throw err;
    throw new AuthError(`the key of profile "${name}" is in the system keychain, which cannot be used here: ${err.message}`, hint, 'keychain_unreachable');
  }
  if (key === null || key === '') {
    throw new AuthError(`the system keychain holds no key for profile "${name}" (service "${ref.service}", account "${ref.account}"; is it locked?)`, hint, 'keychain_no_key');
  }
  return key;
}

/** What `removeKey` did. */
export interface Removed {
  /** Where a key was removed from. */
  from: Array<'keychain' | 'file'>;
}

/**
 * Removes the key of `name` from the keychain and from the file; the other settings stay. The
 * profile's own entry is looked for even when the file holds the key (an entry can outlive a
 * fallback). When the entry the profile points at cannot be removed, KeychainUnreachable is
 * thrown and the profile still points at it, so a later logout can remove it.
 */
export async function removeKey(store: ConfigStore, name: string): Promise<Removed> {
  const before = store.rawProfile(name);
  const from: Removed['from'] = [];
  const ref = validRef(before.keychain) ?? (before.keychain === undefined ? keychainRef(store, name) : undefined);
  if (ref !== undefined) {
    const { KeychainUnreachable, removeFromKeychain } = await import('./keychain.js');
    try {
      if (await removeFromKeychain(ref)) from.push('keychain');
    } catch (err) {
      // Only an entry the profile points at must be removed; the default one is tried in passing.
      if (!(err instanceof KeychainUnreachable) || before.keychain !== undefined) throw err;
    }
  }
  if (before.apiKey !== undefined) from.push('file');
  if (before.apiKey !== undefined || before.keychain !== undefined) await store.writeProfile(name, { ...before, apiKey: undefined, keychain: undefined });
  return { from };
}
