/**
 * A real Secret Service for the keychain tests: the one on this process's D-Bus session, as
 * .ci/run provides it (gnome-keyring, unlocked, under dbus-run-session). The CLI's children get
 * no D-Bus address unless a test hands them this one, so no other test reaches a keychain; and
 * every entry callctl writes in a test is named after the test's own config folder (service
 * `callctl:<folder>`), so no test touches a real user's entry or another test's.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';

/** The D-Bus address to hand a child, or why there is no usable Secret Service. */
export function secretService(): { env: { DBUS_SESSION_BUS_ADDRESS: string } } | { reason: string } {
  const address = process.env.DBUS_SESSION_BUS_ADDRESS;
  if (!address) return { reason: 'no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set): run the tests as .ci/run does, under dbus-run-session with gnome-keyring unlocked' };
  const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: address };
  const attrs = ['service', `callctl-test-probe-${randomUUID()}`, 'username', 'probe'];
  const store = spawnSync('secret-tool', ['store', '--label=callctl test probe', ...attrs], { input: 'probe', env, encoding: 'utf8', timeout: 10_000 });
  if (store.error) return { reason: `secret-tool cannot run (${store.error.message}): install libsecret-tools` };
  if (store.status !== 0) return { reason: `the Secret Service refused a test entry (${store.stderr.trim() || `exit ${store.status}`}): is gnome-keyring running and unlocked?` };
  const back = spawnSync('secret-tool', ['lookup', ...attrs], { env, encoding: 'utf8', timeout: 10_000 });
  spawnSync('secret-tool', ['clear', ...attrs], { env, timeout: 10_000 });
  if (back.stdout !== 'probe') return { reason: 'the Secret Service did not keep a test entry (locked?)' };
  return { env: { DBUS_SESSION_BUS_ADDRESS: address } };
}

/** The secret stored under callctl's attributes (service, username), or undefined when none. */
export function lookup(address: string, service: string, account: string): string | undefined {
  const r = spawnSync('secret-tool', ['lookup', 'service', service, 'username', account], { env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: address }, encoding: 'utf8', timeout: 10_000 });
  return r.status === 0 && r.stdout !== '' ? r.stdout : undefined;
}
