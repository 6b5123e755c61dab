// `import undo` end to end against the sandbox (docs/commands/jobs.md, "import undo"): an import with new and
// matching rows (--existing merge --check-existing), a person editing one created contact and one
// merged field afterwards, then the undo — dry run, refusal without --confirm, the real run — and
// the sandbox compared with its state before the import, contact by contact. Running it again
// sends nothing; --include-changed undoes what was kept; an import that did not read the contacts
// says what it cannot give back; erasures, writebacks and dry runs are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, type SandboxAnswer, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';
import type { Sandbox } from '../../src/sandbox/index.js';

const FIELDS = ['firstName', 'lastName', 'email', 'phone', 'address', 'city', 'state', 'zipCode', 'tags', 'status', 'notes'] as const;

/** A contact's fields as a person reads them: empty and absent alike, tags as a set. */
function view(c: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of FIELDS) {
    const v = c[f];
    const text = Array.isArray(v) ? [...v].map(String).sort().join(';') : v === undefined || v === null ? '' : String(v);
    if (text !== '') out[f] = text;
  }
  return out;
}

/** The sandbox's contacts: id → fields. */
const state = (sb: Sandbox) => new Map(sb.contacts().map((c) => [c.id, view(c as unknown as Record<string, unknown>)]));
const writes = (sb: Sandbox) => {
  const r = sb.stats().byRoute;
  return (r['POST /contacts'] ?? 0) + (r['PATCH /contacts/{id}'] ?? 0) + (r['DELETE /contacts/{id}'] ?? 0);
};

const LEADS = [
  'First Name,Last Name,Phone,Email,City,Status,Tags',
  // seed 0 (Ada Lovelace, +447400100000): renamed, given a city and other tags
  'Augusta,King,+447400100000,,London,,vip;2026',
  // seed 1: given an e-mail and a status
  ',,+447400100001,grace@example.com,,customer,',
  'Nova,One,+447400900001,nova@example.com,Leeds,lead,',
  'Nova,Two,+447400900002,,York,,',
  'Nova,Three,+447400900003,,Hull,,',
  'Bad,Phone,12345,,,,',
  'Nova,Again,+447400900001,,,,',
].join('\n');

async function importJob(t: Parameters<typeof tempDir>[0], sb: Sandbox, env: Record<string, string | undefined>, args: string[] = ['--existing', 'merge', '--check-existing']) {
  const dir = tempDir(t);
  const file = join(dir, 'leads.csv');
  writeFileSync(file, `${LEADS}\n`);
  const r = await runCli(['import', file, '--json', ...args], { env });
  assert.equal(r.code, 6, r.stderr); // one rejected, one duplicate
  const summary = JSON.parse(r.stdout);
  assert.deepEqual([summary.created, summary.matched, summary.rejected, summary.duplicates], [3, 2, 1, 1]);
  const ls = await runCli(['jobs', 'ls', '--json'], { env });
  const job = (JSON.parse(ls.stdout) as Array<{ id: string; kind: string }>).find((j) => j.kind === 'import');
  assert.ok(job, ls.stdout);
  return { file, id: job.id };
}

const patch = async (sb: Sandbox, id: string, body: Record<string, unknown>): Promise<SandboxAnswer> => {
  const r = await sandboxRequest(sb, 'PATCH', `/contacts/${id}`, { body });
  assert.equal(r.status, 200);
  return r;
};

