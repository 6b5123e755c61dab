/** `callctl import undo <job>` (also `jobs undo`): see src/jobs/run-undo.ts. */
import type { Context } from '../../context.js';
import type { UndoOptions } from '../../jobs/run-undo.js';

export async function run(ctx: Context, o: UndoOptions): Promise<number> {
  const { runUndo } = await import('../../jobs/run-undo.js');
  return runUndo(ctx, o);
}
