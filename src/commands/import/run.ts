/** `callctl import <file|->`: see src/import/run-import.ts for the pipeline. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { EncodingName } from '../../import/source.js';

export async function run(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<number> {
  const { runImport } = await import('../../import/run-import.js');
  const format = ctx.format;
  if ((format === 'csv' || format === 'ndjson') && opts.dryRun !== true) {
    throw new UsageError(`--format ${format} prints the rows as they would be sent: it needs --dry-run`, 'add --dry-run, or use --json for the summary');
  }
  return runImport(ctx, {
    checkExisting: opts.checkExisting === true,
    existing: opts.existing === 'skip' ? 'skip' : 'merge',
    rowsFormat: format === 'csv' || format === 'ndjson' ? format : undefined,
    file: args[0] as string,
    ...(opts.country !== undefined ? { country: opts.country as string } : {}),
    map: (opts.map as string[] | undefined) ?? [],
    dryRun: opts.dryRun === true,
    ...(opts.rejects !== undefined ? { rejects: opts.rejects as string } : {}),
    resume: opts.resume === true,
    restart: opts.restart === true,
    allowNoPhone: opts.allowNoPhone === true,
    ...(opts.encoding !== undefined ? { encoding: opts.encoding as EncodingName } : {}),
    ...(opts.delimiter !== undefined ? { delimiter: opts.delimiter as string } : {}),
    ...(opts.sheet !== undefined ? { sheet: opts.sheet as string } : {}),
  });
}
