// `contacts edit --add-tag / --remove-tag`: read the contact, PATCH the whole changed tag list;
// `--tag` still sets exactly the tags given. Asserted on the server's state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

test('--add-tag and --remove-tag change the list and keep the other tags; --tag replaces them; both together is exit 2', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const env = envFor(sb, t);
  const made = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Ada', phone: '+447700900111', tags: ['lead', 'cold', 'expo'] } });
  const id = made.body.id as string;
  const tagsNow = () => sb.contacts().find((c) => c.id === id)?.tags;

  const a = await runCli(['contacts', 'edit', id, '--add-tag', 'vip', '--add-tag', 'expo', '--remove-tag', 'cold', '--json'], { env });
  assert.equal(a.code, 0, a.stderr);
  assert.deepEqual(tagsNow(), ['lead', 'expo', 'vip']);
  assert.deepEqual(JSON.parse(a.stdout).tags, ['lead', 'expo', 'vip']);
  assert.equal(sb.stats().byRoute['GET /contacts/{id}'], 1, 'read once');
  assert.equal(sb.stats().byRoute['PATCH /contacts/{id}'], 1, 'one PATCH with the whole list');

  const r = await runCli(['contacts', 'edit', id, '--remove-tag', 'lead', '--status', 'customer'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(tagsNow(), ['expo', 'vip']);
  assert.equal(sb.contacts().find((c) => c.id === id)?.status, 'customer');

  const missing = await runCli(['contacts', 'edit', id, '--remove-tag', 'nope'], { env });
  assert.equal(missing.code, 0, missing.stderr);
  assert.match(missing.stderr, /has no tag "nope"/);
  assert.match(missing.stderr, /unchanged.*nothing sent/);
  assert.equal(sb.stats().byRoute['PATCH /contacts/{id}'], 2, 'no PATCH when nothing changes');

  const set = await runCli(['contacts', 'edit', id, '--tag', 'only'], { env });
  assert.equal(set.code, 0, set.stderr);
  assert.deepEqual(tagsNow(), ['only']);

  const before = sb.stats().requests;
  const both = await runCli(['contacts', 'edit', id, '--tag', 'x', '--add-tag', 'y'], { env });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--tag .*sets exactly the tags given/);
  assert.equal(sb.stats().requests, before, 'nothing sent');
  assert.deepEqual(tagsNow(), ['only']);

  const gone = await runCli(['contacts', 'edit', 'ct_missing', '--add-tag', 'vip'], { env });
  assert.equal(gone.code, 4);
});

test('edit --help says --tag sets exactly these and --add-tag/--remove-tag read then PATCH the whole list', async () => {
  const h = await runCli(['contacts', 'edit', '--help']);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /--add-tag <tag>/);
  assert.match(h.stdout, /--remove-tag <tag>/);
  assert.match(h.stdout, /--tag sets exactly the tags given/);
  assert.match(h.stdout, /read the contact first, then PATCH\s+its whole tag list/);
});