test('undo: created contacts erased, merged fields given back — but what a person changed since is kept and named; state as before the import, contact by contact', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 4 });
  const env = envFor(sb, t);
  const before = state(sb);
  const { file, id } = await importJob(t, sb, env);
  const created = sb.contacts().filter((c) => !before.has(c.id));
  assert.equal(created.length, 3);
  const [novaOne, novaTwo, novaThree] = ['One', 'Two', 'Three'].map((n) => created.find((c) => c.lastName === n)!);
  const seed0 = sb.contacts().find((c) => c.phone === '+447400100000')!;
  const seed1 = sb.contacts().find((c) => c.phone === '+447400100001')!;
  assert.equal(seed1.status, 'customer', 'the import merged its status');

  // A person works on the data after the import: one created contact, one merged field.
  await patch(sb, novaTwo!.id, { city: 'Bradford' });
  await patch(sb, seed1.id, { status: 'vip' });

  // The dry run reads each contact and changes nothing.
  const writesBefore = writes(sb);
  const dry = await runCli(['import', 'undo', id, '--dry-run', '--json'], { env });
  assert.equal(dry.code, 0, dry.stderr);
  const d = JSON.parse(dry.stdout);
  assert.deepEqual([d.job, d.dryRun, d.erased, d.restored, d.kept, d.cannotRestore, d.failed, d.receiptsFile], [id, true, 2, 2, 2, 0, 0, null]);
  assert.equal(writes(sb), writesBefore, 'a dry run changes nothing');
  assert.match(dry.stderr, new RegExp(`would keep contact ${novaTwo!.id} \\(line 5\\): changed since the import`));
  assert.match(dry.stderr, new RegExp(`would keep contact ${seed1.id} \\(line 3\\): status changed since the import; email would be restored`));

  // Without --confirm: what would go, and nothing sent at all.
  const requestsBefore = sb.stats().requests;
  const refused = await runCli(['import', 'undo', id], { env });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /would erase 3 contacts the import created .*irreversibly.* and give 2 contacts their earlier values back; nothing was sent \(add --confirm/);
  // Its summary on stderr; each contact in its changes file (on stdout with -v or --format).
  assert.equal(refused.stdout, '');
  const plan = readFileSync(`${file}.undo-changes.csv`, 'utf8');
  for (const c of created) assert.ok(plan.includes(c.id), `${c.id} named`);
  assert.equal(sb.stats().requests, requestsBefore, 'nothing sent, not even a read');

  // The real run, named by a prefix of the job's id.
  const real = await runCli(['import', 'undo', id.slice(0, 6), '--confirm', '--json'], { env });
  assert.equal(real.code, 0, real.stderr);
  const r = JSON.parse(real.stdout);
  assert.deepEqual([r.job, r.dryRun, r.erased, r.restored, r.kept, r.cannotRestore, r.failed, r.keptFields], [id, false, 2, 2, 2, 0, 0, 1]);
  assert.equal(r.receiptsFile, `${file}.undo.jsonl`);

  // Contact by contact: as before the import, but for what the person did afterwards.
  const after = state(sb);
  const expected = new Map(before);
  expected.set(seed1.id, { ...before.get(seed1.id)!, status: 'vip' });
  expected.set(novaTwo!.id, view({ ...novaTwo, city: 'Bradford' } as unknown as Record<string, unknown>));
  assert.deepEqual(after, expected);
  for (const c of [novaOne!, novaThree!]) assert.equal((await sandboxRequest(sb, 'GET', `/contacts/${c.id}`)).status, 404);

  // Receipts: ids and what was done, no personal data.
  const receipts = readFileSync(r.receiptsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(receipts.map((x) => [x.item, x.id, x.did]).sort(), [
    [2, seed0.id, 'restored'],
    [3, seed1.id, 'restored'],
    [4, novaOne!.id, 'erased'],
    [5, novaTwo!.id, 'kept'],
    [6, novaThree!.id, 'erased'],
  ].sort());
  assert.deepEqual(receipts.find((x) => x.id === seed1.id).fields, ['email']);
  assert.deepEqual(receipts.find((x) => x.id === seed1.id).kept, ['status']);
  const text = readFileSync(r.receiptsFile, 'utf8');
  for (const personal of ['Augusta', 'Nova', '+4474', 'example.com', 'London', 'Leeds', 'customer', 'vip']) assert.ok(!text.includes(personal), `no ${personal} in the receipts`);

  // Again: nothing to do, nothing sent.
  const requests = sb.stats().requests;
  const again = await runCli(['import', 'undo', id, '--confirm', '--json'], { env });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /nothing to undo .*undid it already \(2 changed since were kept: --include-changed undoes them too\); nothing was sent/);
  assert.equal(sb.stats().requests, requests);

  // --include-changed: what was kept goes too, and the service is as it was before the import.
  const all = await runCli(['jobs', 'undo', id, '--confirm', '--include-changed', '--json'], { env });
  assert.equal(all.code, 0, all.stderr);
  const a = JSON.parse(all.stdout);
  assert.deepEqual([a.erased, a.restored, a.kept, a.failed], [1, 1, 0, 0]);
  assert.deepEqual(state(sb), before);

  const jobs = JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ kind: string; state: string }>;
  assert.deepEqual(jobs.map((j) => [j.kind, j.state]), [['undo', 'finished'], ['undo', 'finished'], ['import', 'finished']]);
});

