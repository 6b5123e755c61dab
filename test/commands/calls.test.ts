// `calls` end to end: listing, showing, and writing outcomes back — with every refusal the
// contract names caught before anything is sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

test('outcome with value and currency lands on the call and in the totals', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3 });
  const env = envFor(sb, t);
  const id = sb.calls()[0]!.id;
  const r = await runCli(['calls', 'outcome', id, 'booked_job', '--value', '250.5', '--currency', 'usd', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  const call = JSON.parse(r.stdout);
  assert.deepEqual([call.outcome, call.value, call.currency], ['booked_job', 250.5, 'USD']);
  const totals = await runCli(['api', 'GET', '/analytics/outcomes'], { env });
  assert.equal(JSON.parse(totals.stdout).data[0].value, 250.5);
  const plain = await runCli(['calls', 'outcome', sb.calls()[1]!.id, 'no_answer'], { env });
  assert.equal(plain.code, 0);
  assert.match(plain.stderr, /set to no_answer/);
});

test('outcome refusals: not snake_case (with the suggestion), value without currency, bad value, bad currency — exit 2, nothing sent', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 1 });
  const env = envFor(sb, t);
  const id = sb.calls()[0]!.id;
  const cases: Array<[string[], RegExp]> = [
    [['Booked Job'], /not snake_case \(use booked_job\)/],
    [['bookedJob'], /use booked_job/],
    [['booked_job', '--value', '10'], /needs a currency/],
    [['booked_job', '--value', '-5', '--currency', 'USD'], /--value/],
    [['booked_job', '--value', 'abc', '--currency', 'USD'], /--value/],
    [['booked_job', '--value', '10', '--currency', 'XYZ'], /not an ISO 4217/],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(['calls', 'outcome', id, ...args], { env });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  assert.equal(sb.stats().requests, 0);
});

test('the profile currency is the default for --value; an unknown call is exit 4', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 1 });
  const env = envFor(sb, t);
  assert.equal((await runCli(['config', 'set', 'currency', 'eur'], { env })).code, 0);
  const r = await runCli(['calls', 'outcome', sb.calls()[0]!.id, 'booked_job', '--value', '99'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(sb.calls()[0]!.currency, 'EUR');
  const missing = await runCli(['calls', 'outcome', 'call_nope', 'booked_job'], { env });
  assert.equal(missing.code, 4);
  assert.match(missing.stderr, /no call with id "call_nope"/);
});

test('calls ls and get, in table, json and csv', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 60 });
  const env = envFor(sb, t);
  const all = await runCli(['calls', 'ls', '--all', '--json'], { env });
  assert.equal(JSON.parse(all.stdout).length, 60);
  const csv = await runCli(['calls', 'ls', '--limit', '2', '--format', 'csv'], { env });
  assert.match(csv.stdout.split('\n')[0]!, /^id,contactId,from,to,direction,channel/);
  const one = await runCli(['calls', 'get', 'call_00002'], { env });
  assert.equal(one.code, 0);
  assert.match(one.stdout, /call_00002/);
});

test('a read-only key: reading works, writing is exit 3 naming the scope', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 1 });
  const env = envFor(sb, t, { CALLCTL_API_KEY: sb.readOnlyKey });
  assert.equal((await runCli(['calls', 'ls'], { env })).code, 0);
  const w = await runCli(['calls', 'outcome', sb.calls()[0]!.id, 'booked_job'], { env });
  assert.equal(w.code, 3);
  assert.match(w.stderr, /403.*calls:write/);
  const c = await runCli(['contacts', 'add', '--phone', '+442079460958'], { env });
  assert.equal(c.code, 3);
  assert.match(c.stderr, /contacts:write/);
});
