// `calls ls --contact <id>` with an id no contact has (a typo) says so on stderr, as a phone no
// contact has is said — an empty list alone cannot tell it from a contact without calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

test('calls ls --contact: an unknown id is named as no contact; a contact without calls is not', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 4 });
  const env = envFor(sb, t);
  const typo = await runCli(['calls', 'ls', '--contact', 'ct_nobody', '--json'], { env });
  assert.equal(typo.code, 0, typo.stderr);
  assert.deepEqual(JSON.parse(typo.stdout), []);
  assert.match(typo.stderr, /^ct_nobody: no contact has this id$/m);

  const add = await runCli(['contacts', 'add', '--phone', '+447400700001', '--json'], { env });
  const id = JSON.parse(add.stdout).id as string;
  const quiet = await runCli(['calls', 'ls', '--contact', id, '--json'], { env });
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.deepEqual(JSON.parse(quiet.stdout), []);
  assert.doesNotMatch(quiet.stderr, /no contact/);
});
