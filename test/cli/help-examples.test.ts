// Every example in every `--help`, and every callctl line of the shell blocks of the README and of
// every page of docs/, goes through the real parser (the program callctl builds, with each verb's action replaced by a
// recorder): an example that fails when pasted is a test failure. Parse only — nothing is sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { buildProgram } from '../../src/program.js';
import { actionParts, type Bind } from '../../src/commands/lazy.js';
import type { Io } from '../../src/deps.js';
import { ROOT } from '../helpers/cli.js';

function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.setEncoding('utf8').on('data', (d: string) => (text += d));
  return { stream, text: () => text };
}

/** A program whose verbs record what they were called with instead of running. */
function recordingProgram(): { program: Command; calls: string[]; out: () => string; err: () => string } {
  const out = sink();
  const err = sink();
  const io = { stdin: new PassThrough(), stdout: out.stream, stderr: err.stream } as unknown as Io;
  const calls: string[] = [];
  const bind: Bind = () => async (...actionArgs) => {
    const { command } = actionParts(actionArgs);
    const names: string[] = [];
    for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
    calls.push(names.join(' '));
  };
  return { program: buildProgram(io, bind), calls, out: out.text, err: err.text };
}

/** Shell words of `line` up to the first unquoted | > < ; or &, quotes removed. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) word = (word ?? '') + line[++i];
      else word = (word ?? '') + ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (ch === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if ('|><;&#'.includes(ch) && word === undefined) {
      break;
    } else {
      word = (word ?? '') + ch;
    }
  }
  assert.equal(quote, undefined, `unbalanced quote in: ${line}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** The arguments after `callctl` in a shell line (after `npx`, an env assignment or a pipe too). */
function callctlArgs(line: string): string[] | undefined {
  // `source <(callctl completion bash)`: the command inside a process substitution.
  const inner = /<\((callctl [^)]*)\)/.exec(line)?.[1];
  const segments = inner !== undefined ? [inner] : line.split(/\|(?![^"']*["'][^"']*$)/);
  for (const segment of segments) {
    const words = shellWords(segment.trim());
    const at = words.indexOf('callctl');
    if (at >= 0 && words.slice(0, at).every((w) => w === 'npx' || /^[A-Z_]+=/.test(w))) return words.slice(at + 1);
  }
  return undefined;
}

function allCommands(root: Command): Command[] {
  return [root, ...root.commands.flatMap((c) => allCommands(c))];
}

/** The example lines of one command's --help. */
function helpExamples(path: string[]): string[] {
  const { program, out } = recordingProgram();
  let cmd: Command = program;
  for (const name of path) cmd = cmd.commands.find((c) => c.name() === name)!;
  cmd.outputHelp();
  const text = out();
  const at = text.indexOf('Examples:\n');
  if (at < 0) return [];
  return text.slice(at + 'Examples:\n'.length).split('\n').filter((l) => /^\s+\S/.test(l)).map((l) => l.trim());
}

async function parses(args: string[], where: string): Promise<void> {
  const { program, calls, out, err } = recordingProgram();
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (e) {
    assert.fail(`${where}: "callctl ${args.join(' ')}" does not parse: ${err().trim() || (e as Error).message}`);
  }
  // A verb reached through the lazy bind is recorded; `completion` answers at once, on stdout.
  const reached = calls.length + (args[0] === 'completion' && out().length > 0 ? 1 : 0);
  assert.equal(reached, 1, `${where}: "callctl ${args.join(' ')}" reaches a command`);
}

test('every example of every --help parses with the real parser', async () => {
  const { program } = recordingProgram();
  const paths = allCommands(program).map((c) => {
    const names: string[] = [];
    for (let x: Command | null = c; x && x.parent; x = x.parent) names.unshift(x.name());
    return names;
  });
  let checked = 0;
  for (const path of paths) {
    const isGroup = path.length > 0 && allCommands(program).some((c) => c.name() === path[path.length - 1] && c.commands.length > 0);
    const examples = helpExamples(path);
    if (path.length > 0 && !isGroup) assert.ok(examples.length > 0, `callctl ${path.join(' ')} --help has examples`);
    for (const line of examples) {
      const args = callctlArgs(line);
      assert.ok(args, `callctl ${path.join(' ')}: an example that is not a callctl command: ${line}`);
      assert.doesNotMatch(line, /\bc_\d+/, `ids are shaped ct_…, not c_…: ${line}`);
      await parses(args, `callctl ${path.join(' ')} --help`);
      checked += 1;
    }
  }
  assert.ok(checked >= 25, `${checked} examples checked`);
});

/** The callctl lines of a Markdown file's `sh` blocks, as arguments. */
function shellExamples(file: string): { line: string; args: string[] }[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  return blocks.flatMap((b) => b.split('\n')).flatMap((line) => {
    const args = callctlArgs(line.trim());
    return args && args.length > 0 ? [{ line, args }] : [];
  });
}

/** Every Markdown page under docs/, as a path from the root. */
function docPages(dir = 'docs'): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? docPages(`${dir}/${e.name}`) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : [],
  );
}

test('every callctl line in the README parses, and its examples only call endpoints the sandbox has', async () => {
  const lines = shellExamples('README.md');
  for (const { line, args } of lines) {
    await parses(args, 'README');
    if (args[0] === 'api') assert.match(args[2] ?? '', /^\/(contacts|calls|analytics\/outcomes)\b/, `README example calls an endpoint the sandbox lacks: ${line}`);
  }
  assert.ok(lines.length >= 10, `${lines.length} README lines checked`);
});

test('every callctl line in the shell blocks of docs/ parses', async () => {
  let checked = 0;
  for (const page of docPages()) {
    for (const { args } of shellExamples(page)) {
      await parses(args, page);
      checked += 1;
    }
  }
  assert.ok(checked >= 50, `${checked} lines of docs/ checked`);
});

test('the shell words of an example are what a shell would pass', () => {
  assert.deepEqual(shellWords(`callctl contacts add --phone "020 7946 0958" --data '{"a":1}' > out.json`), ['callctl', 'contacts', 'add', '--phone', '020 7946 0958', '--data', '{"a":1}']);
  assert.deepEqual(callctlArgs(`echo "$KEY" | npx callctl login --base-url https://x`), ['login', '--base-url', 'https://x']);
  assert.deepEqual(callctlArgs(`callctl contacts ls --all --json | jq '.[].phone'`), ['contacts', 'ls', '--all', '--json']);
});
