/** `callctl api`: definition only. */
import type { Command } from 'commander';
import { type Bind, typed } from '../lazy.js';
import { apiOptions } from './options.js';
import { collect } from '../parse.js';

export function registerApi(program: Command, bind: Bind): void {
  program
    .command('api')
    .description('call any endpoint of the API (same auth, throttle, retries and errors); prints the JSON body')
    .argument('<method>', 'GET, POST, PATCH, PUT or DELETE')
    .argument('<path>', 'path under the base URL, e.g. /messages')
    .option('-f, --field <key=value>', 'a body field (repeatable); for GET, a query parameter', collect)
    .option('--input <file|->', 'the request body as JSON, from a file or stdin')
    .option('--paginate', 'follow the pages of a list endpoint')
    .option('--confirm', 'required for DELETE: an erasure through the escape hatch is still irreversible')
    .addHelpText(
      'after',
      '\nExamples:\n  callctl api GET /analytics/outcomes\n  callctl api GET /calls --paginate -f limit=100\n  callctl api POST /messages -f to=+15551234567 -f body="Thanks for calling"   # the real service; the sandbox has no /messages\n  callctl api DELETE /contacts/ct_123 --confirm',
    )
    .action(bind(typed(apiOptions, () => import('./run.js'))));
}
