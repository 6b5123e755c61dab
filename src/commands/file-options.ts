/**
 * The options every command that reads a file of rows shares (import, calls outcome --from,
 * contacts rm --from): one definition, so the same flag says the same thing everywhere.
 */
import { type Command, Option } from 'commander';
import type { EncodingName } from '../source/open.js';
import { choice } from './parse.js';

/** The encodings --encoding offers (docs/commands/import.md, "Reading the file"); the file's own BOM or bytes decide when it is not given. */
export const ENCODINGS: readonly EncodingName[] = ['utf8', 'utf16le', 'latin1', 'windows-1252'];

/** Adds --dry-run, --rejects, --resume/--restart, --encoding and --delimiter; `scope` prefixes their help (e.g. "with --from: "). */
export function fileJobOptions(cmd: Command, o: { scope?: string; job: string; dryRun: string }): Command {
  const scope = o.scope ?? '';
  return cmd
    .option('--dry-run', `${scope}${o.dryRun}`)
    .option('--rejects <path>', `${scope}where rejected rows go (default <file>.rejects.csv)`)
    .addOption(new Option('--resume', `${scope}continue the unfinished ${o.job} of this file`).conflicts('restart'))
    .addOption(new Option('--restart', `${scope}ignore the journal of an earlier run and start over`).conflicts('resume'))
    .addOption(new Option('--encoding <name>', `${scope}file encoding (default: detected — a UTF-8/UTF-16 BOM, else UTF-8 when the bytes are valid UTF-8, else windows-1252)`).choices(ENCODINGS))
    .option('--delimiter <c>', `${scope}column delimiter (default: detected among , ; tab |)`);
}

/** What those flags become in a job's typed options; the optional ones only when given. */
export interface FileJobValues {
  dryRun: boolean;
  resume: boolean;
  restart: boolean;
  rejects?: string;
  encoding?: EncodingName;
  delimiter?: string;
}

/** Commander's values of the flags `fileJobOptions` adds. */
export function fileJobValues(opts: Record<string, unknown>): FileJobValues {
  const o: FileJobValues = { dryRun: opts.dryRun === true, resume: opts.resume === true, restart: opts.restart === true };
  if (typeof opts.rejects === 'string') o.rejects = opts.rejects;
  const encoding = choice(opts.encoding, ENCODINGS);
  if (encoding !== undefined) o.encoding = encoding;
  if (typeof opts.delimiter === 'string') o.delimiter = opts.delimiter;
  return o;
}
