/** `callctl sandbox`'s options, typed from commander's values (each already parsed and range-checked there). */
import type { SandboxOptions } from '../../sandbox/index.js';
import type { HeaderStyle, LimiterShape } from '../../sandbox/ratelimit.js';
import { UsageError } from '../../errors.js';
import { callSourceFieldError } from './call-fields.js';
import { choice } from '../parse.js';

/**
 * The shapes `--limiter` offers, and the header forms of `--ratelimit-headers` (docs/commands/sandbox.md):
 * the sandbox's own lists, restated because the command tree must not load the sandbox's code.
 */
export const LIMITERS: readonly LimiterShape[] = ['bucket', 'window', 'sliding', 'concurrency'];
export const HEADER_STYLES: readonly HeaderStyle[] = ['none', 'draft6', 'draft8', 'x'];

export type SandboxCommandOptions = SandboxOptions & { port: number; host: string; rateLimit: number; limiter: LimiterShape; rateLimitHeaders: HeaderStyle };

export function sandboxOptions(_args: string[], opts: Record<string, unknown>): SandboxCommandOptions {
  const num = (v: unknown, d: number) => (typeof v === 'number' ? v : d);
  const o: SandboxCommandOptions = {
    port: num(opts.port, 4010),
    host: typeof opts.host === 'string' ? opts.host : '127.0.0.1',
    rateLimit: num(opts.rateLimit, 20),
    limiter: choice(opts.limiter, LIMITERS) ?? 'bucket',
    windowMs: num(opts.window, 1000),
    maxInflight: num(opts.maxInflight, 4),
    latencyMs: num(opts.latency, 0),
    wireDelayMs: num(opts.wireDelay, 0),
    rateLimitHeaders: choice(opts.ratelimitHeaders, HEADER_STYLES) ?? 'draft6',
    faults: num(opts.faults, 0),
    faultDelayMs: num(opts.faultDelay, 5000),
    seed: num(opts.seed, 0),
  };
  if (typeof opts.burst === 'number') o.burst = opts.burst;
  if (typeof opts.data === 'string') o.dataFile = opts.data;
  if (typeof opts.callSourceField === 'string') {
    const wrong = callSourceFieldError(opts.callSourceField);
    if (wrong) throw new UsageError(`--call-source-field ${wrong}`, 'e.g. --call-source-field source');
    o.callSourceField = opts.callSourceField;
  }
  return o;
}
