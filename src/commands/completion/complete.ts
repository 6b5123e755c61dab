/**
 * `callctl __complete <shell> <word>… <current>`: the candidates for the word under the cursor,
 * one a line (`value<TAB>description`), read from the same command tree that parses the command
 * line — commands, subcommands, flags (the global ones too, which are accepted anywhere), and the
 * values that are known: an option's choices (`--format`), profile names, `config` keys, region
 * codes for `--country`, the worksheet names of the `.xlsx` on the line for `--sheet`. It prints
 * nothing where a file name is wanted. Called by the bin shim directly, before commander sees
 * the words: no command runs, nothing is sent, no config written.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import type { Env, Io } from '../../deps.js';
import { buildProgram } from '../../program.js';
import { ConfigStore, PROFILE_KEYS } from '../../config/store.js';

interface Candidate {
  value: string;
  description?: string;
}

/** Prints the candidates; always exit 0 (a completion never fails loudly). */
export async function complete(argv: string[], io: Io, env: Env): Promise<number> {
  const [shell = 'bash', ...words] = argv;
  const silent = { write: () => true } as unknown as Io['stdout'];
  // Not `{ ...io }`: that would read stdin, which a real process makes on first access.
  const quiet: Io = {
    get stdin() {
      return io.stdin;
    },
    stdout: silent,
    stderr: silent,
  };
  const program = buildProgram(quiet, () => async () => undefined, words);
  try {
    const lines = (await candidates(program, shell, words.length ? words : [''], env)).map((c) => {
      const value = quoted(shell, c.value);
      return c.description && shell !== 'bash' ? `${value}\t${c.description.replace(/\s+/g, ' ')}` : value;
    });
    if (lines.length) io.stdout.write(`${lines.join('\n')}\n`);
  } catch {
    // An unreadable config or a half-typed line: offer nothing rather than an error mid-prompt.
  }
  return 0;
}

export async function candidates(program: Command, shell: string, input: string[], env: Env): Promise<Candidate[]> {
  let words = [...input];
  let cur = words.pop() ?? '';
  // bash passes the word as typed: `March\ le` is the start of "March leads".
  if (shell === 'bash') cur = cur.replace(/\\(.)/g, '$1');
  // bash splits at `=`: `--format=js` arrives as `--format`, `=`, `js` (cursor on `js`) or as
  // `--format`, `=` (cursor on `=`). Answer for what bash will replace.
  let bashEq: '' | '=' | 'value' = '';
  if (shell === 'bash') {
    if (cur === '=' && words.at(-1)?.startsWith('--')) {
      bashEq = '=';
      cur = `${words.pop()}=`;
    } else if (words.at(-1) === '=' && words.at(-2)?.startsWith('--')) {
      bashEq = 'value';
      words.pop();
      cur = `${words.pop()}=${cur}`;
    }
    words = joinEquals(words);
  }

  // Walk the words typed before the cursor: subcommands, options (skipping their values), positionals.
  let cmd = program;
  const positionals: string[] = [];
  const values: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--') break;
    if (w.startsWith('-') && w !== '-') {
      const [flag, inline] = splitEq(w);
      const opt = findOption(cmd, flag);
      if (opt && takesValue(opt)) {
        const value = inline ?? words[++i];
        if (value !== undefined) values[opt.attributeName()] = value;
      }
      continue;
    }
    const sub = positionals.length === 0 ? cmd.commands.find((c) => c.name() === w || c.aliases().includes(w)) : undefined;
    if (sub) cmd = sub;
    else positionals.push(w);
  }

  // A value for the option just before the cursor, or after `--opt=`.
  const prev = words.at(-1);
  const prevOpt = prev && prev.startsWith('-') && !prev.includes('=') ? findOption(cmd, prev) : undefined;
  if (prevOpt && takesValue(prevOpt) && !(words.length >= 2 && isValueOfPrevious(cmd, words))) {
    return filter(await optionValues(prevOpt, values, env, positionals), cur);
  }
  if (cur.startsWith('--') && cur.includes('=')) {
    const [flag, partial = ''] = splitEq(cur);
    const opt = findOption(cmd, flag);
    if (!opt || !takesValue(opt)) return [];
    const found = filter(await optionValues(opt, values, env, positionals), partial);
    const prefix = bashEq === 'value' ? '' : bashEq === '=' ? '=' : `${flag}=`;
    return found.map((c) => ({ ...c, value: `${prefix}${c.value}` }));
  }
  if (cur.startsWith('-')) return filter(flags(cmd), cur);

  // A verb's aliases (`list` for `ls`, commands/aliases.ts) are offered beside its name. A command
  // that takes a file of its own (`import <file>`) offers no subcommand (`undo`): the shell's file
  // names would be hidden behind it.
  const subs = positionals.length === 0 && cmd.registeredArguments.length === 0 ? cmd.createHelp().visibleCommands(cmd).flatMap((c) => [c.name(), ...c.aliases()].map((value) => ({ value, description: c.description() }))) : [];
  return filter([...subs, ...(await positionalValues(cmd, positionals, env))], cur);
}

/** Every flag that applies here: the command's own, then its parents' (global options). */
function flags(cmd: Command): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) {
    const help = c.createHelp();
    for (const o of help.visibleOptions(c)) {
      if (o.long && !seen.has(o.long)) {
        seen.add(o.long);
        out.push({ value: o.long, description: o.description });
      }
    }
  }
  return out;
}

