/** `callctl sandbox`: definition only; the server code loads when it runs. */
import { Option, type Command } from 'commander';
import { type Bind, typed } from '../lazy.js';
import { HEADER_STYLES, LIMITERS, sandboxOptions } from './options.js';
import { decimal, integer } from '../parse.js';

export function registerSandbox(program: Command, bind: Bind): void {
  program
    .command('sandbox')
    .description('run a local, in-memory implementation of the API until killed (for rehearsals and tests)')
    .option('--port <n>', 'port (0 picks a free one)', integer(0, 65535), 4010)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--rate-limit <n>', 'requests per second per key (0 turns limiting off)', decimal(0), 20)
    .option('--burst <n>', 'token-bucket size (default: the rate)', integer(1))
    .addOption(new Option('--limiter <shape>', 'the limit\'s shape: a token bucket, fixed windows aligned to the clock, a sliding window, or a cap on requests answered at once').choices(LIMITERS).default('bucket'))
    .option('--window <ms>', 'window length for --limiter window|sliding (quota = rate × window)', integer(1), 1000)
    .option('--max-inflight <n>', 'for --limiter concurrency: most requests answered at once', integer(1), 4)
    .option('--latency <ms>', 'every admitted request takes this long to answer', integer(0), 0)
    .option('--wire-delay <ms>', 'a network\'s one-way delay: each request reaches the limiter, and each answer (429s too) leaves, this much later', integer(0, 10_000), 0)
    .addOption(new Option('--ratelimit-headers <form>', 'rate-limit headers on answers: none (only 429 + Retry-After), draft6 (RateLimit-*), draft8 (RateLimit-Policy + RateLimit), x (X-RateLimit-*, Unix-time reset)').choices(HEADER_STYLES).default('draft6'))
    .option('--faults <p>', 'share of requests that fail (500, 503, dropped, held back)', decimal(0, 1), 0)
    .option('--fault-delay <ms>', 'how long a held-back reply waits', integer(0), 5000)
    .option('--seed <n>', 'create this many calls (and their contacts) at start', integer(0), 0)
    .option('--data <file>', 'load state from this file at start, save it at exit')
    .option('--call-source-field <name>', 'the name of a call\'s source field (google_ads, website…), in calls, --seed data and /analytics/outcomes', 'channel')
    .addHelpText(
      'after',
      '\nExamples:\n  callctl sandbox --port 4010 --seed 20\n  callctl sandbox --port 0 --json --rate-limit 5 --faults 0.2\n  callctl sandbox --limiter window --window 10000 --rate-limit 30 --ratelimit-headers none\n  callctl sandbox --limiter concurrency --max-inflight 3 --latency 40\n  callctl sandbox --seed 20 --call-source-field source',
    )
    .action(bind(typed(sandboxOptions, () => import('./run.js'))));
}
