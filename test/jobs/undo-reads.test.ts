// `import undo` on a second day (docs/commands/jobs.md, "How it reads, what it shows"): its summary first, each contact in its
// changes file (on stdout only with -v or --format); the contacts it touches read the cheaper way —
// one listing of the account when that costs fewer requests than a GET each, a GET each when the
// account is large — with a contact the listing did not show read by its GET, never taken as gone
// on the listing's word.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';
import type { Sandbox } from '../../src/sandbox/index.js';

/** Imports `n` new contacts and one change to the first seeded one (read first: --check-existing); returns the job's id. */
async function imported(t: Parameters<typeof tempDir>[0], sb: Sandbox, env: Record<string, string | undefined>, n: number): Promise<{ id: string; file: string }> {
  const dir = tempDir(t);
  const file = join(dir, 'leads.csv');
  const rows = ['Name,Phone,City'];
  for (let i = 0; i < n; i++) rows.push(`New${i},+4474005${String(10000 + i)},`);
  rows.push(`Seed,${String(sb.contacts()[0]!.phone)},Leeds`);
  writeFileSync(file, `${rows.join('\n')}\n`);
  const r = await runCli(['import', file, '--check-existing', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  const ls = JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ id: string }>;
  return { id: ls[0]!.id, file };
}

const reads = (sb: Sandbox) => ({ one: sb.stats().byRoute['GET /contacts/{id}'] ?? 0, list: sb.stats().byRoute['GET /contacts'] ?? 0 });
const since = (sb: Sandbox, before: { one: number; list: number }) => {
  const now = reads(sb);
  return { one: now.one - before.one, list: now.list - before.list };
};

test('without --confirm: the summary of what it would do, each contact in its changes file, the table on stdout only with -v or --format', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3 });
  const env = envFor(sb, t);
  const { id, file } = await imported(t, sb, env, 30);
  const requests = sb.stats().requests;
  const r = await runCli(['import', 'undo', id], { env });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, '', 'no table unless asked');
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 6, r.stderr);
  assert.match(lines[0]!, new RegExp(`^undo of job ${id} \\(import of .*leads\\.csv\\): 31 contacts, from its record`));
  assert.match(lines[1]!, /^ {2}would erase +30 /);
  assert.match(lines[2]!, /^ {2}would restore +1 /);
  assert.match(lines[4]!, new RegExp(`^ {2}each contact → +${file}\\.undo-changes\\.csv {2}\\(-v or --format shows it here\\)$`));
  assert.match(lines[5]!, /^callctl: this would erase 30 contacts .* nothing was sent/);
  assert.equal(sb.stats().requests, requests, 'nothing sent, not even a read');
  const changes = parse(readFileSync(`${file}.undo-changes.csv`, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;
  assert.equal(changes.length, 31);
  assert.deepEqual(changes.at(-1), { line: '32', id: sb.contacts()[0]!.id, action: 'would restore', fields: 'city;firstName', kept: '' });

  const verbose = await runCli(['-v', 'import', 'undo', id], { env });
  assert.equal(verbose.code, 2);
  assert.equal(verbose.stdout.trimEnd().split('\n').length, 32, 'a header and a line a contact');
  assert.match(verbose.stdout, /^Line +Contact +Action +Fields +Kept$/m);
  const csv = await runCli(['import', 'undo', id, '--format', 'csv'], { env });
  assert.equal(csv.stdout, readFileSync(`${file}.undo-changes.csv`, 'utf8').replace(/^\ufeff/, ''));
});

test('a small import in a small account: one listing rather than a read a contact; a contact gone since is read by its GET, and gone', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 40 });
  const env = envFor(sb, t);
  const city = sb.contacts()[0]!.city;
  const { id, file } = await imported(t, sb, env, 60);
  // A person erased one of the contacts the import created.
  const created = sb.contacts().filter((c) => String(c.phone).startsWith('+4474005'));
  await sandboxRequest(sb, 'DELETE', `/contacts/${created[0]!.id}`);

  let before = reads(sb);
  const dry = await runCli(['import', 'undo', id, '--dry-run', '--json'], { env });
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stderr, /reading the 61 contacts to undo by one listing of the account's 99 contacts \(at most 2 pages\) rather than 61 reads/);
  const dryReads = since(sb, before);
  assert.equal(dryReads.one, 1, 'the one contact the listing did not show');
  assert.ok(dryReads.list <= 3, `the probe and the pages: ${dryReads.list}`);
  const d = JSON.parse(dry.stdout);
  assert.deepEqual([d.erased, d.restored, d.gone], [59, 1, 1]);
  // The summary first, then what the dry run found, each contact in the changes file.
  assert.ok(dry.stderr.indexOf('dry run of the undo') < dry.stderr.indexOf('each contact →'));
  const changes = parse(readFileSync(`${file}.undo-changes.csv`, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;
  assert.deepEqual(changes.map((c) => c.action).sort(), [...Array(59).fill('would erase'), 'gone', 'would restore'].sort());

  before = reads(sb);
  const real = await runCli(['import', 'undo', id, '--confirm', '--json'], { env });
  assert.equal(real.code, 0, real.stderr);
  assert.deepEqual(since(sb, before), dryReads, 'read as the dry run read');
  const r = JSON.parse(real.stdout);
  assert.deepEqual([r.erased, r.restored, r.gone], [59, 1, 1]);
  assert.equal(sb.contacts().length, 40);
  assert.equal(sb.contacts()[0]!.city ?? '', city ?? '', 'its earlier city given back');
});

test('a small import in a large account: a read a contact, no listing', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 600 });
  const env = envFor(sb, t);
  const { id } = await imported(t, sb, env, 5);
  const before = reads(sb);
  const r = await runCli(['import', 'undo', id, '--confirm', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /reading the 6 contacts to undo by one read a contact \(6 requests\), fewer than listing the account's 605 contacts/);
  assert.deepEqual(since(sb, before), { one: 6, list: 1 }, 'the probe, then one GET a contact');
  assert.deepEqual([JSON.parse(r.stdout).erased, JSON.parse(r.stdout).restored], [5, 1]);
  assert.equal(sb.contacts().length, 600);
});
