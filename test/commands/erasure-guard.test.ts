// Erasure needs --confirm however it is asked for: `api DELETE` sends nothing without it, and
// `contacts rm <id>` without it names who would go (name, phone) and how many calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

test('api DELETE without --confirm is exit 2 and sends nothing; with it, the contact is erased', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const env = envFor(sb, t);
  const id = sb.contacts()[0]!.id;
  const no = await runCli(['api', 'DELETE', `/contacts/${id}`], { env });
  assert.equal(no.code, 2);
  assert.match(no.stderr, new RegExp(`^callctl: DELETE /contacts/${id} is irreversible.*nothing was sent \\(add --confirm`));
  assert.equal(no.stderr.trim().split('\n').length, 1);
  assert.equal(sb.stats().requests, 0, 'nothing sent');
  assert.equal(sb.contacts().length, 2);
  const lower = await runCli(['api', 'delete', `/contacts/${id}`], { env });
  assert.equal(lower.code, 2, 'the method in any case');
  const yes = await runCli(['api', 'DELETE', `/contacts/${id}`, '--confirm'], { env });
  assert.equal(yes.code, 0, yes.stderr);
  assert.equal(sb.contacts().length, 1);
  assert.ok(!sb.contacts().some((c) => c.id === id));
});

test('contacts rm without --confirm names the contact and counts their calls; no DELETE is sent', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 120 });
  const env = envFor(sb, t);
  const victim = sb.contacts()[7]!;
  const calls = sb.calls().filter((c) => c.contactId === victim.id).length;
  const no = await runCli(['contacts', 'rm', victim.id], { env });
  assert.equal(no.code, 2);
  const name = `${victim.firstName} ${victim.lastName}`;
  assert.match(no.stderr, new RegExp(`would erase contact ${victim.id} \\(${name}, \\${victim.phone}\\) and their ${calls} calls? with their recordings, irreversibly; nothing was erased`));
  assert.match(no.stderr, new RegExp(`--confirm to erase: callctl contacts rm ${victim.id} --confirm`));
  assert.equal(no.stderr.trim().split('\n').length, 1);
  assert.equal(sb.stats().byRoute['DELETE /contacts/{id}'], undefined, 'no DELETE');
  assert.equal(sb.stats().byRoute['GET /calls'], 2, 'every page of calls read to count them (120 calls, 100 a page)');
  assert.ok(sb.contacts().some((c) => c.id === victim.id));

  const unknown = await runCli(['contacts', 'rm', 'ct_nobody'], { env });
  assert.equal(unknown.code, 2, 'without --confirm, always a usage error');
  assert.match(unknown.stderr, /^callctl: there is no contact ct_nobody \(404\): nothing to erase; nothing was erased \(check the id/);

  const made = await sandboxRequest(sb, 'POST', '/contacts', { body: { email: 'x@example.com' } });
  const bare = await runCli(['contacts', 'rm', made.body.id], { env });
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /\(\(no name\), \(no phone\)\) and their 0 calls/);
  assert.equal(sb.stats().byRoute['DELETE /contacts/{id}'], undefined);
});
