/**
 * The operating system's credential store — macOS Keychain, Windows Credential Manager, the
 * Secret Service on Linux (gnome-keyring, KWallet, KeePassXC) — through @napi-rs/keyring
 * (docs/commands/auth.md, "Where the key lives"). The binding is native: it stays outside the bundle (scripts/build.mjs) and is
 * loaded in a child process (below) by the commands that store, read or remove a key. Whatever
 * goes wrong — the binding missing for this platform, no D-Bus session, no Secret Service, a
 * locked store, a store that does not answer within CALL_TIMEOUT_MS — is one `KeychainUnreachable`
 * with a one-line reason, so a caller can fall back to the 0600 file; nothing here makes callctl
 * fail to start.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { KeychainRef } from './profile.js';

/** No store could be used: `message` is the reason, one line. */
export class KeychainUnreachable extends Error {}

/**
 * How long one call to the store may take (docs/commands/auth.md, "Where the key lives"): a D-Bus session that accepts a
 * connection and never answers must not hold a command — past this, the file is used, with one
 * line. A locked desktop keychain answers at once (locked), it does not wait for a person.
 */
export const CALL_TIMEOUT_MS = 10_000;

/**
 * The binding is called in a process of its own, never in this one: its constructor connects to
 * D-Bus synchronously, and a bus that accepts and never answers blocked the main thread — no timer
 * fired, and a worker thread stuck there keeps the process from ever exiting. A child can be
 * killed. It gets the binding's path, the operation and the entry's names as arguments, the key
 * (to store) on stdin, and answers one line of JSON on stdout: the key never appears in an
 * argument or the environment. `set` reads the key back: a store that does not keep it is
 * unreachable.
 */
const CHILD = `
const [binding, op, service, account] = process.argv.slice(1);
const answer = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
let input = '';
process.stdin.setEncoding('utf8').on('data', (d) => (input += d)).on('end', async () => {
  let mod;
  try { mod = require(binding); } catch (e) { return answer({ load: String(e && e.message || e) }); }
  const AsyncEntry = mod.AsyncEntry || (mod.default && mod.default.AsyncEntry);
  if (typeof AsyncEntry !== 'function') return answer({ load: '@napi-rs/keyring has no AsyncEntry' });
  let entry;
  try { entry = new AsyncEntry(service, account, { linux: { store: 'secret-service' } }); } catch (e) { return answer({ none: String(e && e.message || e) }); }
  try {
    if (op === 'get') return answer({ value: await entry.getPassword() });
    if (op === 'delete') return answer({ value: await entry.deletePassword() });
    await entry.setPassword(input);
    answer({ value: (await entry.getPassword()) === input });
  } catch (e) {
    answer({ error: String(e && e.message || e) });
  }
});
`;

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

let bindingPath: string | undefined;

/** Where the binding is (resolved here, loaded only in the child), or KeychainUnreachable. */
function binding(): string {
  try {
    bindingPath ??= createRequire(import.meta.url).resolve('@napi-rs/keyring');
    return bindingPath;
  } catch (err) {
    throw new KeychainUnreachable(`the keychain library cannot be loaded here (${reason(err)})`);
  }
}

/**
 * One operation on the entry of `ref`, in a child process bounded by CALL_TIMEOUT_MS; any failure
 * is KeychainUnreachable. On Linux the entry is pinned to the Secret Service: the binding's own
 * fallback is the kernel keyring, which forgets everything at reboot — the 0600 file is the
 * fallback here.
 */
function call<T>(op: 'get' | 'set' | 'delete', what: string, ref: KeychainRef, input = ''): Promise<T> {
  const path = binding();
  return new Promise<T>((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CHILD, path, op, ref.service, ref.account], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    let settled = false;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done(() => reject(new KeychainUnreachable(`the keychain did not answer within ${CALL_TIMEOUT_MS / 1000} s (${what})`)));
    }, CALL_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    child.on('error', (err) => done(() => reject(new KeychainUnreachable(`the keychain could not ${what}: ${reason(err)}`))));
    child.on('close', () =>
      done(() => {
        let answer: { value?: unknown; error?: string; load?: string; none?: string };
        try {
          answer = JSON.parse(out) as typeof answer;
        } catch {
          return reject(new KeychainUnreachable(`the keychain could not ${what}: its helper process ended without an answer`));
        }
        if (answer.load !== undefined) return reject(new KeychainUnreachable(`the keychain library cannot be loaded here (${reason(answer.load)})`));
        if (answer.none !== undefined) return reject(new KeychainUnreachable(`no keychain reachable: ${unreachableWhy(answer.none)}`));
        if (answer.error !== undefined) return reject(new KeychainUnreachable(`the keychain could not ${what}: ${unreachableWhy(answer.error)}`));
        resolve(answer.value as T);
      }),
    );
  });
}

/** Stores `key` under `ref` and reads it back: a store that does not keep it is unreachable. */
export async function saveToKeychain(ref: KeychainRef, key: string): Promise<void> {
  const kept = await call<boolean>('set', 'store the key', ref, key);
  if (kept !== true) throw new KeychainUnreachable('the keychain did not keep the key (it may be locked)');
}

/** The key under `ref`, or null when the store holds none there. */
export async function readFromKeychain(ref: KeychainRef): Promise<string | null> {
  const key = await call<string | null>('get', 'read the key', ref);
  return typeof key === 'string' ? key : null;
}

/** Removes the key under `ref`: true when one was there. */
export async function removeFromKeychain(ref: KeychainRef): Promise<boolean> {
  return (await call<boolean>('delete', 'remove the key', ref)) === true;
}
