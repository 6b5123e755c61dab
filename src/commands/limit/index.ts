/** `callctl limit`: definition only. */
import { type Command, Argument } from 'commander';
import { type Bind, typed } from '../lazy.js';
import { limitOptions } from './options.js';

export function registerLimit(program: Command, bind: Bind): void {
  program
    .command('limit')
    .description("what callctl knows of the service's rate limit for this base URL and key, and where it came from")
    .addArgument(new Argument('[action]', 'forget: drop what is remembered, so that the next job learns it afresh').choices(['forget']))
    .addHelpText(
      'after',
      '\nEvery job starts from the limit the last one learnt (a little under it) and confirms it as it goes;\nit never raises a --rate ceiling. Exit 4 when nothing is known.\n\nExamples:\n  callctl limit\n  callctl limit --json --profile staging\n  callctl limit forget',
    )
    .action(bind(typed(limitOptions, () => import('./run.js'))));
}
