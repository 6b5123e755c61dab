/**
 * `callctl contacts rm`'s options, typed and checked before any code loads: one id, or an erasure
 * request (`--phone`, `--email` or `--from`) — never two, and the request flags only with a
 * request. `--receipts` and `--purge-local` go with every form: every erasure leaves receipts.
 */
import { UsageError } from '../../errors.js';
import type { ErasureOptions } from '../../erasure/run-erasure.js';
import { ENCODINGS } from '../file-options.js';
import { choice } from '../parse.js';
import { str } from '../../values.js';

export type RmOptions = { kind: 'one'; id: string; confirm: boolean; receipts: string | undefined; purgeLocal: boolean } | ({ kind: 'requests' } & ErasureOptions);

const REQUEST_ONLY = ['country', 'dryRun', 'resume', 'restart', 'encoding'] as const;
const flagName = (k: string) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

export function rmOptions(args: string[], opts: Record<string, unknown>): RmOptions {
  const id = args[0];
  const phone = str(opts.phone);
  const email = str(opts.email);
  const from = str(opts.from);
  const requests = [phone, email, from].filter((x) => x !== undefined).length;
  if (requests > 1 || (requests === 1 && id !== undefined)) throw new UsageError('give one of: an id, --phone, --email, --from', 'e.g. callctl contacts rm --phone "+44 7911 123456" --confirm');
  const receipts = str(opts.receipts);
  const purgeLocal = opts.purgeLocal === true;
  if (email !== undefined && email.trim() === '') throw new UsageError('--email is empty');
  if (requests === 1) {
    return {
      kind: 'requests',
      from,
      phone,
      email,
      country: str(opts.country),
      confirm: opts.confirm === true,
      dryRun: opts.dryRun === true,
      receipts,
      resume: opts.resume === true,
      restart: opts.restart === true,
      encoding: choice(opts.encoding, ENCODINGS),
      purgeLocal,
    };
  }
  if (id === undefined) throw new UsageError('give the id of the contact to erase, or --phone, --email or --from', 'e.g. callctl contacts rm ct_123 --confirm');
  for (const flag of REQUEST_ONLY) if (opts[flag] !== undefined) throw new UsageError(`${flagName(flag)} applies only with --phone, --email or --from`);
  return { kind: 'one', id, confirm: opts.confirm === true, receipts, purgeLocal };
}
