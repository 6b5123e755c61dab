/** `callctl calls ls`: one page, or every page streamed with --all. */
import type { Context } from '../../context.js';
import { CALL_CSV, CALL_TABLE, listCalls } from '../../api/calls.js';
import { runList } from '../list.js';

export function run(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<number> {
  return runList(ctx, opts, { list: listCalls, table: CALL_TABLE, csv: CALL_CSV });
}
