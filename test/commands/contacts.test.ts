// `contacts` end to end: the real CLI against the sandbox, asserting what the operator sees and
// what the service holds afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

test('add normalises the phone to E.164, matches on a repeat, and prints the contact', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const env = envFor(sb, t);
  const a = await runCli(['contacts', 'add', '--first-name', 'Ada', '--phone', '020 7946 0958', '--country', 'gb', '--tag', 'vip', '--tag', 'expo', '--json'], { env });
  assert.equal(a.code, 0, a.stderr);
  const created = JSON.parse(a.stdout);
  assert.equal(created.phone, '+442079460958');
  assert.deepEqual(created.tags, ['vip', 'expo']);
  assert.match(a.stderr, /created contact/);
  const b = await runCli(['contacts', 'add', '--phone', '+44 20 7946 0958', '--email', 'ada@example.com'], { env });
  assert.equal(b.code, 0, b.stderr);
  assert.match(b.stderr, /matched existing contact/);
  assert.match(b.stdout, /ada@example\.com/);
  assert.equal(sb.contacts().length, 1);
  assert.equal(sb.contacts()[0]?.email, 'ada@example.com');
});

test('add refuses an invalid phone, a national phone without region, a bad email and bad --data: exit 2, nothing sent', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const env = envFor(sb, t);
  const cases: Array<[string[], RegExp]> = [
    [['--phone', '12'], /phone/],
    [['--phone', '020 7946 0958'], /national format.*--country/],
    [['--phone', '+44 20 7946 0958', '--email', 'nope'], /e-mail/],
    [['--data', '{"firstName":'], /--data is not valid JSON/],
    [['--data', '{"nickname":"x"}'], /unknown field "nickname"/],
    [[], /no field/],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(['contacts', 'add', ...args], { env });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  }
  assert.equal(sb.stats().requests, 0, 'no request was sent');
});

test('add --data @file; edit sends only the given fields; edit with no field is exit 2', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  writeFileSync(`${dir}/c.json`, JSON.stringify({ firstName: 'Grace', lastName: 'Hopper', phone: '+1 415 555 2671', city: 'Arlington' }));
  const a = await runCli(['contacts', 'add', '--data', `@${dir}/c.json`, '--json'], { env });
  assert.equal(a.code, 0, a.stderr);
  const id = JSON.parse(a.stdout).id;
  const e = await runCli(['contacts', 'edit', id, '--status', 'customer', '--json'], { env });
  assert.equal(e.code, 0, e.stderr);
  const after = JSON.parse(e.stdout);
  assert.equal(after.status, 'customer');
  assert.equal(after.city, 'Arlington');
  assert.equal(after.firstName, 'Grace');
  const none = await runCli(['contacts', 'edit', id], { env });
  assert.equal(none.code, 2);
});

test('get: unknown id is exit 4 with the server message; ids like ../calls stay one segment', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 1 });
  const env = envFor(sb, t);
  const r = await runCli(['contacts', 'get', 'ct_nope'], { env });
  assert.equal(r.code, 4);
  assert.match(r.stderr, /^callctl: not found \(404\).*no contact with id "ct_nope"/);
  const trick = await runCli(['contacts', 'get', '../calls'], { env });
  assert.equal(trick.code, 4, 'reaches /contacts/..%2Fcalls, not /calls');
  assert.match(trick.stderr, /no contact with id "\.\.\/calls"/);
  const empty = await runCli(['contacts', 'get', ''], { env });
  assert.equal(empty.code, 2);
  const id = sb.contacts()[0]!.id;
  const ok = await runCli(['contacts', 'get', id, '--json'], { env });
  assert.equal(JSON.parse(ok.stdout).id, id);
});

test('rm without --confirm says what would be erased and sends nothing; with it, a receipt and the cascade', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const env = envFor(sb, t);
  const victim = sb.calls()[0]!;
  const no = await runCli(['contacts', 'rm', victim.contactId], { env });
  assert.equal(no.code, 2);
  assert.match(no.stderr, /would erase contact .* calls? with their recordings.*--confirm/);
  assert.equal(sb.stats().byRoute['DELETE /contacts/{id}'], undefined, 'no DELETE was sent (the contact was only read)');
  const yes = await runCli(['contacts', 'rm', victim.contactId, '--confirm', '--json'], { env });
  assert.equal(yes.code, 0, yes.stderr);
  const receipt = JSON.parse(yes.stdout);
  assert.equal(receipt.id, victim.contactId);
  assert.equal(receipt.erased, true);
  assert.ok(!Number.isNaN(Date.parse(receipt.at)));
  assert.equal(sb.contacts().length, 1);
  assert.equal(sb.calls().length, 1);
  const plain = await runCli(['contacts', 'rm', sb.contacts()[0]!.id, '--confirm'], { env });
  assert.equal(plain.code, 0);
  assert.match(plain.stderr, /erased contact .* with their calls and recordings at \d{4}-/);
  assert.equal(plain.stdout, '');
});

test('ls: one page by default, --all streams every page in every format, --max stops early', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 120 });
  const env = envFor(sb, t);
  const page = await runCli(['contacts', 'ls', '--json'], { env });
  assert.equal(JSON.parse(page.stdout).length, 50);
  const all = await runCli(['contacts', 'ls', '--all', '--limit', '25', '--json'], { env });
  assert.equal(JSON.parse(all.stdout).length, 120);
  assert.equal(sb.stats().byRoute['GET /contacts'], 1 + 5, 'five pages of 25, the last one short');
  const nd = await runCli(['contacts', 'ls', '--all', '--format', 'ndjson', '--max', '70'], { env });
  assert.equal(nd.stdout.trim().split('\n').length, 70);
  const csv = await runCli(['contacts', 'ls', '--limit', '3', '--format', 'csv'], { env });
  const lines = csv.stdout.trim().split('\n');
  assert.equal(lines[0], 'id,firstName,lastName,email,phone,address,city,state,zipCode,tags,status,notes,createdAt,updatedAt');
  assert.equal(lines.length, 4);
  const table = await runCli(['contacts', 'ls', '--limit', '2'], { env });
  assert.match(table.stdout, /First.*Phone/);
  assert.match(table.stdout, /\+447400100000/);
  assert.doesNotMatch(table.stdout, /\u001b\[/, 'no colour in a pipe');
});

test('the CSV of contacts re-imports: same contacts, all matched, nothing new', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 30 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const csv = await runCli(['contacts', 'ls', '--all', '--format', 'csv'], { env });
  writeFileSync(`${dir}/contacts.csv`, csv.stdout);
  const imp = await runCli(['import', `${dir}/contacts.csv`, '--json'], { env });
  assert.equal(imp.code, 0, imp.stderr);
  const summary = JSON.parse(imp.stdout);
  assert.equal(summary.matched, 30);
  assert.equal(summary.created, 0);
  assert.equal(sb.contacts().length, 30);
});
