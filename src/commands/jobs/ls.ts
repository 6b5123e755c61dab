/** `callctl jobs ls`: see src/jobs/show.ts. */
import type { Context } from '../../context.js';
import type { JobsLsOptions } from './options.js';

export async function run(ctx: Context, _o: JobsLsOptions): Promise<number> {
  const { listJobs } = await import('../../jobs/show.js');
  return listJobs(ctx);
}
