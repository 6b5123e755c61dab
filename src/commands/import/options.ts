/** `callctl import`'s options, typed and checked from commander's values (no I/O, no heavy imports). */
import type { ImportOptions } from '../../import/run-import.js';
import { fileJobValues } from '../file-options.js';
import { required } from '../parse.js';
import { str, strings } from '../../values.js';

export function importOptions(args: string[], opts: Record<string, unknown>): ImportOptions {
  const o: ImportOptions = {
    file: required(args, 0, 'file'),
    map: strings(opts.map),
    ...fileJobValues(opts),
    allowNoPhone: opts.allowNoPhone === true,
    keepOtherPhones: opts.keepOtherPhones === true,
    checkExisting: opts.checkExisting === true,
    existing: opts.existing === 'skip' ? 'skip' : 'merge',
  };
  const country = str(opts.country);
  if (country !== undefined) o.country = country;
  const sheet = str(opts.sheet);
  if (sheet !== undefined) o.sheet = sheet;
  return o;
}