async function optionValues(opt: Option, values: Record<string, string>, env: Env, positionals: string[]): Promise<Candidate[]> {
  if (opt.argChoices?.length) return opt.argChoices.map((value) => ({ value }));
  const name = opt.attributeName();
  if (name === 'profile') return profiles(env);
  if (name === 'country') return regions();
  if (name === 'sheet' && positionals[0] !== undefined) return sheets(positionals[0]);
  return [];
}

/**
 * The worksheet names of the workbook on the line (`import book.xlsx --sheet <TAB>`), in its own
 * order: only `xl/workbook.xml` (and its relations) is read from the ZIP — no spreadsheet library.
 */
async function sheets(file: string): Promise<Candidate[]> {
  const path = file.startsWith('~/') ? join(homedir(), file.slice(2)) : file;
  try {
    const { sheetNames } = await import('../../source/workbook.js');
    const names = await sheetNames(path);
    if (names === undefined) return [];
    return [...names.map((value) => ({ value })), { value: 'all', description: 'every sheet whose header maps' }];
  } catch {
    // No such file (yet), or not a workbook: nothing to offer.
    return [];
  }
}

/**
 * A value as the shell must receive it to insert it as one word: bash inserts a candidate as
 * typed (a backslash before each special character), PowerShell too (single quotes); zsh's
 * `_describe` and fish quote by themselves.
 */
function quoted(shell: string, value: string): string {
  if (shell === 'bash') return value.replace(/[\s'"\\$`!&;|<>()*?[\]#~{}]/g, '\\$&');
  if (shell === 'powershell' && /[\s'"`$@#(){};,|&<>]/.test(value)) return `'${value.replace(/'/g, "''")}'`;
  return value;
}

async function positionalValues(cmd: Command, positionals: string[], env: Env): Promise<Candidate[]> {
  const arg = cmd.registeredArguments[positionals.length];
  if (cmd.name() === 'config' && positionals.length === 1 && ['get', 'set', 'unset'].includes(positionals[0]!)) {
    return PROFILE_KEYS.map((value) => ({ value }));
  }
  if (cmd.name() === 'config' && positionals.length === 2 && positionals[0] === 'set' && positionals[1] === 'country') return regions();
  if (arg?.argChoices?.length) return arg.argChoices.map((value) => ({ value }));
  if (arg?.name() === 'job' && positionals.length === 0) return jobIds(env);
  return [];
}

/** The ids of the jobs in the records, newest first, each described by its kind, file and state. */
async function jobIds(env: Env): Promise<Candidate[]> {
  try {
    const { readJobs } = await import('../../bulk/records.js');
    const { journalsDir } = await import('../../bulk/job.js');
    return readJobs(journalsDir((await ConfigStore.open(env)).path)).map((j) => ({ value: j.id, description: `${j.kind} of ${j.file === '-' ? 'stdin' : j.file} (${j.state})` }));
  } catch {
    return [];
  }
}

/** Profile names in the config file, and "default" (ConfigStore reads it as plain JSON). */
async function profiles(env: Env): Promise<Candidate[]> {
  const names = new Set(['default']);
  try {
    for (const name of (await ConfigStore.open(env)).names()) names.add(name);
  } catch {
    // An unreadable config: only the default profile.
  }
  return [...names].map((value) => ({ value }));
}

/** The phone library's region list, written in by the build (scripts/build.mjs); absent from source. */
declare const CALLCTL_REGIONS: readonly string[] | undefined;

/**
 * ISO 3166 region codes the phone library knows. The built CLI has the list the build read from
 * the library, so a TAB does not load its ~310 KB of metadata (BENCHMARKS.md §4); run from source,
 * the library is asked.
 */
async function regions(): Promise<Candidate[]> {
  const list = typeof CALLCTL_REGIONS !== 'undefined' ? CALLCTL_REGIONS : (await import('libphonenumber-js/max')).getCountries();
  return list.map((value) => ({ value }));
}

function filter(list: Candidate[], prefix: string): Candidate[] {
  const p = prefix.toLowerCase();
  const seen = new Set<string>();
  return list.filter((c) => c.value.toLowerCase().startsWith(p) && !seen.has(c.value) && seen.add(c.value));
}

function findOption(cmd: Command, flag: string): Option | undefined {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const o = c.options.find((x) => x.long === flag || x.short === flag);
    if (o) return o;
  }
  return undefined;
}

function takesValue(o: Option): boolean {
  return o.required || o.optional;
}

/** True when the last word is itself the value of the option before it (`--profile -x` is not). */
function isValueOfPrevious(cmd: Command, words: string[]): boolean {
  const before = words.at(-2)!;
  const o = before.startsWith('-') && !before.includes('=') ? findOption(cmd, before) : undefined;
  return Boolean(o && takesValue(o));
}

function splitEq(w: string): [string, string | undefined] {
  const i = w.indexOf('=');
  return i < 0 ? [w, undefined] : [w.slice(0, i), w.slice(i + 1)];
}

function joinEquals(words: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '=' && out.length && out.at(-1)!.startsWith('--')) out[out.length - 1] += `=${words[++i] ?? ''}`;
    else out.push(words[i]!);
  }
  return out;
}

