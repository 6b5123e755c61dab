// The fields of a call are seen, not assumed: a service that names the call's source `source`
// (the sandbox started with --call-source-field source) shows Source in `calls ls`, groups by it in
// `calls summary --by source`, and refuses `--by channel` naming the fields its calls have.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

test('calls ls: the table shows the source field under the service\'s own name, and no Channel', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 6, callSourceField: 'source' });
  const env = envFor(sb, t);
  assert.equal(sb.calls()[0]!.source, 'google_ads');
  assert.equal('channel' in sb.calls()[0]!, false);
  const table = await runCli(['calls', 'ls'], { env });
  assert.equal(table.code, 0, table.stderr);
  const head = table.stdout.split('\n')[0]!;
  assert.match(head, /\bSource\b/);
  assert.doesNotMatch(head, /Channel/);
  assert.match(table.stdout.split('\n')[1]!, /google_ads/, 'the column is filled');
  const csv = await runCli(['calls', 'ls', '--format', 'csv', '--limit', '2'], { env });
  assert.equal(csv.stdout.split('\n')[0], 'id,contactId,from,to,direction,source,startedAt,durationSec,outcome,value,currency,recordingUrl');

  // The default service still calls it channel, and shows Channel.
  const usual = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const plain = await runCli(['calls', 'ls'], { env: envFor(usual, t) });
  assert.match(plain.stdout.split('\n')[0]!, /\bChannel\b/);
  assert.doesNotMatch(plain.stdout.split('\n')[0]!, /Source/);
});

test('calls summary --by: a field no call has is exit 2 naming the fields they have; --by source groups, calls without it are (none)', async (t) => {
  // A saved state where one call has no source at all.
  const dir = tempDir(t);
  const data = join(dir, 'state.json');
  const call = (id: string, source: string | undefined, outcome: string | null, value: number | null) => ({
    id, contactId: 'ct_1', from: '+447400100001', to: '+442079460000', direction: 'inbound',
    ...(source !== undefined ? { source } : {}), startedAt: '2026-10-01T09:00:00.000Z', durationSec: 60, outcome, value, currency: value === null ? null : 'USD', recordingUrl: null,
  });
  writeFileSync(data, JSON.stringify({ contacts: [], calls: [call('c1', 'website', 'booked_job', 100.1), call('c2', 'website', 'booked_job', 0.2), call('c3', 'referral', 'no_answer', null), call('c4', undefined, 'booked_job', 5)] }));
  const sb = await startTestSandbox(t, { rateLimit: 0, dataFile: data, callSourceField: 'source' });
  const env = envFor(sb, t);

  const wrong = await runCli(['calls', 'summary', '--by', 'channel'], { env });
  assert.equal(wrong.code, 2, wrong.stderr);
  assert.match(wrong.stderr, /no call has a field "channel"/);
  assert.match(wrong.stderr, /\bsource\b/);
  assert.equal(wrong.stdout, '', 'nothing printed as if grouped');

  const r = await runCli(['calls', 'summary', '--by', 'source', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [
    { outcome: 'booked_job', source: 'website', calls: 2, totals: { USD: 100.3 } },
    { outcome: 'booked_job', source: '(none)', calls: 1, totals: { USD: 5 } },
    { outcome: 'no_answer', source: 'referral', calls: 1, totals: {} },
  ]);
  await sb.close(); // it saves --data: before the folder goes
});

test('the sandbox renames the field in /analytics/outcomes too; --call-source-field on the command line, and a bad name is exit 2', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2, callSourceField: 'source' });
  const env = envFor(sb, t);
  assert.equal((await runCli(['calls', 'outcome', sb.calls()[0]!.id, 'booked_job', '--value', '250', '--currency', 'USD'], { env })).code, 0);
  const totals = await sandboxRequest(sb, 'GET', '/analytics/outcomes');
  assert.deepEqual(totals.body.data, [{ outcome: 'booked_job', source: 'google_ads', calls: 1, value: 250, currency: 'USD' }]);

  const run = startCli(['sandbox', '--port', '0', '--json', '--seed', '1', '--call-source-field', 'lead_source']);
  t.after(() => run.child.kill('SIGKILL'));
  for (let i = 0; i < 400 && !run.stdout().includes('\n'); i++) await new Promise((r) => setTimeout(r, 25));
  const info = JSON.parse(run.stdout().split('\n')[0]!);
  const calls = await fetch(`${info.baseUrl}/calls`, { headers: { authorization: `Bearer ${info.secretKey}` } });
  const first = ((await calls.json()) as { data: Array<Record<string, unknown>> }).data[0]!;
  assert.equal(first.lead_source, 'google_ads');
  assert.equal('channel' in first, false);
  run.child.kill('SIGINT');
  assert.equal((await run.result).code, 0);

  for (const bad of ['outcome', 'two words']) {
    const r = await runCli(['sandbox', '--port', '0', '--call-source-field', bad]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--call-source-field/);
  }
});
