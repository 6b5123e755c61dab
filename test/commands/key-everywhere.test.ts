// Every command that needs the key finds it wherever `auth status` finds it (config/key.ts
// `readKey`): here the key is in a real Secret Service (the test's own, helpers/keychain.ts), put
// there by `auth login`, and each such command runs with it — no CALLCTL_API_KEY anywhere. The
// command tree itself is walked, so a command added later is either in this table or named as one
// that needs no key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { buildProgram } from '../../src/program.js';
import type { Io } from '../../src/deps.js';
import { type CliResult, runCli, startCli, tempDir } from '../helpers/cli.js';
import { clearAfter, keychainOrSkip } from '../helpers/keychain.js';
import { writeLeads } from '../helpers/leads.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

/** Commands that never read the key, and why. */
const NO_KEY: Record<string, string> = {
  login: 'takes the key on its input',
  'auth login': 'takes the key on its input',
  'auth logout': 'removes the key without reading it',
  config: 'shows where the key is, never the key',
  sandbox: 'serves its own keys',
  completion: 'prints a script',
  'jobs ls': 'reads the journals only',
  'jobs show': 'reads the journals only',
};

/** Every command of the tree that runs something: the leaves, and `import` (a verb with a subcommand). */
function commandsOfTheTree(): string[] {
  const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() } as unknown as Io;
  const out: string[] = ['import'];
  const walk = (c: Command, path: string[]) => {
    if (c.commands.length === 0 && path.length > 0) out.push(path.join(' '));
    for (const sub of c.commands) walk(sub, [...path, sub.name()]);
  };
  walk(buildProgram(io, () => async () => undefined), []);
  return out.sort();
}

test('every command that needs the key runs with the key in the system keychain', async (t) => {
  const address = await keychainOrSkip(t);
  if (address === undefined) return;
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 4 });
  const dir = tempDir(t);
  clearAfter(t, address, `callctl:${dir}`);
  const env = { CALLCTL_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: address };
  const cli = (args: string[], input?: string) => runCli(args, { env, cwd: dir, ...(input !== undefined ? { input } : {}) });
  const login = await cli(['auth', 'login', '--base-url', sb.baseUrl], `${sb.secretKey}\n`);
  assert.equal(login.code, 0, login.stderr);
  assert.match(login.stderr, /key stored in the system keychain/);
  const masked = `sk_live_…${sb.secretKey.slice(-4)}`;

  const ran = new Map<string, CliResult>();
  /** Runs a command that needs the key: it must have found it (no "no API key", no exit 3). */
  const withKey = async (name: string, args: string[], code = 0, input?: string): Promise<CliResult> => {
    const r = await cli(args, input);
    assert.doesNotMatch(r.stderr, /no API key|keychain/i, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    ran.set(name, r);
    return r;
  };

  await withKey('auth status', ['auth', 'status']);
  await withKey('contacts ls', ['contacts', 'ls']);
  const added = JSON.parse((await withKey('contacts add', ['contacts', 'add', '--first-name', 'Ada', '--phone', '+447400100001', '--json'])).stdout);
  await withKey('contacts get', ['contacts', 'get', added.id]);
  await withKey('contacts edit', ['contacts', 'edit', added.id, '--city', 'Leeds']);
  await withKey('contacts find', ['contacts', 'find', '--phone', '+447400100001']);
  await withKey('contacts dupes', ['contacts', 'dupes']);
  const call = sb.calls()[0]!;
  await withKey('calls ls', ['calls', 'ls']);
  await withKey('calls get', ['calls', 'get', call.id]);
  await withKey('calls summary', ['calls', 'summary']);
  await withKey('calls outcome', ['calls', 'outcome', call.id, 'booked_job']);
  writeFileSync(join(dir, 'outcomes.csv'), `callId,outcome\n${call.id},no_answer\n`);
  await withKey('calls outcome', ['calls', 'outcome', '--from', 'outcomes.csv']);
  await withKey('api', ['api', 'GET', '/contacts']);

  const leads = writeLeads(dir, 3);
  const imported = JSON.parse((await withKey('import', ['import', leads, '--json'])).stdout);
  assert.equal(imported.created, 3);
  const job = JSON.parse((await cli(['jobs', 'ls', '--json'])).stdout).find((j: { kind: string }) => j.kind === 'import').id;
  await withKey('import undo', ['import', 'undo', job, '--dry-run']);
  await withKey('jobs undo', ['jobs', 'undo', job, '--confirm']);

  // An import stopped by Ctrl-C, resumed from its record.
  const slow = writeLeads(dir, 40, 'slow.csv');
  const before = sb.contacts().length;
  const stopped = startCli(['import', slow, '--rate', '4'], { env, cwd: dir });
  await waitFor(() => sb.contacts().length >= before + 2, 30_000, 'two rows stored');
  stopped.child.kill('SIGINT');
  assert.equal((await stopped.result).code, 130);
  const jobs = (await cli(['jobs', 'ls', '--json'])).stdout;
  const interrupted = JSON.parse(jobs).find((j: { state: string }) => j.state === 'interrupted')?.id;
  assert.ok(interrupted, jobs);
  await withKey('jobs resume', ['jobs', 'resume', interrupted]);

  await withKey('contacts rm', ['contacts', 'rm', added.id, '--confirm']);
  await withKey('contacts rm', ['contacts', 'rm', '--phone', '+447400120000', '--confirm']);
  writeFileSync(join(dir, 'erase.csv'), 'phone\n+447400120001\n');
  await withKey('contacts rm', ['contacts', 'rm', '--from', 'erase.csv', '--confirm']);

  // The limit remembered for this base URL and key: found (exit 0) or not yet known (exit 4) — by the key's fingerprint either way.
  const limit = await cli(['limit']);
  assert.ok(limit.code === 0 || limit.code === 4, limit.stderr);
  assert.ok(`${limit.stdout}${limit.stderr}`.includes(masked), `${limit.stdout}${limit.stderr}`);
  ran.set('limit', limit);
  const forget = await withKey('limit', ['limit', 'forget']);
  assert.match(forget.stderr, new RegExp(`(forgot the rate limit remembered|nothing was remembered) for ${sb.baseUrl}.* with the key ${masked}`));

  // Every command of the tree is run above or needs no key.
  assert.deepEqual(commandsOfTheTree(), [...new Set([...ran.keys(), ...Object.keys(NO_KEY)])].sort());
});
