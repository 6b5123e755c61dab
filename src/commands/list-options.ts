/**
 * The flags `contacts ls` and `calls ls` share — --page, --limit, --all, --max — defined once, and
 * the typed object they become. No heavy imports: the command tree loads this for every run.
 */
import type { Command } from 'commander';
import { integer } from './parse.js';

/** What every listing is given; `runList` (list.ts) reads only this. */
export interface ListOptions {
  page: number | undefined;
  limit: number | undefined;
  all: boolean;
  max: number | undefined;
}

/** Adds the shared listing flags; `noun` is what is listed ("contacts", "calls"). */
export function listFlags(cmd: Command, noun: string): Command {
  return cmd
    .option('--page <n>', 'page to show (default 1)', integer(1))
    .option('--limit <n>', `${noun} per page (default 50)`, integer(1))
    .option('--all', 'every page, in order, printed as it arrives')
    .option('--max <n>', `list up to this many ${noun}, across pages as needed (with or without --all)`, integer(1));
}

/** Commander's values of the shared flags (each already parsed and range-checked there). */
export function listOptions(opts: Record<string, unknown>): ListOptions {
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return { page: num(opts.page), limit: num(opts.limit), all: opts.all === true, max: num(opts.max) };
}
