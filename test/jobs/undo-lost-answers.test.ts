// Undo takes back everything an import created, whatever happened during it (docs/people.md,
// "What undo takes back"). Each row's intent is written before it is sent, so a row whose answer
// was lost — a fault, a kill -9 with the POST on the wire, a full disk — is known in the journal;
// a retry that meets the contact its own first attempt stored counts as created, never matched.
// The truth is the service's state: after the import and its undo it is what it was before,
// contact by contact. Where nothing tells whether a lost attempt stored the contact (a service
// without creation times), the import says `uncertain` and the undo names it, erasing it only
// with --include-uncertain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';
import { accountsService } from '../helpers/accounts-service.js';
import { leadPhone, writeLeads } from '../helpers/leads.js';
import { waitFor } from '../helpers/wait.js';
import type { Sandbox } from '../../src/sandbox/index.js';

const FIELDS = ['firstName', 'lastName', 'email', 'phone', 'address', 'city', 'state', 'zipCode', 'tags', 'status', 'notes'] as const;

/** The sandbox's contacts as a person reads them: id → fields. */
const state = (sb: Sandbox) =>
  new Map(
    sb.contacts().map((c) => {
      const r = c as unknown as Record<string, unknown>;
      return [c.id, FIELDS.map((f) => `${f}=${Array.isArray(r[f]) ? [...(r[f] as unknown[])].sort().join(';') : String(r[f] ?? '')}`).join('|')];
    }),
  );

const jobOf = async (env: Record<string, string | undefined>) => ((JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ id: string; kind: string }>).find((j) => j.kind === 'import') as { id: string }).id;

/** Runs the undo (again with --resume while a fault failed a row), and returns its summaries. */
async function undo(env: Record<string, string | undefined>, job: string, extra: string[] = []) {
  let r = await runCli(['import', 'undo', job, '--confirm', '--json', ...extra], { env });
  for (let i = 0; i < 3 && r.code === 6; i++) r = await runCli(['import', 'undo', job, '--confirm', '--json', '--resume', ...extra], { env });
  assert.equal(r.code, 0, r.stderr);
  return r;
}

test('5 % faults that store the row and lose the answer: every row counted created, none matched; after import and undo the service is as before, contact by contact', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 5, faults: 0.05, faultDelayMs: 400 });
  const before = state(sb);
  const env = envFor(sb, t);
  const file = writeLeads(tempDir(t), 150);
  let r = await runCli(['--timeout', '150', '--concurrency', '4', 'import', file, '--json'], { env });
  const counts = { created: 0, matched: 0 };
  for (let i = 0; ; i++) {
    const s = JSON.parse(r.stdout);
    counts.created += s.created;
    counts.matched += s.matched;
    assert.equal(s.uncertain, undefined, 'the sandbox gives creation times: nothing is uncertain');
    if (r.code === 0 || i >= 3) break;
    r = await runCli(['--timeout', '150', '--concurrency', '4', 'import', file, '--json', '--resume'], { env });
  }
  assert.equal(r.code, 0, r.stderr);
  assert.ok(sb.stats().faults > 0, 'faults were met');
  assert.deepEqual(counts, { created: 150, matched: 0 });
  const u = JSON.parse((await undo(env, await jobOf(env))).stdout);
  assert.equal(u.cannotRestore, 0, 'nothing taken for a match that cannot be given back');
  sb.setFaults(0);
  assert.deepEqual(state(sb), before);
});

/** A sandbox whose `n`-th POST is held (arrived, not yet stored) until the test lets it go. */
async function heldPostSandbox(t: Parameters<typeof startTestSandbox>[0], n: number) {
  let release: () => void = () => undefined;
  const released = new Promise<void>((done) => (release = done));
  let held = false;
  const sb = await startTestSandbox(t, {
    rateLimit: 0,
    seed: 3,
    latencyMs: 1,
    wait: async () => {
      if (!held && (sb.stats().byRoute['POST /contacts'] ?? 0) === n) {
        held = true;
        await released;
      }
    },
  });
  return { sb, release, held: () => held };
}

