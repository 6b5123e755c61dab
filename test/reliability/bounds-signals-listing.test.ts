// A signal before a bulk job's rows start — while it reads the contacts first (an import with
// --check-existing, an erasure, an undo) — ends it as Ctrl-C does once rows are under way
// (docs/network.md, "Bounds"): the read aborted at once, one line, exit 130, the lock let go, no
// record of a job that sent nothing; the same command then runs whole. Before, the signal killed
// the process there and left its lock behind. Real processes and signals, the sandbox holding
// every listing page until the test lets go; states polled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CliResult, runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { leadPhone, writeLeads } from '../helpers/leads.js';
import { waitFor } from '../helpers/wait.js';

/** A sandbox that, while `hold` is on, keeps every listing page on the wire until let go. */
async function holdingSandbox(t: Parameters<typeof startTestSandbox>[0]) {
  const state = { hold: false, held: 0, lists: 0 };
  let letGo: () => void = () => undefined;
  let released = new Promise<void>((done) => (letGo = done));
  const sb = await startTestSandbox(t, {
    rateLimit: 0,
    seed: 30,
    latencyMs: 1,
    // Called for every request: from the first listing page after holdLists, every request waits.
    wait: async () => {
      if (!state.hold || (sb.stats().byRoute['GET /contacts'] ?? 0) <= state.lists) return;
      state.held += 1;
      await released;
    },
  });
  t.after(() => letGo());
  return {
    sb,
    state,
    holdLists: () => ((state.hold = true), (state.held = 0), (state.lists = sb.stats().byRoute['GET /contacts'] ?? 0), (released = new Promise<void>((done) => (letGo = done)))),
    letGo: () => ((state.hold = false), letGo()),
  };
}

const files = (config: string) => (existsSync(join(config, 'journals')) ? readdirSync(join(config, 'journals')) : []);

/** Starts `args`, waits for a listing page held on the wire, sends `signal`, and returns how it ended within 5 s. */
async function signalWhileListing(h: Awaited<ReturnType<typeof holdingSandbox>>, args: string[], env: Record<string, string | undefined>, signal: NodeJS.Signals): Promise<CliResult> {
  h.holdLists();
  const run = startCli(args, { env });
  let ended: CliResult | undefined;
  void run.result.then((r) => (ended = r));
  await waitFor(() => h.state.held > 0, 20_000, 'a listing page held on the wire');
  run.child.kill(signal);
  await waitFor(() => ended !== undefined, 5_000, `the command ended after ${signal}`);
  h.letGo();
  return ended!;
}

test('SIGTERM while an import reads the contacts (--check-existing): exit 130 in one line, no lock, no record; the same command then imports every row', async (t) => {
  const h = await holdingSandbox(t);
  const env = envFor(h.sb, t);
  const file = writeLeads(tempDir(t), 12);
  const before = h.sb.contacts().length;
  const r = await signalWhileListing(h, ['import', file, '--check-existing'], env, 'SIGTERM');
  assert.equal(r.code, 130, `exit ${r.code} ${r.signal}: ${r.stderr}`);
  assert.match(r.stderr, /^callctl: interrupted \(SIGTERM\) before its first row \(nothing was changed by this run: run the same command again\)\n$/m);
  assert.deepEqual(files(env.CALLCTL_CONFIG_DIR as string).filter((n) => n.endsWith('.lock') || n.endsWith('.jsonl')), [], 'no lock, no journal: the job did not happen');
  assert.equal(h.sb.contacts().length, before, 'nothing sent');

  const again = await runCli(['import', file, '--check-existing', '--json'], { env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).created, 12);
});

test('SIGHUP while an erasure reads the contacts: exit 130 in one line, nothing erased, no receipt; the same command then erases the person', async (t) => {
  const h = await holdingSandbox(t);
  const env = envFor(h.sb, t);
  const dir = tempDir(t);
  await runCli(['import', writeLeads(dir, 3)], { env });
  const requests = join(dir, 'requests.csv');
  writeFileSync(requests, `phone\n${leadPhone(1)}\n`);
  const before = h.sb.contacts().length;
  const r = await signalWhileListing(h, ['contacts', 'rm', '--from', requests, '--confirm'], env, 'SIGHUP');
  assert.equal(r.code, 130, `exit ${r.code} ${r.signal}: ${r.stderr}`);
  assert.match(r.stderr, /^callctl: interrupted \(SIGHUP\) while reading the contacts, before any was erased \(nothing was changed by this run: run the same command again\)\n$/m);
  assert.equal(h.sb.contacts().length, before, 'nothing erased');
  assert.equal(existsSync(`${requests}.erasures.jsonl`), false, 'no receipt');
  assert.deepEqual(files(env.CALLCTL_CONFIG_DIR as string).filter((n) => n.endsWith('.lock')), []);

  const again = await runCli(['contacts', 'rm', '--from', requests, '--confirm', '--json'], { env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).erased, 1);
  assert.equal(h.sb.contacts().some((c) => c.phone === leadPhone(1)), false);
});

test('SIGINT while an undo reads the contacts: exit 130 in one line, nothing erased, the import\'s lock let go; the same command then undoes it', async (t) => {
  const h = await holdingSandbox(t);
  const env = envFor(h.sb, t);
  const before = h.sb.contacts().length;
  const imported = await runCli(['import', writeLeads(tempDir(t), 6), '--json'], { env });
  assert.equal(imported.code, 0, imported.stderr);
  const job = (JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ id: string }>)[0]!.id;
  const r = await signalWhileListing(h, ['import', 'undo', job, '--confirm'], env, 'SIGINT');
  assert.equal(r.code, 130, `exit ${r.code} ${r.signal}: ${r.stderr}`);
  assert.match(r.stderr, /^callctl: interrupted \(SIGINT\) while reading the contacts, before any was changed \(nothing was changed by this run: run the same command again\)\n$/m);
  assert.equal(h.sb.contacts().length, before + 6, 'nothing erased');
  assert.deepEqual(files(env.CALLCTL_CONFIG_DIR as string).filter((n) => n.endsWith('.lock')), [], 'the lock let go');

  const again = await runCli(['import', 'undo', job, '--confirm', '--json'], { env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).erased, 6);
  assert.equal(h.sb.contacts().length, before);
});
