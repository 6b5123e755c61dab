// `list` for `ls` and `remove` for `rm`, in every group (as gh and kubectl accept), known to
// completion; and `calls ls --contact <id|phone>`, a phone resolved to its person's contacts as
// `contacts find --phone` resolves it — national-format twins included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

test('contacts list, calls list and contacts remove do what ls and rm do; completion offers them', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3 });
  const env = envFor(sb, t);
  const listed = await runCli(['contacts', 'list', '--json'], { env });
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal(JSON.parse(listed.stdout).length, 3);
  const calls = await runCli(['calls', 'list', '--max', '2', '--json'], { env });
  assert.equal(calls.code, 0, calls.stderr);
  assert.equal(JSON.parse(calls.stdout).length, 2);
  const victim = sb.contacts()[0]!.id;
  const removed = await runCli(['contacts', 'remove', victim, '--confirm', '--json'], { env });
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(JSON.parse(removed.stdout).erased, true);
  assert.equal(sb.contacts().some((c) => c.id === victim), false);
  const help = await runCli(['contacts', '--help']);
  assert.match(help.stdout, /ls\|list/);
  assert.match(help.stdout, /rm\|remove/);

  const verbs = (await runCli(['__complete', 'bash', 'contacts', ''])).stdout.split('\n');
  for (const v of ['ls', 'list', 'rm', 'remove']) assert.ok(verbs.includes(v), `completion offers ${v}`);
  const flags = (await runCli(['__complete', 'bash', 'calls', 'list', '--con'])).stdout.split('\n');
  assert.ok(flags.includes('--contact'), 'a verb typed by its alias completes its flags');
});

test('calls ls --contact: an id, or a phone that is every contact of that person (national twins too, with or without a region)', async (t) => {
  const dir = tempDir(t);
  const data = join(dir, 'state.json');
  const at = '2026-10-01T09:00:00.000Z';
  const contact = (id: string, phone: string) => ({ id, phone, createdAt: at, updatedAt: at });
  const call = (id: string, contactId: string) => ({ id, contactId, from: '+447400100001', to: '+442079460000', direction: 'inbound', channel: 'website', startedAt: at, durationSec: 30, outcome: null, value: null, currency: null, recordingUrl: null });
  writeFileSync(data, JSON.stringify({
    contacts: [contact('ct_ada', '+44 7400 100001'), contact('ct_ada_twin', '07400 100001'), contact('ct_bob', '+44 7400 100002')],
    calls: [call('c1', 'ct_ada'), call('c2', 'ct_bob'), call('c3', 'ct_ada_twin'), call('c4', 'ct_bob')],
  }));
  const sb = await startTestSandbox(t, { rateLimit: 0, dataFile: data });
  const env = envFor(sb, t);

  const byId = await runCli(['calls', 'ls', '--contact', 'ct_bob', '--json'], { env });
  assert.equal(byId.code, 0, byId.stderr);
  assert.deepEqual(JSON.parse(byId.stdout).map((c: { id: string }) => c.id), ['c2', 'c4']);

  const byPhone = await runCli(['calls', 'ls', '--contact', '07400 100001', '--country', 'GB', '--json'], { env });
  assert.equal(byPhone.code, 0, byPhone.stderr);
  assert.deepEqual(JSON.parse(byPhone.stdout).map((c: { id: string }) => c.id), ['c1', 'c3']);
  assert.match(byPhone.stderr, /ct_ada, ct_ada_twin/);

  // Without a region, a national number is still found by its digits (as `contacts find` does).
  const national = await runCli(['calls', 'ls', '--contact', '07400 100001', '--json'], { env });
  assert.equal(national.code, 0, national.stderr);
  assert.deepEqual(JSON.parse(national.stdout).map((c: { id: string }) => c.id), ['c1', 'c3']);

  await sb.close(); // it saves --data: before the folder goes
});