/** An import of 40 rows killed -9 with its 12th POST held on the wire (released by `release`); the service's state before it. */
async function killedWithPostOnTheWire(t: Parameters<typeof startTestSandbox>[0], extra: string[] = [], file?: (dir: string) => string) {
  const { sb, release, held } = await heldPostSandbox(t, 12);
  const before = state(sb);
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const run = startCli(['--concurrency', '1', 'import', file ? file(dir) : writeLeads(dir, 40), ...extra], { env });
  await waitFor(() => held(), 30_000, 'the 12th POST on the wire');
  run.child.kill('SIGKILL');
  assert.equal((await run.result).signal, 'SIGKILL');
  return { sb, release, before, env };
}

test('kill -9 with a POST on the wire that the service then stores: the undo finds it by its phone and erases it — the service as before', async (t) => {
  const { sb, release, before, env } = await killedWithPostOnTheWire(t);
  release();
  await waitFor(() => sb.contacts().some((c) => c.phone === leadPhone(11)), 30_000, 'the held row stored');
  const held = sb.contacts().find((c) => c.phone === leadPhone(11))!.id;

  // The dry run names the contact it found by the phone, as every other it would erase.
  const dry = await runCli(['import', 'undo', await jobOf(env), '--dry-run', '--format', 'csv'], { env });
  assert.equal(dry.code, 0, dry.stderr);
  const would = dry.stdout.trim().split('\n').slice(1).filter((l) => l.endsWith(',would erase,,'));
  assert.equal(would.length, 12, dry.stdout);
  assert.ok(would.includes(`13,${held},would erase,,`), dry.stdout);

  const r = await undo(env, await jobOf(env));
  assert.match(r.stderr, /1 row was sent without a journaled answer/);
  assert.equal(JSON.parse(r.stdout).erased, 12);
  assert.deepEqual(state(sb), before);
});

test('kill -9 with a POST on the wire that the service never stores, then someone else stores that phone: the undo keeps and names their contact — created after the send, but not what the row sent', async (t) => {
  const { sb, before, env } = await killedWithPostOnTheWire(t); // the 12th POST is never answered nor stored
  const other = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Someone', lastName: 'Else', phone: leadPhone(11) } });
  assert.equal(other.status, 201);
  const theirs = (other.body as { id: string }).id;

  const r = await undo(env, await jobOf(env));
  const summary = JSON.parse(r.stdout);
  assert.deepEqual([summary.erased, summary.uncertain], [11, 1], r.stdout);
  assert.match(r.stderr, new RegExp(`kept contact ${theirs} \\(line 13\\): created after the row was sent, but its firstName, lastName are not what the row sent: someone else may have stored the phone since`));
  assert.deepEqual(state(sb), new Map([...before, [theirs, state(sb).get(theirs)!]]), 'every contact the import created is gone; theirs is kept');
});

test('kill -9 with a POST on the wire that the service never stores, then someone else stores that phone with what the row sent and a field of their own: the undo keeps and names it', async (t) => {
  const { sb, before, env } = await killedWithPostOnTheWire(t);
  const other = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Lead11', lastName: 'Test', email: 'lead11@example.com', notes: 'their own', phone: leadPhone(11) } });
  const theirs = (other.body as { id: string }).id;

  const r = await undo(env, await jobOf(env));
  assert.deepEqual([JSON.parse(r.stdout).erased, JSON.parse(r.stdout).uncertain], [11, 1], r.stdout);
  assert.match(r.stderr, new RegExp(`kept contact ${theirs} \\(line 13\\): created after the row was sent, but it holds notes, which the row did not send`));
  assert.deepEqual(state(sb), new Map([...before, [theirs, state(sb).get(theirs)!]]));
});

