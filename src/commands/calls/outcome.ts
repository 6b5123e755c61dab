/**
 * `callctl calls outcome <callId> <outcome> [--value] [--currency]`, or `--from <file|->` for
 * many calls at once (src/writeback/). The outcome's rules are src/writeback/check.ts: the same
 * for the one call and for every row of a file.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { writeOutcome } from '../../api/calls.js';
import { writeRecord } from '../../output/writers.js';
import { checkOutcome } from '../../writeback/check.js';
import type { OutcomeOptions } from './outcome-options.js';

export async function run(ctx: Context, o: OutcomeOptions): Promise<number> {
  if (o.kind === 'file') {
    const { runWriteback } = await import('../../writeback/run-writeback.js');
    return runWriteback(ctx, o);
  }
  const { callId } = o;
  const settings = await ctx.settings();
  const checked = checkOutcome(
    { outcome: o.outcome, value: o.value, currency: o.currency },
    { currency: settings.currency, vocabulary: settings.outcomes },
  );
  if (!checked.ok) throw new UsageError(checked.reason, checked.hint);
  const outcome = checked.outcome;
  const format = ctx.format;
  const client = await ctx.api();
  await warnUnseen(ctx, settings.outcomes, outcome.outcome);
  if (outcome.value === undefined) await warnValueReplaced(ctx, callId);
  const call = await writeOutcome(client, callId, outcome);
  ctx.log.info(`outcome of call ${callId} set to ${outcome.outcome}${outcome.value !== undefined ? ` (${outcome.value} ${outcome.currency})` : ''}`);
  if (format !== 'table') await writeRecord(ctx.deps.io.stdout, format, call, undefined, ctx);
  return 0;
}

/**
 * Without a vocabulary, an outcome never seen among the account's calls is written — it becomes a
 * bucket of its own in the totals — with a warning naming the closest existing one.
 */
async function warnUnseen(ctx: Context, vocabulary: readonly string[] | undefined, name: string): Promise<void> {
  if (vocabulary && vocabulary.length > 0) return;
  const { knownOutcomes } = await import('../../writeback/known.js');
  const { names: known, read, complete } = await knownOutcomes(await ctx.api());
  if (known.size === 0 || known.has(name)) return;
  const { nearest } = await import('../../writeback/check.js');
  const close = nearest(name, [...known]);
  const among = complete ? 'no call has' : `none of the first ${read} calls has`;
  ctx.log.warn(`${among} the outcome "${name}" yet: it starts a group of its own in the totals${close ? ` (did you mean ${close}?)` : ''}; config set outcomes fixes the names`);
}

/**
 * The API does not say what a PATCH without `value` does to a value the call already has: callctl
 * sends what the operator gave, and says so when there is a value to lose.
 */
async function warnValueReplaced(ctx: Context, callId: string): Promise<void> {
  const { getCall } = await import('../../api/calls.js');
  const call = await getCall(await ctx.api(), callId).catch(() => undefined);
  if (call && typeof call.value === 'number') {
    const cur = typeof call.currency === 'string' ? ` --currency ${call.currency}` : '';
    ctx.log.warn(`call ${callId} has a value of ${call.value}${cur ? ` ${String(call.currency)}` : ''}: it is sent without one and may be replaced (to keep it, add --value ${call.value}${cur})`);
  }
}
