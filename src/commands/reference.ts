/**
 * The page of the reference each command's `--help` names on its last line (docs/development.md,
 * "The documents, and the README's examples"): a page per command group in docs/commands/, and
 * docs/cli.md for what they all share. Plain strings: `--help` loads nothing more for them.
 */
import type { Command } from 'commander';

/** A command's path (`contacts rm`) → the page its help names; a verb not listed takes its group's. */
const REFERENCE: Readonly<Record<string, string>> = {
  '': 'docs/cli.md (what every command shares), and a page per command group in docs/commands/',
  import: 'docs/commands/import.md (import undo: docs/commands/jobs.md)',
  'import undo': 'docs/commands/jobs.md',
  calls: 'docs/commands/contacts.md (calls outcome: docs/commands/writeback.md)',
  'calls outcome': 'docs/commands/writeback.md',
  contacts: 'docs/commands/contacts.md (contacts rm: docs/commands/erasure.md)',
  'contacts rm': 'docs/commands/erasure.md',
  jobs: 'docs/commands/jobs.md',
  login: 'docs/commands/auth.md',
  auth: 'docs/commands/auth.md',
  config: 'docs/commands/auth.md',
  limit: 'docs/commands/auth.md',
  completion: 'docs/commands/auth.md',
  api: 'docs/commands/api.md',
  sandbox: 'docs/commands/sandbox.md',
};

/** The page `path` names: its own entry, else its group's first page. */
function referenceOf(path: readonly string[]): string | undefined {
  const own = REFERENCE[path.join(' ')];
  if (own !== undefined) return own;
  const group = path.length > 1 ? REFERENCE[path[0] as string] : undefined;
  return group?.split(' ')[0];
}

/** Ends the help of `cmd` (at `path`) with `Reference: <page>`. */
export function addReference(cmd: Command, path: readonly string[]): void {
  const page = referenceOf(path);
  if (page !== undefined) cmd.addHelpText('after', `\nReference: ${page}`);
}
