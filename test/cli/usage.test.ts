// The parts of the contract that need no server: help, version, usage errors, exit codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, tempDir } from '../helpers/cli.js';

test('--version prints the version and exits 0, --help lists the commands', async () => {
  const v = await runCli(['--version']);
  assert.equal(v.code, 0);
  assert.match(v.stdout, /^\d+\.\d+\.\d+\s*$/);
  const h = await runCli(['--help']);
  assert.equal(h.code, 0);
  for (const cmd of ['contacts', 'calls', 'import', 'api', 'login', 'config', 'sandbox']) assert.match(h.stdout, new RegExp(`\\b${cmd}\\b`));
});

test('every command has --help with examples', async () => {
  for (const cmd of [['contacts', 'ls'], ['contacts', 'rm'], ['calls', 'outcome'], ['import'], ['api'], ['login'], ['config'], ['sandbox']]) {
    const r = await runCli([...cmd, '--help']);
    assert.equal(r.code, 0, cmd.join(' '));
    assert.match(r.stdout, /Examples:/, cmd.join(' '));
  }
});

test('no command, unknown command, unknown flag and a bad number are exit 2 with one line and no stack', async (t) => {
  const env = { CALLCTL_CONFIG_DIR: tempDir(t) };
  const cases: Array<[string[], RegExp]> = [
    [['contacts', 'lss'], /unknown command.*did you mean ls/i],
    [['contacts', 'ls', '--bogus'], /unknown option '--bogus'/],
    [['contacts', 'ls', '--limit', 'abc'], /--limit/],
    [['contacts', 'ls', '--page', '0'], /--page/],
    [['--rate', '-1', 'contacts', 'ls'], /--rate/],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args, { env });
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, message, args.join(' '));
    assert.equal(r.stderr.trim().split('\n').length, 1, `one line for ${args.join(' ')}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  }
  const bare = await runCli([], { env });
  assert.equal(bare.code, 2);
});
