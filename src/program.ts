/**
 * The command tree: global options (accepted before or after the subcommand) and every group's
 * definitions. Holds no command code — see commands/lazy.ts.
 */
import { Command, Option } from 'commander';
import type { Io } from './deps.js';
import { registerApi } from './commands/api/index.js';
import { registerAuth } from './commands/auth/index.js';
import { registerCalls } from './commands/calls/index.js';
import { registerConfig } from './commands/config/index.js';
import { registerCompletion } from './commands/completion/index.js';
import { registerContacts } from './commands/contacts/index.js';
import { registerImport } from './commands/import/index.js';
import { addVerbAliases } from './commands/aliases.js';
import { registerJobs } from './commands/jobs/index.js';
import { registerLimit } from './commands/limit/index.js';
import type { Bind } from './commands/lazy.js';
import { registerLogin } from './commands/login/index.js';
import { decimal, integer } from './commands/parse.js';
import { CEILINGS, DEFAULTS } from './config/settings.js';
import { registerSandbox } from './commands/sandbox/index.js';
import { addReference } from './commands/reference.js';

export const VERSION = '0.1.0';

/** Turns commander's "error: …" text into the contract's one line: `callctl: <what> (<hint>)`. */
function usageLine(text: string, commandPath: string): string {
  const what = text
    .trim()
    .replace(/^error:\s*/i, '')
    .replace(/\s*\n\s*\((Did you mean [^)]*)\)/, (_m, dym: string) => `; ${dym.charAt(0).toLowerCase()}${dym.slice(1)}`)
    .replace(/\s*\n\s*/g, ' ');
  return `callctl: ${what} (see ${commandPath} --help)\n`;
}

/**
 * Builds the program; `bind` wires each verb to its lazily loaded module. Given the words of the
 * command line, a group (`contacts`, `calls`) gets its verbs only when its name is among them:
 * the top-level help lists a group by name and description alone, and defining the eleven verbs
 * and their options was a third of what `--help` cost (BENCHMARKS.md §4). Without words, the
 * whole tree.
 */
export function buildProgram(io: Io, bind: Bind, words?: readonly string[]): Command {
  const named = (group: string) => words === undefined || words.includes(group);
  const program = new Command('callctl');
  program
    .description('Operate the call-handling and lead platform: contacts, call outcomes, erasure, and rate-limited lead imports.')
    .version(VERSION, '-V, --version', 'print the version')
    .option('--profile <name>', 'config profile (env CALLCTL_PROFILE; default "default")')
    .option('--base-url <url>', 'API base ending in /api/v1 (env CALLCTL_BASE_URL)')
    .option('--json', 'machine output: JSON on stdout (same as --format json)')
    .addOption(new Option('--format <format>', 'output format for data commands').choices(['table', 'json', 'ndjson', 'csv']))
    .option('--csv-raw', "CSV cells exactly as stored: no ' before a cell starting with = + - @ (the spreadsheet formula guard)")
    .option('--rate <n>', 'ceiling in requests per second (env CALLCTL_RATE; default adaptive)', decimal(0, Number.POSITIVE_INFINITY, true))
    .option('--concurrency <n>', 'most requests in flight (default 4)', integer(1, 64))
    .option('--timeout <ms>', `each request's deadline in milliseconds, its answer's body included (default ${DEFAULTS.timeoutMs}, at most ${CEILINGS.timeoutMs})`, integer(1, CEILINGS.timeoutMs))
    .option('--max-pause <s>', `longest 429 pause to wait through, in seconds; a longer one stops with --resume advice (default 600, at most ${CEILINGS.maxPauseS})`, integer(1, CEILINGS.maxPauseS))
    .option('--max-answer <MB>', `largest answer read, in MB; a larger one is refused (default ${DEFAULTS.maxAnswerMb}, at most ${CEILINGS.maxAnswerMb})`, integer(1, CEILINGS.maxAnswerMb))
    .option('--redis-url <url>', 'share one rate-limit budget with every callctl using this key, through Redis (env CALLCTL_REDIS_URL)')
    .option('--require-redis', 'with --redis-url: stop (exit 1) rather than pace alone when Redis is unreachable')
    .option('-q, --quiet', 'less on stderr')
    .option('-v, --verbose', 'more on stderr: each request (key masked), stack traces')
    .option('--no-color', 'no ANSI colour (also NO_COLOR)')
    .addHelpText(
      'after',
      `
Environment: CALLCTL_API_KEY (the secret key; never a flag), CALLCTL_BASE_URL, CALLCTL_PROFILE,
CALLCTL_RATE, CALLCTL_CONFIG_DIR, CALLCTL_REDIS_URL, NO_COLOR; HTTPS_PROXY, HTTP_PROXY, NO_PROXY
(a proxy), NODE_EXTRA_CA_CERTS (a CA of your own).

Exit codes: 0 ok, 1 runtime failure, 2 usage, 3 auth, 4 not found, 5 rejected by the server,
6 import finished with rejected/failed rows, 130 interrupted.

Examples:
  callctl sandbox --port 4010 --seed 20
  callctl import leads.csv --country US
  callctl contacts ls --all --format csv > contacts.csv`,
    )
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(usageLine(s, 'callctl')),
    });

  registerContacts(program, bind, named('contacts'));
  registerCalls(program, bind, named('calls'));
  registerImport(program, bind, words);
  registerJobs(program, bind, named('jobs'));
  registerLimit(program, bind);
  registerApi(program, bind);
  registerLogin(program, bind);
  registerAuth(program, bind);
  registerConfig(program, bind);
  registerSandbox(program, bind);
  registerCompletion(program, io);
  addVerbAliases(program);

  // Subcommands made with .command() inherit exitOverride/configureOutput at creation; keep the
  // hint pointing at the command the operator typed. Every help ends naming its reference page.
  addReference(program, []);
  for (const cmd of allCommands(program)) {
    cmd.configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(usageLine(s, commandPath(cmd))),
    });
    addReference(cmd, commandPath(cmd).split(' ').slice(1));
  }
  return program;
}

function allCommands(root: Command): Command[] {
  return root.commands.flatMap((c) => [c, ...allCommands(c)]);
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
