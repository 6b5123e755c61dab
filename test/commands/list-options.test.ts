// Options that do something where they are given: --max with or without --all, filters read
// while paging every page, a --limit the service refuses explained, and output options that do
// not apply are usage errors rather than ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

test('--max N lists up to N with or without --all, across pages as needed', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 120 });
  const env = envFor(sb, t);
  const five = await runCli(['contacts', 'ls', '--max', '5', '--json'], { env });
  assert.equal(five.code, 0, five.stderr);
  assert.deepEqual(JSON.parse(five.stdout).map((c: { id: string }) => c.id), sb.contacts().slice(0, 5).map((c) => c.id));
  assert.equal(sb.stats().byRoute['GET /contacts'], 1, 'one small page');
  const across = await runCli(['contacts', 'ls', '--max', '70', '--format', 'ndjson'], { env });
  assert.equal(across.stdout.trim().split('\n').length, 70, 'past the first page without --all');
  const calls = await runCli(['calls', 'ls', '--max', '60', '--limit', '25', '--all', '--json'], { env });
  assert.equal(JSON.parse(calls.stdout).length, 60);
  assert.equal(sb.stats().byRoute['GET /calls'], 3, 'three pages of 25, no fourth');
  const table = await runCli(['contacts', 'ls', '--max', '3'], { env });
  assert.match(table.stderr, /^3 shown$/m);
});

test('--limit above what the service accepts shows its 422 message and the hint to use --all', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3 });
  const r = await runCli(['contacts', 'ls', '--limit', '500'], { env: envFor(sb, t) });
  assert.equal(r.code, 5);
  assert.match(r.stderr, /^callctl: rejected by the server \(422\) on GET \/contacts: "limit" must be an integer from 1 to 100 \(--limit 500 is more than the service gives in one page; use --all/);
  assert.equal(r.stderr.trim().split('\n').length, 1);
});

test('an output option that does not apply is exit 2 and sends nothing: api --format csv, rm --format csv', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const env = envFor(sb, t);
  const id = sb.contacts()[0]!.id;
  const cases: Array<[string[], RegExp]> = [
    [['api', 'GET', '/contacts', '--format', 'csv'], /--format csv does not apply to callctl api: it prints the JSON body/],
    [['api', 'GET', '/contacts', '--format', 'table'], /--format table does not apply to callctl api/],
    [['contacts', 'rm', id, '--confirm', '--format', 'csv'], /--format csv does not apply to callctl contacts rm/],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args, { env });
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, message);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  }
  assert.equal(sb.stats().requests, 0);
  assert.equal(sb.contacts().length, 2, 'nothing erased');
  const nd = await runCli(['api', 'GET', `/contacts/${id}`, '--format', 'ndjson'], { env });
  assert.equal(nd.code, 0, nd.stderr);
  assert.equal(JSON.parse(nd.stdout).id, id);
  assert.equal(nd.stdout.trim().split('\n').length, 1, 'ndjson: one line');
});

test('filters read every page and keep the matches: contacts --tag/--status, calls --outcome/--since/--until', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 130 });
  const env = envFor(sb, t);
  const contacts = sb.contacts();
  const vips = [contacts[3]!, contacts[77]!, contacts[128]!];
  for (const c of vips) await sandboxRequest(sb, 'PATCH', `/contacts/${c.id}`, { body: { tags: ['seed', 'VIP'], status: 'customer' } });
  await sandboxRequest(sb, 'PATCH', `/contacts/${contacts[50]!.id}`, { body: { tags: ['vip'] } });

  const tagged = await runCli(['contacts', 'ls', '--tag', 'vip', '--limit', '20', '--json'], { env });
  assert.equal(tagged.code, 0, tagged.stderr);
  assert.deepEqual(JSON.parse(tagged.stdout).map((c: { id: string }) => c.id), [vips[0]!.id, contacts[50]!.id, vips[1]!.id, vips[2]!.id]);
  assert.equal(sb.stats().byRoute['GET /contacts'], 7, 'every page of 20 read (130 contacts)');
  const both = await runCli(['contacts', 'ls', '--tag', 'vip', '--status', 'customer'], { env });
  assert.equal(both.code, 0, both.stderr);
  assert.equal(both.stdout.trim().split('\n').length, 1 + 3);
  assert.match(both.stderr, /^3 shown \(of 130 read\)$/m);
  const first = await runCli(['contacts', 'ls', '--status', 'customer', '--max', '1', '--limit', '10', '--json'], { env });
  assert.deepEqual(JSON.parse(first.stdout).map((c: { id: string }) => c.id), [vips[0]!.id]);

  // Seeded calls start 2026-10-01T09:00Z, one every 37 minutes: 39 of them on 1 October.
  const calls = sb.calls();
  for (const i of [2, 40, 100]) await sandboxRequest(sb, 'PATCH', `/calls/${calls[i]!.id}`, { body: { outcome: 'booked_job' } });
  const booked = await runCli(['calls', 'ls', '--outcome', 'booked_job', '--json'], { env });
  assert.equal(booked.code, 0, booked.stderr);
  assert.deepEqual(JSON.parse(booked.stdout).map((c: { id: string }) => c.id), [2, 40, 100].map((i) => calls[i]!.id));
  const day = await runCli(['calls', 'ls', '--since', '2026-10-01', '--until', '2026-10-01', '--format', 'ndjson'], { env });
  assert.equal(day.code, 0, day.stderr);
  const onFirst = calls.filter((c) => c.startedAt.startsWith('2026-10-01'));
  assert.deepEqual(day.stdout.trim().split('\n').map((l) => JSON.parse(l).id), onFirst.map((c) => c.id));
  const window = await runCli(['calls', 'ls', '--outcome', 'booked_job', '--since', '2026-10-02T00:00:00Z', '--json'], { env });
  assert.deepEqual(JSON.parse(window.stdout).map((c: { id: string }) => c.id), [40, 100].map((i) => calls[i]!.id));

  const before = sb.stats().requests;
  const bad = await runCli(['calls', 'ls', '--since', 'yesterday'], { env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--since yesterday is not a date/);
  assert.equal(sb.stats().requests, before, 'nothing sent');
});

test('ls --help says every page is read when filtering', async () => {
  for (const cmd of ['contacts', 'calls']) {
    const h = await runCli([cmd, 'ls', '--help']);
    assert.match(h.stdout, /every page is read/);
    assert.match(h.stdout, /--max <n>\s+list up to this many/);
  }
});
