// Shell completion: `callctl completion <shell>` prints a script; on each TAB the script asks
// `callctl __complete` for candidates. The candidates are checked directly, then the bash script
// in a real interactive bash on a pty (util-linux script): the line it leaves is what the command
// then receives, recorded by a stand-in `callctl` on PATH.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cliEnv, runCli, tempDir } from '../helpers/cli.js';

async function candidates(t: Parameters<typeof tempDir>[0], words: string[], shell = 'zsh', env: Record<string, string> = {}): Promise<string[]> {
  const { code, stdout, stderr } = await runCli(['__complete', shell, ...words], { env: { CALLCTL_CONFIG_DIR: tempDir(t), ...env } });
  assert.equal(code, 0, stderr);
  assert.equal(stderr, '');
  return stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!);
}

test('commands, subcommands and flags (global ones too, after the subcommand)', async (t) => {
  assert.deepEqual(await candidates(t, ['cont']), ['contacts']);
  assert.ok((await candidates(t, [''])).includes('completion'));
  assert.deepEqual(await candidates(t, ['contacts', '']), ['ls', 'get', 'add', 'edit', 'rm', 'find', 'dupes', 'help']);
  const flags = await candidates(t, ['contacts', 'ls', '--']);
  for (const f of ['--page', '--all', '--format', '--profile', '--json', '--help']) assert.ok(flags.includes(f), f);
  assert.deepEqual(await candidates(t, ['contacts', 'ls', '--al']), ['--all']);
  // zsh and fish show a description beside each candidate; bash gets the bare values.
  const { stdout } = await runCli(['__complete', 'fish', 'contacts', 'ls', '--for']);
  assert.equal(stdout, '--format\toutput format for data commands\n');
  assert.equal((await runCli(['__complete', 'bash', 'contacts', 'ls', '--for'])).stdout, '--format\n');
});

test('values: --format choices, config actions and keys, profile names, --country codes', async (t) => {
  assert.deepEqual(await candidates(t, ['contacts', 'ls', '--format', '']), ['table', 'json', 'ndjson', 'csv']);
  assert.deepEqual(await candidates(t, ['contacts', 'ls', '--format=nd']), ['--format=ndjson']);
  // bash splits at "=": the answer is for the word after it.
  assert.deepEqual(await candidates(t, ['contacts', 'ls', '--format', '=', 'nd'], 'bash'), ['ndjson']);
  assert.deepEqual(await candidates(t, ['config', '']), ['get', 'set', 'unset', 'list', 'path']);
  assert.deepEqual(await candidates(t, ['config', 'set', '']), ['baseUrl', 'country', 'currency', 'outcomes', 'rate', 'concurrency']);
  assert.deepEqual(await candidates(t, ['import', 'leads.csv', '--country', 'g']), ['GA', 'GB', 'GD', 'GE', 'GF', 'GG', 'GH', 'GI', 'GL', 'GM', 'GN', 'GP', 'GQ', 'GR', 'GT', 'GU', 'GW', 'GY']);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { shop2: { country: 'GB' }, staging: {} } }));
  assert.deepEqual(await candidates(t, ['--profile', ''], 'zsh', { CALLCTL_CONFIG_DIR: dir }), ['default', 'shop2', 'staging']);
  assert.deepEqual(await candidates(t, ['contacts', 'ls', '--profile', 'st'], 'zsh', { CALLCTL_CONFIG_DIR: dir }), ['staging']);
  // Where a file name is wanted, nothing: the shell completes file names itself.
  assert.deepEqual(await candidates(t, ['import', '']), []);
});

test('callctl completion prints a script for each shell; another shell is a usage error', async () => {
  for (const shell of ['bash', 'zsh', 'fish', 'powershell']) {
    const { code, stdout, stderr } = await runCli(['completion', shell]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /callctl' __complete powershell|callctl" __complete (bash|zsh)|callctl __complete fish/);
  }
  assert.match((await runCli(['completion', 'bash'])).stdout, /^complete -o default -o bashdefault -F _callctl_complete callctl$/m);
  const bad = await runCli(['completion', 'tcsh']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^callctl: .*'tcsh' is invalid.* \(see callctl completion --help\)\n$/);
});

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const hasBash = spawnSync('bash', ['--version'], { stdio: 'ignore' }).status === 0;

/** Types `keys` into an interactive bash that sourced the completion; returns the argv each command line ran with. */
async function typeInBash(t: Parameters<typeof tempDir>[0], keys: string): Promise<string[]> {
  const dir = tempDir(t);
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const log = join(dir, 'ran.txt');
  // The stand-in: TABs reach the real callctl; a command line is only recorded.
  writeFileSync(
    join(bin, 'callctl'),
    `#!/bin/sh\nif [ "$1" = __complete ] || [ "$1" = completion ]; then exec "${process.execPath}" "${BIN}" "$@"; fi\nprintf '%s|' "$@" >> "${log}"; echo >> "${log}"\n`,
  );
  chmodSync(join(bin, 'callctl'), 0o755);
  const rc = join(dir, 'bashrc');
  writeFileSync(rc, `PATH="${bin}:$PATH"\nPS1='$ '\nsource <(callctl completion bash)\n`);
  writeFileSync(log, '');
  const child = spawn('script', ['-qec', `bash --noprofile --rcfile ${rc} -i`, '/dev/null'], {
    env: cliEnv({ CALLCTL_CONFIG_DIR: dir, TERM: 'dumb', INPUTRC: '/dev/null' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += d));
  // bash reads one key at a time and runs the completion before it reads the next key.
  child.stdin.write(`${keys}exit\n`);
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise((done) => child.on('close', done));
  clearTimeout(timer);
  assert.equal(code, 0, screen);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

test('in a real bash: callctl cont<TAB> → callctl contacts; a flag; a --format value; a config key', { skip: hasScript && hasBash ? false : 'needs bash and util-linux script(1)' }, async (t) => {
  const ran = await typeInBash(t, 'callctl cont\tls --al\t--format nd\t\ncallctl contacts ls --format=cs\t\ncallctl config set coun\tGB\n');
  assert.deepEqual(ran, ['contacts|ls|--all|--format|ndjson|', 'contacts|ls|--format=csv|', 'config|set|country|GB|']);
});
