/**
 * `callctl calls outcome <callId> <outcome> [--value] [--currency]`. Calls are grouped by outcome
 * name (seed §2), so the name must be snake_case — anything else is refused with the snake_case
 * spelling to use. A value needs a currency (flag or the profile's default).
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { CALL_CSV, type Outcome, writeOutcome } from '../../api/calls.js';
import { writeRecord } from '../../output/writers.js';

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** `Booked Job` → `booked_job`, `noAnswer` → `no_answer`. */
export function snakeCase(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** ISO 4217 codes this Node knows, upper-case. */
export function isCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && Intl.supportedValuesOf('currency').includes(code);
}

export async function run(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<number> {
  const [callId, name] = args as [string, string];
  if (!SNAKE.test(name)) {
    const suggestion = snakeCase(name);
    throw new UsageError(`outcome "${name}" is not snake_case`, suggestion ? `use ${suggestion}` : 'e.g. booked_job');
  }
  const outcome: Outcome = { outcome: name };
  if (opts.value !== undefined) {
    const value = opts.value as number;
    if (!Number.isFinite(value) || value < 0) throw new UsageError(`--value must be a finite number ≥ 0`);
    const raw = (opts.currency as string | undefined) ?? (await ctx.settings()).currency;
    if (raw === undefined) throw new UsageError('--value needs a currency', 'add --currency USD, or set a default: callctl config set currency USD');
    const currency = raw.toUpperCase();
    if (!isCurrency(currency)) throw new UsageError(`"${raw}" is not an ISO 4217 currency code`, 'e.g. USD, EUR, GBP');
    outcome.value = value;
    outcome.currency = currency;
  } else if (opts.currency !== undefined) {
    throw new UsageError('--currency without --value', 'give the value too, e.g. --value 250 --currency USD');
  }
  const format = ctx.format;
  const call = await writeOutcome(await ctx.api(), callId, outcome);
  ctx.log.info(`outcome of call ${callId} set to ${name}${outcome.value !== undefined ? ` (${outcome.value} ${outcome.currency})` : ''}`);
  if (format !== 'table') await writeRecord(ctx.deps.io.stdout, format, call, CALL_CSV);
  return 0;
}
