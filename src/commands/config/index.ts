/** `callctl config`: definition only. */
import { type Command, Argument } from 'commander';
import { type Bind, typed } from '../lazy.js';
import { ACTIONS, configOptions } from './options.js';

export function registerConfig(program: Command, bind: Bind): void {
  program
    .command('config')
    .description('read and change profile settings: baseUrl, country, currency, rate, concurrency')
    .addArgument(new Argument('<action>', 'what to do').choices(ACTIONS))
    .argument('[key]', 'setting name')
    .argument('[value]', 'new value (for set)')
    .addHelpText(
      'after',
      '\nExamples:\n  callctl config set country GB\n  callctl config set currency EUR --profile shop2\n  callctl config list',
    )
    .action(bind(typed(configOptions, () => import('./run.js'))));
}
