/** `callctl config path`: where the config file is. */
import type { Context } from '../../context.js';

export async function run(ctx: Context): Promise<number> {
  ctx.deps.io.stdout.write(`${(await ctx.config()).path}\n`);
  return 0;
}
