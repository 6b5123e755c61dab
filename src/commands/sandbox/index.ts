/** `callctl sandbox`: definition only; the server code loads when it runs. */
import type { Command } from 'commander';
import type { Bind } from '../lazy.js';
import { decimal, integer } from '../parse.js';

export function registerSandbox(program: Command, bind: Bind): void {
  program
    .command('sandbox')
    .description('run a local, in-memory implementation of the API until killed (for rehearsals and tests)')
    .option('--port <n>', 'port (0 picks a free one)', integer(0, 65535), 4010)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--rate-limit <n>', 'requests per second per key (0 turns limiting off)', decimal(0), 20)
    .option('--burst <n>', 'token-bucket size (default: the rate)', integer(1))
    .option('--faults <p>', 'share of requests that fail (500, 503, dropped, held back)', decimal(0, 1), 0)
    .option('--fault-delay <ms>', 'how long a held-back reply waits', integer(0), 5000)
    .option('--seed <n>', 'create this many calls (and their contacts) at start', integer(0), 0)
    .option('--data <file>', 'load state from this file at start, save it at exit')
    .addHelpText(
      'after',
      '\nExamples:\n  callctl sandbox --port 4010 --seed 20\n  callctl sandbox --port 0 --json --rate-limit 5 --faults 0.2',
    )
    .action(bind(() => import('./run.js')));
}
