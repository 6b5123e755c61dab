/** `callctl login`: definition only. */
import type { Command } from 'commander';
import { type Bind, typed } from '../lazy.js';
import { loginOptions } from './options.js';

export function registerLogin(program: Command, bind: Bind): void {
  program
    .command('login')
    .description('store a secret key (and --base-url) in the profile, after checking it with one request')
    .option('--no-verify', 'store the key without the check request')
    .addHelpText(
      'after',
      '\nThe key is read from a hidden prompt, or from stdin when it is not a terminal.\n\nExamples:\n  callctl login --base-url https://api.example.com/api/v1\n  echo "$KEY" | callctl login --profile staging --base-url https://staging.example.com/api/v1',
    )
    .action(bind(typed(loginOptions, () => import('./run.js'))));
}
