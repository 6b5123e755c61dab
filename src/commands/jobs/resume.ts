/** `callctl jobs resume <job>`: see src/jobs/resume.ts. */
import type { Context } from '../../context.js';
import type { JobsResumeOptions } from './options.js';

export async function run(ctx: Context, o: JobsResumeOptions): Promise<number> {
  const { resumeJob } = await import('../../jobs/resume.js');
  return resumeJob(ctx, o.job);
}
