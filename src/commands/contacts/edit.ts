// Placeholder until this verb is built (see the open issue); it fails loudly rather than pretend.
import type { Context } from '../../context.js';
import { RuntimeError } from '../../errors.js';

export async function run(_ctx: Context, _args: string[], _opts: Record<string, unknown>): Promise<number> {
  throw new RuntimeError('not_implemented', 'contacts edit is not built yet', 'see the project issues');
}
