/** `callctl jobs show <job> [--html <file>]`: see src/jobs/show.ts. */
import type { Context } from '../../context.js';
import type { JobsShowOptions } from './options.js';

export async function run(ctx: Context, o: JobsShowOptions): Promise<number> {
  const { showJob } = await import('../../jobs/show.js');
  return showJob(ctx, o);
}
