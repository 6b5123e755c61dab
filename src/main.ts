/**
 * The entry point: parses argv, runs one command, and turns whatever happened into an exit code.
 * It never calls process.exit, so tests can run it in-process.
 */
import { CommanderError } from 'commander';
import { Context } from './context.js';
import type { Deps } from './deps.js';
import { CallctlError, EXIT, exitCodeOf } from './errors.js';
import { actionParts, type Bind } from './commands/lazy.js';
import { buildProgram } from './program.js';
import type { GlobalOptions } from './config/settings.js';
import { isClosedPipe } from './output/closed.js';
import type { OutStream } from './deps.js';

// What the bin shim needs besides main(), from this one file: a TAB's answer and the real process.
export { systemDeps } from './deps.js';
export { complete } from './commands/completion/complete.js';

/** Streams already guarded (main() may run twice in one process), and those whose reader has gone. */
const guarded = new WeakSet<OutStream>();
const closed = new WeakSet<OutStream>();

/**
 * A write to a pipe whose reader has gone (`| head -1`) emits 'error' (EPIPE); without a listener
 * Node crashes with a stack. Writers see the same failure through their callback and stop; here it
 * only has to be noticed, so that the command ends with exit 0.
 */
function guardPipes(streams: OutStream[]): void {
  for (const s of streams) {
    if (guarded.has(s) || typeof s.on !== 'function') continue;
    s.on('error', (err) => {
      if (isClosedPipe(err)) closed.add(s);
    });
    guarded.add(s);
  }
}

/** Runs callctl with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[], deps: Deps): Promise<number> {
  let exitCode: number = EXIT.ok;
  let ctx: Context | undefined;
  guardPipes([deps.io.stdout, deps.io.stderr]);

  const bind: Bind = (load) => async (...actionArgs) => {
    const { args, opts, command } = actionParts(actionArgs);
    ctx = new Context(deps, command.optsWithGlobals() as GlobalOptions);
    const mod = await load();
    exitCode = await mod.run(ctx, args, opts);
  };

  const program = buildProgram(deps.io, bind, argv);
  try {
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return EXIT.usage;
    }
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    // The reader of stdout has everything it wanted: a quiet end, not a failure.
    if (isClosedPipe(err) || (closed.has(deps.io.stdout) && !(err instanceof CallctlError))) return EXIT.ok;
    if (err instanceof CommanderError) {
      // Commander has already printed help, the version, or the usage error line.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
      // `callctl help x` exits 0; a group typed without its verb (`callctl contacts`) is a usage error.
      if (err.code === 'commander.help') return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return EXIT.usage;
    }
    const verbose = ctx?.log.isVerbose ?? (argv.includes('--verbose') || argv.includes('-v'));
    const line = errorLine(err);
    if (ctx) {
      ctx.log.error(line);
      if (verbose && err instanceof Error && err.stack) ctx.log.block(err.stack);
    } else {
      deps.io.stderr.write(`${line}\n`);
    }
    return exitCodeOf(err);
  } finally {
    await ctx?.close();
  }
}

/** The one line an operator sees: `callctl: <what happened> (<hint>)`. */
export function errorLine(err: unknown): string {
  if (err instanceof CallctlError) {
    return `callctl: ${err.message}${err.hint ? ` (${err.hint})` : ''}`;
  }
  const e = err as Error;
  return `callctl: unexpected error: ${e?.message ?? String(err)} (run again with --verbose for details)`;
}