for (const extra of [[], ['--check-existing']]) {
  test(`kill -9 with a POST on the wire that the service never stores, someone else stores the phone with their own fields, then --resume${extra.length > 0 ? ' (--check-existing)' : ''} merges into it: uncertain, not created — the undo keeps their contact`, async (t) => {
    const { sb, before, env } = await killedWithPostOnTheWire(t, extra);
    const other = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Someone', lastName: 'Else', city: 'Paris', notes: 'their own', phone: leadPhone(11) } });
    const theirs = (other.body as { id: string }).id;
    const file = (JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ file: string }>)[0]!.file;
    const resumed = await runCli(['import', file, '--resume', '--json', ...extra], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual([JSON.parse(resumed.stdout).created, JSON.parse(resumed.stdout).uncertain], [28, 1], resumed.stdout);

    const r = await undo(env, await jobOf(env));
    assert.deepEqual([JSON.parse(r.stdout).erased, JSON.parse(r.stdout).uncertain], [39, 1], r.stdout);
    assert.match(r.stderr, new RegExp(`matched by this import after an attempt whose answer was lost.*: ${theirs} — kept`));
    assert.deepEqual(state(sb), new Map([...before, [theirs, state(sb).get(theirs)!]]), 'every contact the import created is gone; theirs is kept');
    assert.match(state(sb).get(theirs)!, /city=Paris\|.*notes=their own/);
  });
}

test('kill -9 with a POST on the wire that the service never stores, then --restart creates that row: the undo of the abandoned run keeps the contact the restart created, and each undo erases only its own', async (t) => {
  const { sb, before, env } = await killedWithPostOnTheWire(t); // the 12th POST is never answered nor stored
  const abandoned = await jobOf(env);
  const file = (JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ file: string }>)[0]!.file;
  const restart = await runCli(['import', file, '--restart', '--json'], { env });
  assert.equal(restart.code, 0, restart.stderr);
  const restarted = await jobOf(env);
  assert.notEqual(restarted, abandoned);
  const row12 = sb.contacts().find((c) => c.phone === leadPhone(11))!.id;

  const r = await undo(env, abandoned);
  const summary = JSON.parse(r.stdout);
  assert.deepEqual([summary.erased, summary.notStored], [11, 1], r.stdout);
  assert.match(r.stderr, new RegExp(`kept contact ${row12} \\(line 13\\): holds the row's phone, but import ${restarted} created it`));
  assert.ok(sb.contacts().some((c) => c.id === row12), "the restart's contact is kept by the abandoned run's undo");

  assert.equal(JSON.parse((await undo(env, restarted)).stdout).erased, 29, 'the restart erases what it created, row 12 too');
  assert.deepEqual(state(sb), before);
});