test('an import that did not read the contacts first: undo says which changes it cannot give back, and how to make the next import reversible', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 4 });
  const env = envFor(sb, t);
  const before = state(sb);
  const { id } = await importJob(t, sb, env, []);
  const refused = await runCli(['import', 'undo', id], { env });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /2 contacts were changed by this import without being read first .*cannot be given back/);
  assert.match(refused.stderr, /to make the next import reversible, run it with --check-existing/);
  assert.match(refused.stderr, /^ {2}cannot restore +2 /m);
  assert.match((await runCli(['-v', 'import', 'undo', id], { env })).stdout, /cannot restore/);
  const real = await runCli(['import', 'undo', id, '--confirm', '--json'], { env });
  assert.equal(real.code, 0, real.stderr);
  const r = JSON.parse(real.stdout);
  assert.deepEqual([r.erased, r.restored, r.kept, r.cannotRestore, r.failed], [3, 0, 0, 2, 0]);
  assert.match(real.stderr, /without being read first/);
  // The created ones are gone; the two merged ones keep what the import wrote.
  assert.deepEqual([...state(sb).keys()].sort(), [...before.keys()].sort());
  assert.equal(sb.contacts().find((c) => c.phone === '+447400100001')?.status, 'customer');
});

test('erasures, outcome writebacks, dry runs and undos cannot be undone: exit 2, saying why, nothing sent', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 6 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'requests.txt'), '+447400100005\n');
  assert.equal((await runCli(['contacts', 'rm', '--from', join(dir, 'requests.txt'), '--confirm'], { env })).code, 0);
  writeFileSync(join(dir, 'outcomes.csv'), 'callId,outcome\ncall_00001,booked_job\n');
  assert.equal((await runCli(['calls', 'outcome', '--from', join(dir, 'outcomes.csv')], { env })).code, 0);
  writeFileSync(join(dir, 'leads.csv'), `${LEADS}\n`);
  assert.equal((await runCli(['import', join(dir, 'leads.csv'), '--dry-run'], { env })).code, 6);
  const jobs = JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ id: string; kind: string; dryRun?: boolean }>;
  const byKind = (k: string) => jobs.find((j) => j.kind === k)!.id;
  assert.ok(jobs.find((j) => j.kind === 'import')?.dryRun, 'a dry run that wrote files (rejects, changes) leaves a record');
  const erasure = JSON.parse((await runCli(['jobs', 'show', byKind('erasure'), '--json'], { env })).stdout);
  assert.equal(erasure.files.receipts, join(dir, 'requests.txt.erasures.jsonl'), 'the record names the receipts it wrote');
  const requests = sb.stats().requests;
  const cases: Array<[string, RegExp]> = [
    [byKind('erasure'), /is an erasure: it cannot be undone/],
    [byKind('writeback'), /is an outcome writeback: it is not undone — the calls' earlier outcomes were never read/],
    [byKind('import'), /was a dry run: it changed nothing/],
    ['0123456789', /no job 0123456789 in the records/],
    ['xyz', /"xyz" is not a job id/],
  ];
  for (const [job, message] of cases) {
    const r = await runCli(['import', 'undo', job, '--confirm'], { env });
    assert.equal(r.code, 2, `${job}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  assert.equal(sb.stats().requests, requests, 'nothing sent');
});
