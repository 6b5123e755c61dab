/**
 * How a command's code is reached: the command tree only holds definitions, and an action imports
 * its verb's module when it runs — so `--help` and `--version` load nothing else.
 */
import type { Command } from 'commander';
import type { Context } from '../context.js';

/** A verb's module: turns positionals and options into work, and returns the exit code. */
export interface CommandModule {
  run(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<number>;
}

export type Loader = () => Promise<CommandModule>;

/** Binds a lazily loaded verb to a commander action. */
export type Bind = (load: Loader) => (...actionArgs: unknown[]) => Promise<void>;

/** Splits commander's action arguments into positionals, the command's own options, and the command. */
export function actionParts(actionArgs: unknown[]): { args: string[]; opts: Record<string, unknown>; command: Command } {
  const command = actionArgs[actionArgs.length - 1] as Command;
  const args = actionArgs.slice(0, -2).flatMap((a) => (Array.isArray(a) ? a.map(String) : a === undefined ? [] : [String(a)]));
  return { args, opts: command.opts(), command };
}

/**
 * How every verb is bound: its options are one typed object, which `toOptions` (the verb's
 * `*options.ts`, beside its index.ts) makes from commander's values — and checks — before the
 * verb's code loads, so a bad option costs no import and `run` casts nothing. The object is what
 * the in-process tests (test/cli/options.test.ts) assert on.
 */
export function typed<O>(
  toOptions: (args: string[], opts: Record<string, unknown>) => O,
  load: () => Promise<{ run(ctx: Context, o: O): Promise<number> }>,
): Loader {
  return async () => ({
    async run(ctx, args, opts) {
      const o = toOptions(args, opts);
      return (await load()).run(ctx, o);
    },
  });
}
