// Shell completion: `callctl completion <shell>` prints a script; on each TAB the script asks
// `callctl __complete` for candidates. The candidates are checked directly, then the bash script
// in a real interactive bash on a pty (util-linux script): the line it leaves is what the command
// then receives, recorded by a stand-in `callctl` on PATH. The fish script runs in a real fish
// (`complete -C` completes a line as a TAB would), the zsh script in a real zsh with compinit (its
// function called as the completion system calls it), PowerShell's is checked for its shape
// (no pwsh here). Shells that are not installed are skipped (.ci/run installs zsh and fish).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cliEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';

async function candidates(t: Parameters<typeof tempDir>[0], words: string[], shell = 'zsh', env: Record<string, string> = {}): Promise<string[]> {
  const { code, stdout, stderr } = await runCli(['__complete', shell, ...words], { env: { CALLCTL_CONFIG_DIR: tempDir(t), ...env } });
  assert.equal(code, 0, stderr);
  assert.equal(stderr, '');
  return stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!);
}

test('commands, subcommands and flags (global ones too, after the subcommand)', async (t) => {
  assert.deepEqual(await candidates(t, ['cont']), ['contacts']);
  assert.ok((await candidates(t, [''])).includes('completion'));
  assert.deepEqual(await candidates(t, ['contacts', '']), ['ls', 'list', 'get', 'add', 'edit', 'rm', 'remove', 'find', 'dupes', 'help']);
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
  assert.deepEqual(await candidates(t, ['config', 'set', '']), ['baseUrl', 'country', 'currency', 'outcomes', 'rate', 'concurrency', 'jobsKept']);
  assert.deepEqual(await candidates(t, ['import', 'leads.csv', '--country', 'g']), ['GA', 'GB', 'GD', 'GE', 'GF', 'GG', 'GH', 'GI', 'GL', 'GM', 'GN', 'GP', 'GQ', 'GR', 'GT', 'GU', 'GW', 'GY']);
  // Every region the phone library knows (the build writes its list in: test/cli/lazy.test.ts).
  const { getCountries } = await import('libphonenumber-js/max');
  assert.deepEqual(await candidates(t, ['import', 'leads.csv', '--country', '']), getCountries());
  const dir = tempDir(t);
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { shop2: { country: 'GB' }, staging: {} } }));
  assert.deepEqual(await candidates(t, ['--profile', ''], 'zsh', { CALLCTL_CONFIG_DIR: dir }), ['default', 'shop2', 'staging']);
  assert.deepEqual(await candidates(t, ['contacts', 'ls', '--profile', 'st'], 'zsh', { CALLCTL_CONFIG_DIR: dir }), ['staging']);
  // A broken config file: the default profile alone, and no error in the middle of a prompt.
  const broken = tempDir(t);
  writeFileSync(join(broken, 'config.json'), '{"profiles": ');
  assert.deepEqual(await candidates(t, ['--profile', ''], 'zsh', { CALLCTL_CONFIG_DIR: broken }), ['default']);
  // Where a file name is wanted, nothing: the shell completes file names itself.
  assert.deepEqual(await candidates(t, ['import', '']), []);
});

const WORKBOOK = join(ROOT, 'fixtures', 'leads.xlsx');

