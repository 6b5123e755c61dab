/** `callctl calls …`: definitions only; each verb's code loads when it runs. */
import type { Command } from 'commander';
import { type Bind, typed } from '../lazy.js';
import { callsLsOptions } from './ls-options.js';
import { callsGetOptions, callsSummaryOptions } from './options.js';
import { outcomeOptions } from './outcome-options.js';
import { fileJobOptions } from '../file-options.js';
import { listFlags } from '../list-options.js';
import { collect, decimal } from '../parse.js';

/** The `calls` group; its verbs only when `verbs` (the line names the group, see program.ts). */
export function registerCalls(program: Command, bind: Bind, verbs = true): void {
  const calls = program.command('calls').description('list and show calls, write call outcomes back');
  if (!verbs) return;

  listFlags(calls.command('ls').description('list calls, one page or every page (--all, streamed)'), 'calls')
    .option('--outcome <outcome>', 'only calls with this outcome (snake_case, e.g. booked_job); reads every page')
    .option('--since <date>', 'only calls started at or after this time (2026-10-01 or ISO 8601); reads every page')
    .option('--until <date>', 'only calls started before this time; a date alone includes that whole day (UTC); reads every page')
    .option('--contact <id|phone>', 'only the calls of this contact — or of every contact with this phone, as contacts find --phone; reads every page')
    .option('--country <CC>', 'with --contact: region for a national-format phone (default: the profile\'s country)')
    .addHelpText(
      'after',
      `
The API lists calls without filters: with --outcome, --since, --until or --contact every page is read
and the matching calls are printed as each page arrives (--max stops early). --since/--until
compare the call's startedAt; a call without one is left out. Dates without a time or zone are
UTC. --contact compares the call's contactId (or contact_id, or contact). The table's columns are
the fields the calls have (a service that calls the source "source" shows Source).

Examples:
  callctl calls ls
  callctl calls list --all --format ndjson > calls.ndjson
  callctl calls ls --outcome booked_job --since 2026-10-01 --until 2026-10-31 --json
  callctl calls ls --contact "+44 7911 123456" --all`,
    )
    .action(bind(typed(callsLsOptions, () => import('./ls.js'))));

  calls
    .command('get')
    .description('show one call')
    .argument('<callId>', 'call id')
    .addHelpText('after', '\nExamples:\n  callctl calls get call_123 --json')
    .action(bind(typed(callsGetOptions, () => import('./get.js'))));

  fileJobOptions(calls.command('outcome'), { scope: 'with --from: ', job: 'writeback', dryRun: 'check every row, send nothing (needs no key)' })
    .description('write call outcomes (and their values) back: one call, or a file of them with --from')
    .argument('[callId]', 'call id')
    .argument('[outcome]', 'snake_case name, used consistently (e.g. booked_job)')
    .option('--value <n>', 'monetary value of the outcome (≥ 0)', decimal(0))
    .option('--currency <CODE>', 'ISO 4217 code for a value given without one (default: the profile\'s currency)')
    .option('--from <file>', 'a CSV (or - for stdin) with columns callId, outcome, value, currency: one PATCH per row, resumable')
    .option('--map <Header=column>', 'with --from: name the column for callId, outcome, value or currency (repeatable)', collect)
    .addHelpText(
      'after',
      '\nExamples:\n  callctl calls outcome call_123 booked_job --value 250 --currency USD\n  callctl calls outcome call_123 no_answer\n  callctl calls outcome --from outcomes.csv --currency USD\n  callctl calls outcome --from outcomes.csv --resume --json',
    )
    .action(bind(typed(outcomeOptions, () => import('./outcome.js'))));

  calls
    .command('summary')
    .description('total every call per outcome (and per --by field): calls, and value per currency — reads every page')
    .option('--by <field>', 'also group by this field of the call as the service returns it, e.g. source; a field no call has is exit 2, naming those they have')
    .addHelpText('after', '\nCalls without the --by field are grouped under (none).\n\nExamples:\n  callctl calls summary\n  callctl calls summary --by source --json')
    .action(bind(typed(callsSummaryOptions, () => import('./summary.js'))));
}
