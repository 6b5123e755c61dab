/**
 * The options of `callctl contacts get`, `find` and `dupes`, typed and checked before any code
 * loads: `find` takes exactly one of --phone and --email (docs/cli.md).
 */
import { UsageError } from '../../errors.js';
import { required } from '../parse.js';

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

export interface ContactsGetOptions {
  id: string;
}

export function contactsGetOptions(args: string[]): ContactsGetOptions {
  return { id: required(args, 0, 'id') };
}

/** The person to find: a phone as typed (read as E.164 with the region), or an e-mail. */
export type FindOptions = { country: string | undefined } & ({ by: 'phone'; phone: string } | { by: 'email'; email: string });

export function findOptions(_args: string[], opts: Record<string, unknown>): FindOptions {
  const phone = str(opts.phone);
  const email = str(opts.email);
  const country = str(opts.country);
  if (phone !== undefined && email === undefined) return { by: 'phone', phone, country };
  if (email !== undefined && phone === undefined) return { by: 'email', email, country };
  throw new UsageError('give --phone or --email (one of them)', 'e.g. callctl contacts find --phone "+44 7911 123456"');
}

export interface DupesOptions {
  country: string | undefined;
  fix: boolean;
}

export function dupesOptions(_args: string[], opts: Record<string, unknown>): DupesOptions {
  return { country: str(opts.country), fix: opts.fix === true };
}