test('--sheet: the worksheet names of the .xlsx on the line, quoted as each shell inserts them', async (t) => {
  assert.deepEqual(await candidates(t, ['import', WORKBOOK, '--sheet', '']), ['Leads', 'March leads', 'all']);
  assert.deepEqual(await candidates(t, ['import', WORKBOOK, '--country', 'GB', '--sheet', 'mar']), ['March leads']);
  assert.deepEqual(await candidates(t, ['import', WORKBOOK, '--sheet=M']), ['--sheet=March leads']);
  // bash inserts a candidate as it is: the space escaped; what was typed arrives escaped too.
  assert.deepEqual(await candidates(t, ['import', WORKBOOK, '--sheet', ''], 'bash'), ['Leads', 'March\\ leads', 'all']);
  assert.deepEqual(await candidates(t, ['import', WORKBOOK, '--sheet', 'March\\ l'], 'bash'), ['March\\ leads']);
  assert.deepEqual(await candidates(t, ['import', WORKBOOK, '--sheet', 'M'], 'powershell'), ["'March leads'"]);
  // Not a workbook, no such file, no file yet: nothing (the shell's own default applies).
  assert.deepEqual(await candidates(t, ['import', join(ROOT, 'fixtures', 'outlook.csv'), '--sheet', '']), []);
  assert.deepEqual(await candidates(t, ['import', join(ROOT, 'fixtures', 'missing.xlsx'), '--sheet', '']), []);
  assert.deepEqual(await candidates(t, ['import', '--sheet', '']), []);
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

test('in a real bash: callctl cont<TAB> → callctl contacts; a flag; a --format value; a config key; a sheet', { skip: hasScript && hasBash ? false : 'needs bash and util-linux script(1)' }, async (t) => {
  const ran = await typeInBash(t, `callctl cont\tls --al\t--format nd\t\ncallctl contacts ls --format=cs\t\ncallctl config set coun\tGB\ncallctl import ${WORKBOOK} --sheet Mar\t\n`);
  assert.deepEqual(ran, ['contacts|ls|--all|--format|ndjson|', 'contacts|ls|--format=csv|', 'config|set|country|GB|', `import|${WORKBOOK}|--sheet|March leads|`]);
});

/** A folder with a stand-in `callctl` (the real one, through this Node) to put first on PATH. */
function standIn(t: Parameters<typeof tempDir>[0]): string {
  const bin = join(tempDir(t), 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'callctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'callctl'), 0o755);
  return bin;
}

const has = (shell: string) => spawnSync(shell, ['--version'], { stdio: 'ignore' }).status === 0;

test('in a real fish: the script loads, and completing "callctl cont", a --format value and a sheet gives the candidates', { skip: has('fish') ? false : 'fish is not installed' }, async (t) => {
  const bin = standIn(t);
  const lines = [
    'callctl completion fish | source',
    'complete -C "callctl cont"',
    'echo ---',
    'complete -C "callctl contacts ls --format nd"',
    'echo ---',
    `complete -C "callctl import ${WORKBOOK} --sheet M"`,
  ];
  const r = spawnSync('fish', ['--no-config', '-c', lines.join('\n')], { env: cliEnv({ PATH: `${bin}:${process.env.PATH}`, CALLCTL_CONFIG_DIR: tempDir(t) }), encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  const [cont, format, sheet] = r.stdout.split('---\n');
  assert.equal(cont, 'contacts\tlist, show, create, change and erase contacts\n');
  assert.equal(format, 'ndjson\n');
  assert.equal(sheet, 'March leads\n');
});

test('in a real zsh with compinit: the script loads, registers itself, and its function offers the candidates', { skip: has('zsh') ? false : 'zsh is not installed' }, async (t) => {
  const bin = standIn(t);
  // The completion system calls the function with `words` and `CURRENT` set; _describe (which
  // needs a live line editor) is replaced by one that prints what it was given, _files by a marker.
  const lines = [
    'autoload -Uz compinit && compinit -u -D',
    'source <(callctl completion zsh)',
    'print -r -- "registered: $_comps[callctl]"',
    '_describe() { print -rl -- "${(@P)${@[-1]}}"; }',
    '_files() { print -r -- FILES; }',
    'words=(callctl cont); CURRENT=2; _callctl_complete',
    `words=(callctl import ${WORKBOOK} --sheet ''); CURRENT=5; _callctl_complete`,
    'words=(callctl contacts ls --format=nd); CURRENT=4; _callctl_complete',
    "words=(callctl import ''); CURRENT=3; _callctl_complete",
  ];
  const r = spawnSync('zsh', ['-f', '-c', lines.join('\n')], { env: cliEnv({ PATH: `${bin}:${process.env.PATH}`, CALLCTL_CONFIG_DIR: tempDir(t) }), encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.deepEqual(r.stdout.split('\n').filter(Boolean), [
    'registered: _callctl_complete',
    'contacts:list, show, create, change and erase contacts',
    'Leads',
    'March leads',
    'all:every sheet whose header maps',
    '--format=ndjson',
    'FILES',
  ]);
});

test('the PowerShell script has the shape Register-ArgumentCompleter -Native expects', async () => {
  const { stdout } = await runCli(['completion', 'powershell']);
  const body = stdout.split('\n').filter((l) => !l.startsWith('#')).join('\n');
  assert.match(body, /^Register-ArgumentCompleter -Native -CommandName 'callctl' -ScriptBlock \{\n {4}param\(\$wordToComplete, \$commandAst, \$cursorPosition\)\n/);
  assert.match(body, /\[System\.Management\.Automation\.CompletionResult\]::new\(\$parts\[0\], \$parts\[0\], 'ParameterValue', \$tip\)/);
  assert.match(body, /__complete powershell /);
  // Balanced braces and parentheses outside quoted strings, and every quote closed.
  const depth = { '{': 0, '(': 0 };
  let quote: string | undefined;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quote) {
      if (c === '`' && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '{' || c === '(') depth[c]++;
    else if (c === '}') assert.ok(--depth['{'] >= 0, `} at ${i}`);
    else if (c === ')') assert.ok(--depth['('] >= 0, `) at ${i}`);
  }
  assert.equal(quote, undefined);
  assert.deepEqual(depth, { '{': 0, '(': 0 });
  assert.match(body, /\}\n$/);
});
