/** `callctl jobs …` and `callctl import undo`: definitions only; each verb's code loads when it runs. */
import { type Command, Option } from 'commander';
import { type Bind, typed } from '../lazy.js';
import { jobsLsOptions, jobsResumeOptions, jobsShowOptions, undoOptions } from './options.js';

/** `undo <job>`'s arguments, flags and help: the same under `import` and under `jobs`. */
export function undoCommand(cmd: Command, bind: Bind, parent: string): Command {
  return cmd
    .description('put the service back as it was before an import: erase the contacts it created, give changed ones their earlier values back')
    .argument('<job>', 'the import\'s job id, or a unique prefix of it (see callctl jobs ls)')
    .option('--dry-run', 'read each contact and say what the undo would do; change nothing')
    .option('--confirm', 'do it: contacts the import created are erased, with their calls and recordings (irreversible)')
    .option('--include-changed', 'also undo contacts and fields someone changed since the import (kept and named otherwise)')
    .option('--include-uncertain', 'also erase contacts the import may have created — matched after an attempt whose answer was lost, with nothing to tell (kept and named otherwise)')
    .addOption(new Option('--resume', 'continue an interrupted undo of this import').conflicts('restart'))
    .addOption(new Option('--restart', 'ignore an interrupted undo of this import and start another').conflicts('resume'))
    .addHelpText(
      'after',
      `
A contact the import changed gets back the values it had before, field by field, when the import
read it first (--check-existing): the earlier values are in its journal. A contact or field whose
value is no longer what the import wrote is kept and named. Running it again sends nothing. It
runs only with the base URL and key that ran the import.

Examples:
  callctl ${parent} undo 3fa9c2 --dry-run
  callctl ${parent} undo 3fa9c2 --confirm
  callctl ${parent} undo 3fa9c2 --confirm --include-changed --json`,
    )
    .action(bind(typed(undoOptions, () => import('./undo.js'))));
}

/** The `jobs` group; its verbs only when `verbs` (the line names the group, see program.ts). */
export function registerJobs(program: Command, bind: Bind, verbs = true): void {
  const jobs = program.command('jobs').description('every bulk job the journals know — imports, writebacks, erasures, undos: list, show how it ran, resume, undo');
  if (!verbs) return;

  jobs
    .command('ls')
    .alias('list')
    .description('every job in the records, newest first: id, kind, file, started, how long, state, counts')
    .addHelpText(
      'after',
      `
Finished jobs are kept 30 days, or as many as "callctl config set jobsKept N" says.

Examples:
  callctl jobs ls
  callctl jobs ls --json
  callctl jobs ls --format csv > jobs.csv`,
    )
    .action(bind(typed(jobsLsOptions, () => import('./ls.js'))));

  jobs
    .command('show')
    .description('one job: its summary, options, files, and a chart of how it ran (requests admitted per second, 429s, the limit)')
    .argument('<job>', 'job id, or a unique prefix of it')
    .option('--html <file>', 'also write one self-contained page (inline SVG, no network) with the chart, the counts and the reject reasons')
    .addHelpText('after', '\nExamples:\n  callctl jobs show 3fa9c2\n  callctl jobs show 3fa9c2 --html report.html\n  callctl jobs show 3fa9c2 --json')
    .action(bind(typed(jobsShowOptions, () => import('./show.js'))));

  jobs
    .command('resume')
    .description('resume an interrupted job with the file and options it ran with (refused when the file changed)')
    .argument('<job>', 'job id, or a unique prefix of it')
    .addHelpText('after', '\nExamples:\n  callctl jobs resume 3fa9c2\n  callctl jobs resume 3fa9c2 --json')
    .action(bind(typed(jobsResumeOptions, () => import('./resume.js'))));

  undoCommand(jobs.command('undo'), bind, 'jobs');
}
