/** The options of `callctl jobs …` and `import undo`, typed before any code loads. */
import { required } from '../parse.js';
import { str } from '../../values.js';
import type { UndoOptions } from '../../jobs/run-undo.js';

/** Nothing of its own: --json and --format are global. */
export type JobsLsOptions = Record<string, never>;

export function jobsLsOptions(): JobsLsOptions {
  return {};
}

export interface JobsShowOptions {
  job: string;
  /** --html <file>: the self-contained page. */
  html: string | undefined;
}

export function jobsShowOptions(args: string[], opts: Record<string, unknown>): JobsShowOptions {
  return { job: required(args, 0, 'job'), html: str(opts.html) };
}

export interface JobsResumeOptions {
  job: string;
}

export function jobsResumeOptions(args: string[]): JobsResumeOptions {
  return { job: required(args, 0, 'job') };
}

export function undoOptions(args: string[], opts: Record<string, unknown>): UndoOptions {
  return {
    job: required(args, 0, 'job'),
    dryRun: opts.dryRun === true,
    confirm: opts.confirm === true,
    includeChanged: opts.includeChanged === true,
    includeUncertain: opts.includeUncertain === true,
    resume: opts.resume === true,
    restart: opts.restart === true,
  };
}
