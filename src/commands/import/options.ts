/** `callctl import`'s options, typed and checked from commander's values (no I/O, no heavy imports). */
import type { ImportOptions } from '../../import/run-import.js';
import { ENCODINGS } from '../file-options.js';
import { choice, required } from '../parse.js';

export function importOptions(args: string[], opts: Record<string, unknown>): ImportOptions {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const o: ImportOptions = {
    file: required(args, 0, 'file'),
    map: Array.isArray(opts.map) ? opts.map.map(String) : [],
    dryRun: opts.dryRun === true,
    resume: opts.resume === true,
    restart: opts.restart === true,
    allowNoPhone: opts.allowNoPhone === true,
    checkExisting: opts.checkExisting === true,
    existing: opts.existing === 'skip' ? 'skip' : 'merge',
  };
  const country = str(opts.country);
  if (country !== undefined) o.country = country;
  const rejects = str(opts.rejects);
  if (rejects !== undefined) o.rejects = rejects;
  const encoding = choice(opts.encoding, ENCODINGS);
  if (encoding !== undefined) o.encoding = encoding;
  const delimiter = str(opts.delimiter);
  if (delimiter !== undefined) o.delimiter = delimiter;
  const sheet = str(opts.sheet);
  if (sheet !== undefined) o.sheet = sheet;
  return o;
}
