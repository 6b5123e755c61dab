/**
 * The options of `callctl contacts get`, `find` and `dupes`, typed and checked before any code
 * loads: `find` takes exactly one of --phone, --email and --name (docs/commands/contacts.md).
 */
import { UsageError } from '../../errors.js';
import { required } from '../parse.js';
import { str } from '../../values.js';


export interface ContactsGetOptions {
  id: string;
}

export function contactsGetOptions(args: string[]): ContactsGetOptions {
  return { id: required(args, 0, 'id') };
}

/** The person to find: a phone as typed (compared by its digits), an e-mail, or a name. */
export type FindOptions = { country: string | undefined } & ({ by: 'phone'; phone: string } | { by: 'email'; email: string } | { by: 'name'; name: string });

export function findOptions(_args: string[], opts: Record<string, unknown>): FindOptions {
  const phone = str(opts.phone);
  const email = str(opts.email);
  const name = str(opts.name);
  const country = str(opts.country);
  const given = [phone, email, name].filter((x) => x !== undefined).length;
  if (given !== 1) throw new UsageError('give --phone, --email or --name (one of them)', 'e.g. callctl contacts find --phone "+44 7911 123456"');
  if (phone !== undefined) return { by: 'phone', phone, country };
  if (email !== undefined) return { by: 'email', email, country };
  if ((name as string).trim() === '') throw new UsageError('--name holds no name', 'e.g. callctl contacts find --name "Zoë Müller"');
  return { by: 'name', name: name as string, country };
}

export interface DupesOptions {
  country: string | undefined;
  fix: boolean;
}

export function dupesOptions(_args: string[], opts: Record<string, unknown>): DupesOptions {
  return { country: str(opts.country), fix: opts.fix === true };
}
