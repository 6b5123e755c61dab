// SIGTERM and SIGHUP end any job within 2 s as Ctrl-C does (docs/network.md, "Bounds"): the
// requests on the wire get a grace, then are aborted — however long --timeout lets them take —
// the journal is flushed, the summary printed, the lock let go, exit 130, and --resume sends
// exactly what is left. SIGHUP comes with a terminal that is gone: writing the summary fails
// there, and the job still ends as cleanly. Real processes, real signals, states polled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { BIN, cliEnv, type CliResult, runCli, startCli, tempDir } from '../helpers/cli.js';
import { assertEachOnce, writeLeads } from '../helpers/leads.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';
import { waitFor } from '../helpers/wait.js';

const KEY = `sk_live_${'h'.repeat(24)}`;

/** A service that stores the first `answered` rows, then holds every request (accepted, never answered) until `heal`. */
async function stallingService(t: { after(fn: () => unknown): void }, answered: number) {
  const stored = new Set<string>();
  const held: ServerResponse[] = [];
  const state = { healed: false };
  const server = await scriptedServer(t, (hit, res) => {
    if (!state.healed && stored.size >= answered) return void held.push(res);
    const phone = JSON.parse(hit.body).phone as string;
    const known = stored.has(phone);
    stored.add(phone);
    json(res, known ? 200 : 201, { id: `c_${phone}`, phone });
  });
  t.after(() => held.forEach((r) => r.destroy()));
  return { ...server, stored, held, heal: () => ((state.healed = true), held.forEach((r) => r.destroy())) };
}

/** The journal folder's files: the open journal's lines, and whether a lock is left. */
function journalState(config: string): { lines: Array<Record<string, unknown>>; locks: string[] } {
  const names = readdirSync(join(config, 'journals'));
  const open = names.filter((n) => /^[0-9a-f]+\.jsonl$/.test(n));
  assert.equal(open.length, 1, names.join(' '));
  const lines = readFileSync(join(config, 'journals', open[0]!), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  return { lines, locks: names.filter((n) => n.endsWith('.lock')) };
}

for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
  test(`${signal} with requests held on the wire (--timeout 600000): ends within 2 s, journal flushed, lock let go${signal === 'SIGHUP' ? ', its terminal gone' : ', summary printed'}; --resume stores the rest once`, async (t) => {
    const svc = await stallingService(t, 5);
    const config = tempDir(t);
    const file = writeLeads(tempDir(t), 20);
    const env = { CALLCTL_BASE_URL: svc.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: config };
    const run = startCli(['--timeout', '600000', 'import', file], { env });
    let ended: CliResult | undefined;
    void run.result.then((r) => (ended = r));
    await waitFor(() => svc.held.length >= 3, 20_000, 'requests held on the wire');
    if (signal === 'SIGHUP') {
      // The terminal is gone: whatever the job writes now meets a closed pipe (EPIPE).
      run.child.stdout!.destroy();
      run.child.stderr!.destroy();
    }
    const sentAt = Date.now();
    run.child.kill(signal);
    // 2 s in the contract; the deadline polled here leaves room for a loaded machine, not for a request's --timeout.
    await waitFor(() => ended !== undefined, 5_000, `the job ended after ${signal}`);
    const took = Date.now() - sentAt;
    assert.equal(ended!.code, 130, `exit ${ended!.code} ${ended!.signal} after ${took} ms: ${ended!.stderr}`);
    if (signal === 'SIGTERM') {
      assert.match(ended!.stderr, /stopping: no new rows; \d+ rows? under way: those with a request on the wire get 1\.5 s to finish, the others are left unfinished for --resume \(Ctrl-C again stops them all\)/);
      assert.match(ended!.stderr, /^interrupted import of /m);
      assert.match(ended!.stderr, /callctl: interrupted after 5 rows were stored \(the journal is saved: run the same command with --resume\)\n$/);
    }
    const { lines, locks } = journalState(config);
    assert.deepEqual(locks, [], 'the lock let go');
    assert.equal(lines.filter((l) => l.s === 'created').length, 5);
    assert.equal((lines.at(-1)!.end as { interrupted?: boolean } | undefined)?.interrupted, true, 'the run closed with its end line');

    svc.heal();
    const again = await runCli(['import', file, '--resume', '--json'], { env });
    assert.equal(again.code, 0, again.stderr);
    const s = JSON.parse(again.stdout);
    // A request the stopped run wrote may reach the service late and be stored: its retry is then
    // counted uncertain (an answer lost, no creation time to tell) — a row stored once all the same.
    assert.deepEqual([s.skipped, s.created + s.matched + (s.uncertain ?? 0), s.failed], [5, 15, 0], again.stdout);
    assertEachOnce([...svc.stored], 20);
  });
}

test('SIGHUP on a terminal that hung up (script(1)\'s pty, its master closed): exit 130, not an abort at exit; the journal and lock as Ctrl-C leaves them', { skip: spawnSync('script', ['--version']).error ? 'script(1) is not installed (util-linux)' : false }, async (t) => {
  const svc = await stallingService(t, 5);
  const config = tempDir(t);
  const dir = tempDir(t);
  const file = writeLeads(dir, 20);
  const codeFile = join(dir, 'code.txt');
  const env = { CALLCTL_BASE_URL: svc.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: config };
  // The shell inside the terminal stays (a trap) to write callctl's exit code; callctl's stdio is the pty.
  const inner = `trap : HUP; "${process.execPath}" "${BIN}" --timeout 600000 import "${file}"; echo $? > "${codeFile}"`;
  const terminal = spawn('script', ['-qfec', `sh -c '${inner}'`, '/dev/null'], { env: cliEnv(env), stdio: 'ignore' });
  const gone = new Promise((done) => terminal.on('exit', done));
  t.after(() => terminal.kill('SIGKILL'));
  await waitFor(() => svc.held.length >= 3, 20_000, 'requests held on the wire');
  const lock = readdirSync(join(config, 'journals')).find((n) => n.endsWith('.lock'))!;
  const pid = (JSON.parse(readFileSync(join(config, 'journals', lock), 'utf8')) as { pid: number }).pid;
  terminal.kill('SIGKILL'); // the terminal goes: its master closes, every write to it fails (EIO)
  await gone;
  process.kill(pid, 'SIGHUP');
  await waitFor(() => existsSync(codeFile), 5_000, 'callctl ended after SIGHUP');
  assert.equal(readFileSync(codeFile, 'utf8').trim(), '130', 'exit 130 (134 is Node 20 aborting at exit on the hung-up terminal)');
  const { lines, locks } = journalState(config);
  assert.deepEqual(locks, []);
  assert.equal((lines.at(-1)!.end as { interrupted?: boolean } | undefined)?.interrupted, true);
  svc.heal();
  const again = await runCli(['import', file, '--resume', '--json'], { env });
  assert.equal(again.code, 0, again.stderr);
  assertEachOnce([...svc.stored], 20);
});