test('an undo killed -9 with the DELETE of what a lost send stored on the wire, then resumed: that contact is receipted erased once — not "never stored"', async (t) => {
  let heldPost = false;
  let heldDelete = false;
  let release: () => void = () => undefined;
  const released = new Promise<void>((done) => (release = done));
  let releaseDelete: () => void = () => undefined;
  const deleteReleased = new Promise<void>((done) => (releaseDelete = done));
  const deletes = () => Object.entries(sb.stats().byRoute).reduce((n, [route, k]) => (route.startsWith('DELETE') ? n + k : n), 0);
  const sb = await startTestSandbox(t, {
    rateLimit: 0,
    seed: 3,
    latencyMs: 1,
    wait: async () => {
      if (!heldPost && (sb.stats().byRoute['POST /contacts'] ?? 0) === 12) {
        heldPost = true;
        await released; // stored once the import is killed
      } else if (!heldDelete && deletes() === 12) {
        heldDelete = true;
        await deleteReleased; // carried out once the undo is killed
      }
    },
  });
  const before = state(sb);
  const env = envFor(sb, t);
  const file = writeLeads(tempDir(t), 40);
  const imported = startCli(['--concurrency', '1', 'import', file], { env });
  await waitFor(() => heldPost, 30_000, 'the 12th POST on the wire');
  imported.child.kill('SIGKILL');
  await imported.result;
  release();
  await waitFor(() => sb.contacts().some((c) => c.phone === leadPhone(11)), 30_000, 'the held row stored');
  const job = await jobOf(env);

  const undoing = startCli(['--concurrency', '1', 'import', 'undo', job, '--confirm'], { env });
  await waitFor(() => heldDelete, 30_000, "the DELETE of the held row's contact on the wire");
  undoing.child.kill('SIGKILL');
  assert.equal((await undoing.result).signal, 'SIGKILL');
  releaseDelete();
  await waitFor(() => !sb.contacts().some((c) => c.phone === leadPhone(11)), 30_000, 'that DELETE carried out');

  const r = await runCli(['import', 'undo', job, '--confirm', '--resume', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.deepEqual([summary.erased, summary.skipped, summary.notStored], [1, 11, undefined], r.stdout);
  const receipts = readFileSync(`${file}.undo.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { item: number; did: string });
  assert.deepEqual(receipts.map((x) => `${x.item}:${x.did}`), Array.from({ length: 12 }, (_, i) => `${i + 2}:erased`), 'one receipt a contact, line 13 too');
  assert.deepEqual(state(sb), before);

  // Run again, it knows that row is done: nothing sent, nothing counted erased twice.
  const again = await runCli(['import', 'undo', job, '--confirm', '--json'], { env });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /nothing to undo for job \w+: job \w+ undid it already; nothing was sent/);
  assert.equal(JSON.parse(again.stdout).erased, 0);
});

test('kill -9 with a POST of a row that sent only its phone, never stored; someone else then stores that phone with their name: the undo keeps their contact', async (t) => {
  const { sb, before, env } = await killedWithPostOnTheWire(t, [], (dir) => {
    const path = join(dir, 'phones.csv');
    writeFileSync(path, `Mobile\n${Array.from({ length: 20 }, (_, i) => leadPhone(i)).join('\n')}\n`);
    return path;
  });
  const other = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Someone', lastName: 'Else', phone: leadPhone(11) } });
  const theirs = (other.body as { id: string }).id;

  const r = await undo(env, await jobOf(env));
  assert.deepEqual([JSON.parse(r.stdout).erased, JSON.parse(r.stdout).uncertain], [11, 1], r.stdout);
  assert.match(r.stderr, new RegExp(`kept contact ${theirs} \\(line 13\\): created after the row was sent, but it holds firstName, lastName, which the row did not send`));
  assert.deepEqual(state(sb), new Map([...before, [theirs, state(sb).get(theirs)!]]));
});

/** A preload that fills the disk under the journals after `after` writes: every later write there fails with ENOSPC. */
function fullDisk(dir: string, after: number): string {
  const path = join(dir, 'full-disk.cjs');
  writeFileSync(
    path,
    `const fs = require('node:fs');
const fds = new Set(); let writes = 0;
const open = fs.openSync;
fs.openSync = function (p, ...rest) { const fd = open.call(this, p, ...rest); if (String(p).includes('journals') && String(p).endsWith('.jsonl')) fds.add(fd); return fd; };
const write = fs.writeSync;
fs.writeSync = function (fd, ...rest) {
  if (fds.has(fd) && ++writes > ${after}) { const e = new Error('ENOSPC: no space left on device, write'); e.code = 'ENOSPC'; e.errno = -28; e.syscall = 'write'; throw e; }
  return write.call(this, fd, ...rest);
};
`,
  );
  return path;
}

test('a full disk stops the import with rows on the wire: --resume counts them created, not matched, and the undo leaves the service as before', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3, latencyMs: 30 });
  const before = state(sb);
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const file = writeLeads(dir, 60);
  const stopped = await runCli(['--concurrency', '4', 'import', file], { env: { ...env, NODE_OPTIONS: `--require ${fullDisk(dir, 40)}` } });
  assert.notEqual(stopped.code, 0, 'the full disk stopped it');
  const stored = sb.contacts().length - before.size;
  assert.ok(stored > 0 && stored < 60, `${stored} rows stored when the disk filled`);

  const resumed = await runCli(['import', file, '--resume', '--json'], { env });
  assert.equal(resumed.code, 0, resumed.stderr);
  const s = JSON.parse(resumed.stdout);
  assert.equal(s.matched, 0, `no row the stopped run stored is called matched: ${resumed.stderr}`);
  assert.equal(sb.contacts().length - before.size, 60);
  await undo(env, await jobOf(env));
  assert.deepEqual(state(sb), before);
});

const KEY = `sk_live_${'u'.repeat(24)}`;

test('a service that fills a field itself (a default status): a lost answer\'s retry that meets its own contact is created, not uncertain — the default learnt from the import\'s 201 answers; the undo leaves the service empty', async (t) => {
  const svc = await accountsService(t, [KEY], { defaults: { status: 'new' }, lose: (n) => n % 5 === 0 });
  const env = { CALLCTL_BASE_URL: svc.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: tempDir(t) };
  const dir = tempDir(t);
  const imported = await runCli(['import', writeLeads(dir, 20), '--json'], { env, cwd: dir });
  assert.equal(imported.code, 0, imported.stderr);
  const s = JSON.parse(imported.stdout);
  assert.deepEqual([s.created, s.matched, s.uncertain], [20, 0, undefined], imported.stdout);
  assert.equal(svc.contacts(KEY).length, 20);
  assert.ok(svc.posts() > 20, 'answers were lost and their rows sent again');

  const r = await undo(env, await jobOf(env));
  assert.equal(JSON.parse(r.stdout).erased, 20, r.stdout);
  assert.deepEqual(svc.contacts(KEY), []);
});

test('a service without creation times: a row whose answer was lost is uncertain — never called matched; the undo names it and erases it only with --include-uncertain; every intent is in the journal before its POST', async (t) => {
  const config = tempDir(t);
  const journalText = () => readdirSync(join(config, 'journals')).map((n) => readFileSync(join(config, 'journals', n), 'utf8')).join('');
  const missing: string[] = [];
  const svc = await accountsService(t, [KEY], {
    createdAt: false,
    lose: (n) => n === 3,
    onPost: (_key, body) => {
      if (!journalText().includes(`"p":"${String(body.phone)}"`)) missing.push(String(body.phone));
    },
  });
  const env = { CALLCTL_BASE_URL: svc.baseUrl, CALLCTL_API_KEY: KEY, CALLCTL_CONFIG_DIR: config };
  const dir = tempDir(t);
  const file = writeLeads(dir, 5);
  const imported = await runCli(['import', file, '--json'], { env, cwd: dir });
  assert.equal(imported.code, 0, imported.stderr);
  assert.deepEqual(missing, [], 'each POST went after its intent was written');
  const s = JSON.parse(imported.stdout);
  assert.deepEqual([s.created, s.matched, s.uncertain], [4, 0, 1]);
  assert.match(imported.stderr, /uncertain +1 +\(an attempt's answer was lost/);

  const job = await jobOf(env);
  const kept = await undo(env, job);
  assert.match(kept.stderr, /1 contact was matched by this import after an attempt whose answer was lost, and the service did not tell whether that attempt created it: 3 — kept/);
  assert.deepEqual([JSON.parse(kept.stdout).erased, JSON.parse(kept.stdout).uncertain], [4, 1]);
  assert.deepEqual(svc.contacts(KEY).map((c) => c.id), ['3']);

  const all = await undo(env, job, ['--include-uncertain']);
  assert.equal(JSON.parse(all.stdout).erased, 1);
  assert.deepEqual(svc.contacts(KEY), []);
});
