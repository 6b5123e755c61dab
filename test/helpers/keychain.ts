/**
 * A real Secret Service for the keychain tests, of the test process's own: a D-Bus session bus
 * (dbus-daemon on a socket in a temporary folder) with gnome-keyring's secrets component, unlocked,
 * its keyrings in that folder — never a user's session or keyring. Started on first use where
 * dbus-daemon, gnome-keyring-daemon and secret-tool are installed, and stopped when the process
 * ends; elsewhere the tests skip, saying why (or fail, when CALLCTL_TEST_REQUIRE asks for
 * `keychain`: see required.ts). The CLI's children get no D-Bus address unless a test hands them
 * this one, so no other test reaches a keychain; and every entry callctl writes in a test is named
 * after the test's own config folder (service `callctl:<folder>`).
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installed, skipOrFail, whileWeLive } from './required.js';

export type SecretService = { env: { DBUS_SESSION_BUS_ADDRESS: string } } | { reason: string };

let started: Promise<SecretService> | undefined;

/** The D-Bus address of this process's Secret Service (started on first call), or why there is none. */
export function secretService(): Promise<SecretService> {
  started ??= start();
  return started;
}

/** The D-Bus address to hand a child; skips the test (fails where CALLCTL_TEST_REQUIRE asks for a keychain) without one. */
export async function keychainOrSkip(t: { skip(reason: string): void }): Promise<string | undefined> {
  const ss = await secretService();
  if ('env' in ss) return ss.env.DBUS_SESSION_BUS_ADDRESS;
  t.skip(skipOrFail('keychain', ss.reason));
  return undefined;
}

async function start(): Promise<SecretService> {
  const missing = ['dbus-daemon', 'gnome-keyring-daemon', 'secret-tool'].filter((p) => !installed(p));
  if (missing.length > 0) return { reason: `${missing.join(', ')} not installed (Debian: dbus, gnome-keyring, libsecret-tools)` };
  const dir = mkdtempSync(join(tmpdir(), 'callctl-keyring-'));
  const socket = join(dir, 'bus');
  const address = `unix:path=${socket}`;
  // A session bus with no service directories: nothing is started on demand. With the usual ones,
  // a first request that comes before the unlocked daemon has taken its name makes D-Bus start a
  // second gnome-keyring, which has no login keyring — and the entries fail for good.
  const config = join(dir, 'session.conf');
  writeFileSync(config, `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>${address}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
`);
  whileWeLive('dbus-daemon --nofork --config-file="$1"', [config], dir);
  // Deadlines are generous: a machine busy with the other test files starts daemons slowly.
  for (const end = Date.now() + START_MS; !existsSync(socket); ) {
    if (Date.now() > end) return { reason: `dbus-daemon did not open its socket within ${START_MS / 1000} s` };
    await new Promise((r) => setTimeout(r, 20));
  }
  const run = join(dir, 'run');
  mkdirSync(run, { mode: 0o700 });
  mkdirSync(join(dir, 'data'));
  const env = { PATH: process.env.PATH, HOME: dir, DBUS_SESSION_BUS_ADDRESS: address, XDG_DATA_HOME: join(dir, 'data'), XDG_RUNTIME_DIR: run };
  // It reads the login keyring's password on stdin, creates the keyring unlocked, and leaves a
  // daemon on the bus, which ends with the bus.
  const keyring = spawnSync('gnome-keyring-daemon', ['--unlock', '--components=secrets'], { input: 'callctl-test', env, encoding: 'utf8', timeout: START_MS });
  if (keyring.status !== 0) return { reason: `gnome-keyring-daemon did not start (${keyring.stderr.trim() || keyring.error?.message || `exit ${keyring.status}`})` };
  // A test entry stored and read back: the secrets component may take a moment to answer.
  let why = '';
  for (const end = Date.now() + START_MS; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    why = probe(env);
    if (why === '') return { env: { DBUS_SESSION_BUS_ADDRESS: address } };
  }
  return { reason: why };
}

/** Stores a test entry and reads it back: '' when that works, else why not. */
function probe(env: NodeJS.ProcessEnv): string {
  const attrs = ['service', `callctl-test-probe-${randomUUID()}`, 'username', 'probe'];
  const store = spawnSync('secret-tool', ['store', '--label=callctl test probe', ...attrs], { input: 'probe', env, encoding: 'utf8', timeout: START_MS });
  if (store.status !== 0) return `the Secret Service refused a test entry (${store.stderr.trim() || store.error?.message || `exit ${store.status}`})`;
  const back = spawnSync('secret-tool', ['lookup', ...attrs], { env, encoding: 'utf8', timeout: START_MS });
  spawnSync('secret-tool', ['clear', ...attrs], { env, timeout: START_MS });
  return back.stdout === 'probe' ? '' : 'the Secret Service did not keep a test entry (locked?)';
}

/** How long the session, the keyring and its first answer may take to come up. */
const START_MS = 30_000;

/** The secret stored under callctl's attributes (service, username), or undefined when none. */
export function lookup(address: string, service: string, account: string): string | undefined {
  const r = spawnSync('secret-tool', ['lookup', 'service', service, 'username', account], { env: { PATH: process.env.PATH, DBUS_SESSION_BUS_ADDRESS: address }, encoding: 'utf8', timeout: 10_000 });
  return r.status === 0 && r.stdout !== '' ? r.stdout : undefined;
}

/** Removes, when the test ends, what it may have left in the keychain under its own service name. */
export function clearAfter(t: { after(fn: () => unknown): void }, address: string, service: string): void {
  t.after(() => spawnSync('secret-tool', ['clear', 'service', service], { env: { PATH: process.env.PATH, DBUS_SESSION_BUS_ADDRESS: address }, timeout: 10_000 }));
}
