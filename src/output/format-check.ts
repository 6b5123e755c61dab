/** An output option given to a command that cannot honour it is a usage error, never ignored. */
import { UsageError } from '../errors.js';

/** What `--format` takes. */
export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * Throws when `--format`/`--json` asks for what `command` does not print. `given` is the format
 * the operator typed (undefined when none); `json` is --json.
 */
export function requireFormat(command: string, given: { format?: string | undefined; json?: boolean | undefined }, allowed: readonly string[], what: string): void {
  const asked = given.json ? 'json' : given.format;
  if (asked === undefined || allowed.includes(asked)) return;
  throw new UsageError(`--format ${asked} does not apply to ${command}: it prints ${what}`, allowed.length > 0 ? `use ${allowed.map((f) => `--format ${f}`).join(' or ')}, or leave it out` : 'leave it out');
}
