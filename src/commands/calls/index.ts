/** `callctl calls …`: definitions only; each verb's code loads when it runs. */
import type { Command } from 'commander';
import type { Bind } from '../lazy.js';
import { decimal, integer } from '../parse.js';

export function registerCalls(program: Command, bind: Bind): void {
  const calls = program.command('calls').description('list and show calls, write call outcomes back');

  calls
    .command('ls')
    .description('list calls, one page or every page (--all, streamed)')
    .option('--page <n>', 'page to show (default 1)', integer(1))
    .option('--limit <n>', 'calls per page (default 50)', integer(1))
    .option('--all', 'every page, in order, printed as it arrives')
    .option('--max <n>', 'with --all: stop after this many calls', integer(1))
    .addHelpText('after', '\nExamples:\n  callctl calls ls\n  callctl calls ls --all --format ndjson > calls.ndjson')
    .action(bind(() => import('./ls.js')));

  calls
    .command('get')
    .description('show one call')
    .argument('<callId>', 'call id')
    .addHelpText('after', '\nExamples:\n  callctl calls get call_123 --json')
    .action(bind(() => import('./get.js')));

  calls
    .command('outcome')
    .description('write a call\'s outcome (and its value) back to the service')
    .argument('<callId>', 'call id')
    .argument('<outcome>', 'snake_case name, used consistently (e.g. booked_job)')
    .option('--value <n>', 'monetary value of the outcome (≥ 0)', decimal(0))
    .option('--currency <CODE>', 'ISO 4217 code for --value (default: the profile\'s currency)')
    .addHelpText('after', '\nExamples:\n  callctl calls outcome call_123 booked_job --value 250 --currency USD\n  callctl calls outcome call_123 no_answer')
    .action(bind(() => import('./outcome.js')));
}
