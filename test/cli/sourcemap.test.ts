// dist/ is a bundle; with --verbose the stack trace an operator pastes into a bug report still
// names the src/ files and lines (source maps, switched on only for --verbose).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, tempDir } from '../helpers/cli.js';

const args = ['contacts', 'ls', '--base-url', 'http://127.0.0.1:9/api/v1'];
const env = (t: Parameters<typeof tempDir>[0]) => ({ CALLCTL_CONFIG_DIR: tempDir(t), CALLCTL_API_KEY: 'sk_test_not_a_live_key_0000' });

test('a --verbose stack points at src/, not at the bundle', async (t) => {
  const { code, stderr } = await runCli([...args, '--verbose'], { env: env(t) });
  assert.equal(code, 3, stderr);
  assert.match(stderr, /^callctl: that is not a REST secret key/);
  assert.match(stderr, /\n\s+at .*\/src\/http\/safety\.ts:\d+:\d+/);
  assert.doesNotMatch(stderr, /\/dist\//);
});

test('without --verbose: the one line, no stack', async (t) => {
  const { code, stderr } = await runCli(args, { env: env(t) });
  assert.equal(code, 3);
  assert.equal(stderr.trim().split('\n').length, 1, stderr);
  assert.doesNotMatch(stderr, /\n\s+at /);
});
