/** `callctl import <file|->`: see src/import/run-import.ts for the pipeline. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { ImportOptions } from '../../import/run-import.js';

export async function run(ctx: Context, o: ImportOptions): Promise<number> {
  const { runImport } = await import('../../import/run-import.js');
  const format = ctx.format;
  if ((format === 'csv' || format === 'ndjson') && !o.dryRun) {
    throw new UsageError(`--format ${format} prints the rows as they would be sent: it needs --dry-run`, 'add --dry-run, or use --json for the summary');
  }
  return runImport(ctx, { ...o, ...(format === 'csv' || format === 'ndjson' ? { rowsFormat: format } : {}) });
}
