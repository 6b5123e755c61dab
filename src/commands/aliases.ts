/**
 * The verbs every group answers to by two names, as gh and kubectl do: `list` for `ls`, `remove`
 * for `rm`. Given once, for the whole tree (program.ts), so that a group added later gets them by
 * naming its verbs `ls` and `rm`; `--help` shows `ls|list`, and completion offers both.
 */
import type { Command } from 'commander';

export const VERB_ALIASES: Readonly<Record<string, string>> = { ls: 'list', rm: 'remove' };

/** Adds the aliases to every command of the tree under `root` whose name has one. */
export function addVerbAliases(root: Command): void {
  for (const cmd of root.commands) {
    const alias = VERB_ALIASES[cmd.name()];
    if (alias !== undefined && !cmd.aliases().includes(alias) && !root.commands.some((c) => c.name() === alias)) cmd.alias(alias);
    addVerbAliases(cmd);
  }
}
