/**
 * The operating system's credential store — macOS Keychain, Windows Credential Manager, the
 * Secret Service on Linux (gnome-keyring, KWallet, KeePassXC) — through @napi-rs/keyring
 * (README, "Keys"). The binding is native: it stays outside the bundle (scripts/build.mjs) and is
 * loaded here, on first use, by the commands that store, read or remove a key. Whatever goes
 * wrong — the binding missing for this platform, no D-Bus session, no Secret Service, a locked
 * store, a store that does not answer — is one `KeychainUnreachable` with a one-line reason, so a
 * caller can fall back to the 0600 file; nothing here makes callctl fail to start.
 */
import type { KeychainRef } from './profile.js';

/** No store could be used: `message` is the reason, one line. */
export class KeychainUnreachable extends Error {}

/**
 * How long one call to the store may take. A desktop may show an unlock prompt for a locked
 * keychain, which takes a person a while; a D-Bus call that never answers must not hold a
 * command for ever.
 */
const CALL_TIMEOUT_MS = 60_000;

interface Entry {
  setPassword(password: string): Promise<void>;
  getPassword(): Promise<string | null>;
  deletePassword(): Promise<boolean>;
}
type EntryClass = new (service: string, account: string, options?: { linux?: { store?: 'secret-service' | 'keyutils' } }) => Entry;

let binding: Promise<EntryClass> | undefined;

/** The first line of an error's message, cut short: the binding's messages can be long. */
function reason(err: unknown): string {
  const text = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Why no store answered, in an operator's words where the binding's are known. */
function unreachableWhy(err: unknown): string {
  const text = reason(err);
  if (/DBUS_SESSION_BUS_ADDRESS|autolaunch|NoServer|Failed to connect to socket/i.test(text)) return `no D-Bus session to reach a Secret Service (${text})`;
  if (/ServiceUnknown|org\.freedesktop\.secrets|not activatable/i.test(text)) return `no Secret Service on the D-Bus session (${text})`;
  return text;
}

/** The binding's AsyncEntry (calls run off the main thread), or KeychainUnreachable. */
function load(): Promise<EntryClass> {
  binding ??= (async () => {
    try {
      const mod = (await import('@napi-rs/keyring')) as unknown as { AsyncEntry?: EntryClass; default?: { AsyncEntry?: EntryClass } };
      const AsyncEntry = mod.AsyncEntry ?? mod.default?.AsyncEntry;
      if (typeof AsyncEntry !== 'function') throw new Error('@napi-rs/keyring has no AsyncEntry');
      return AsyncEntry;
    } catch (err) {
      throw new KeychainUnreachable(`the keychain library cannot be loaded here (${reason(err)})`);
    }
  })();
  return binding;
}

/**
 * The entry of `ref`. On Linux it is pinned to the Secret Service: the binding's own fallback is
 * the kernel keyring, which forgets everything at reboot — the 0600 file is the fallback here.
 */
async function entry(ref: KeychainRef): Promise<Entry> {
  const AsyncEntry = await load();
  try {
    return new AsyncEntry(ref.service, ref.account, { linux: { store: 'secret-service' } });
  } catch (err) {
    throw new KeychainUnreachable(`no keychain reachable: ${unreachableWhy(err)}`);
  }
}

/** One call to the store, bounded in time; any failure is KeychainUnreachable. */
async function call<T>(what: string, op: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new KeychainUnreachable(`the keychain did not answer within ${CALL_TIMEOUT_MS / 1000} s (${what})`)), CALL_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([op(), late]);
  } catch (err) {
    if (err instanceof KeychainUnreachable) throw err;
    throw new KeychainUnreachable(`the keychain could not ${what}: ${unreachableWhy(err)}`);
  } finally {
    clearTimeout(timer);
  }
}

/** Stores `key` under `ref` and reads it back: a store that does not keep it is unreachable. */
export async function saveToKeychain(ref: KeychainRef, key: string): Promise<void> {
  const e = await entry(ref);
  await call('store the key', () => e.setPassword(key));
  const back = await call('read the key back', () => e.getPassword());
  if (back !== key) throw new KeychainUnreachable('the keychain did not keep the key (it may be locked)');
}

/** The key under `ref`, or null when the store holds none there. */
export async function readFromKeychain(ref: KeychainRef): Promise<string | null> {
  const e = await entry(ref);
  return call('read the key', () => e.getPassword());
}

/** Removes the key under `ref`: true when one was there. */
export async function removeFromKeychain(ref: KeychainRef): Promise<boolean> {
  const e = await entry(ref);
  return call('remove the key', () => e.deletePassword());
}
