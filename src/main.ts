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

/** Runs callctl with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[], deps: Deps): Promise<number> {
  let exitCode: number = EXIT.ok;
  let ctx: Context | undefined;

  const bind: Bind = (load) => async (...actionArgs) => {
    const { args, opts, command } = actionParts(actionArgs);
    ctx = new Context(deps, command.optsWithGlobals() as GlobalOptions);
    const mod = await load();
    exitCode = await mod.run(ctx, args, opts);
  };

  const program = buildProgram(deps.io, bind);
  try {
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return EXIT.usage;
    }
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
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
