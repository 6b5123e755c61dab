/**
 * `callctl calls outcome`'s options, typed and checked before any code loads: one call and its
 * outcome, or `--from` a file — never both, and the file flags only with a file.
 */
import { UsageError } from '../../errors.js';
import { fileJobValues } from '../file-options.js';
import type { WritebackOptions } from '../../writeback/run-writeback.js';
import { str, strings } from '../../values.js';

export type OutcomeOptions =
  | { kind: 'one'; callId: string; outcome: string; value: number | undefined; currency: string | undefined }
  | ({ kind: 'file' } & WritebackOptions);

const FILE_ONLY = ['dryRun', 'resume', 'restart', 'rejects', 'map', 'encoding', 'delimiter'] as const;
const flagName = (k: string) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

export function outcomeOptions(args: string[], opts: Record<string, unknown>): OutcomeOptions {
  const [callId, outcome] = args;
  const from = str(opts.from);
  const currency = str(opts.currency);
  if (from !== undefined) {
    if (callId !== undefined) throw new UsageError('give either a call and its outcome, or --from a file, not both', 'callctl calls outcome --from outcomes.csv');
    const o: { kind: 'file' } & WritebackOptions = {
      kind: 'file',
      file: from,
      map: strings(opts.map),
      ...fileJobValues(opts),
    };
    if (currency !== undefined) o.currency = currency;
    return o;
  }
  for (const flag of FILE_ONLY) if (opts[flag] !== undefined) throw new UsageError(`${flagName(flag)} applies only with --from`, 'callctl calls outcome --from outcomes.csv');
  if (callId === undefined || outcome === undefined) throw new UsageError('give a call id and an outcome, or --from a file', 'callctl calls outcome call_123 booked_job');
  const value = typeof opts.value === 'number' ? opts.value : undefined;
  if (currency !== undefined && value === undefined) throw new UsageError('--currency without --value', 'give the value too, e.g. --value 250 --currency USD');
  return { kind: 'one', callId, outcome, value, currency };
}
