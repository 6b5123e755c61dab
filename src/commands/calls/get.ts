/** `callctl calls get <callId>`. */
import type { Context } from '../../context.js';
import { getCall } from '../../api/calls.js';
import { writeRecord } from '../../output/writers.js';
import type { CallsGetOptions } from './options.js';

export async function run(ctx: Context, o: CallsGetOptions): Promise<number> {
  const format = ctx.format;
  const call = await getCall(await ctx.api(), o.callId);
  await writeRecord(ctx.deps.io.stdout, format, call, undefined, ctx);
  return 0;
}
