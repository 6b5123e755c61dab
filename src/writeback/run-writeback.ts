/**
 * `callctl calls outcome --from <file|->`: outcome writeback for many calls, on the bulk engine
 * (src/bulk/engine.ts) like the import — the same reading of real files, journal, rejects,
 * limiter, progress and Ctrl-C. The plan: a row to one PATCH /calls/{callId} with the outcome
 * checked as the single command checks it (check.ts); a later row for the same call is a
 * duplicate; the server's 4xx rejects the row with its message.
 */
import { resolve } from 'node:path';
import { type Outcome, writeOutcome } from '../api/calls.js';
import type { BulkPlan } from '../bulk/engine.js';
import { endedAs, endJob, headline, jobClient, type JobTally, openFileJob, runFileJob, tallyOf } from '../bulk/file-job.js';
import { checkResumable } from '../bulk/job.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { normalizeHeader, someNames } from '../source/headers.js';
import { besideInput, fdOf, isStreamInput, refuseOutputsOverInputs } from '../output/files.js';
import { type EncodingName, openSource } from '../source/open.js';
import { checkOutcome, isCurrency } from './check.js';

export interface WritebackOptions {
  file: string;
  map: string[];
  dryRun: boolean;
  resume: boolean;
  restart: boolean;
  currency?: string;
  rejects?: string;
  encoding?: EncodingName;
  delimiter?: string;
  /** `jobs resume`: the job this run continues. */
  expectJob?: string | undefined;
}

type Column = 'callId' | 'outcome' | 'value' | 'currency';
/** Header names of each column, compared without case, spaces, `_` or `-`. */
const ALIASES: Record<Column, string[]> = {
  callId: ['callId', 'id', 'call', 'Call ID', 'call_id', 'call-id'],
  outcome: ['outcome', 'Call Outcome', 'result', 'disposition'],
  value: ['value', 'amount', 'revenue', 'deal value'],
  currency: ['currency', 'currency code', 'cur'],
};

/** The contract's keys, in its order: file, rows, updated, then the counts of every job. */
export type WritebackSummary = { file: string; rows: number; updated: number } & JobTally;

/** The column of each field: --map "<Header>=<column>" first, then the aliases. */
function columnsOf(header: string[], maps: string[]): Record<Column, number | undefined> {
  const byName = new Map(header.map((h, i) => [normalizeHeader(h), i] as const));
  const out: Record<Column, number | undefined> = { callId: undefined, outcome: undefined, value: undefined, currency: undefined };
  for (const m of maps) {
    const eq = m.lastIndexOf('=');
    const column = (Object.keys(ALIASES) as Column[]).find((c) => normalizeHeader(c) === normalizeHeader(m.slice(eq + 1)));
    const index = byName.get(normalizeHeader(m.slice(0, eq)));
    if (eq <= 0 || !column) throw new UsageError(`--map "${m}" must be "<Header>=<column>" with a column of callId, outcome, value, currency`);
    if (index === undefined) throw new UsageError(`--map names a column that is not in the file: "${m.slice(0, eq)}"`, `columns: ${someNames(header)}`);
    out[column] = index;
  }
  for (const column of Object.keys(ALIASES) as Column[]) {
    if (out[column] !== undefined) continue;
    for (const alias of ALIASES[column]) {
      const i = byName.get(normalizeHeader(alias));
      if (i !== undefined) {
        out[column] = i;
        break;
      }
    }
  }
  return out;
}

export async function runWriteback(ctx: Context, o: WritebackOptions): Promise<number> {
  const started = ctx.deps.now();
  const settings = await ctx.settings();

  if (o.currency !== undefined && !isCurrency(o.currency.toUpperCase())) throw new UsageError(`--currency ${o.currency} is not an ISO 4217 code`, 'e.g. USD, EUR, GBP');
  const currency = o.currency ?? settings.currency;
  const stdin = o.file === '-';
  const path = stdin ? '-' : resolve(ctx.deps.cwd, o.file);
  checkResumable(o.file, o.resume, path);
  const shownName = stdin ? 'stdin' : o.file;
  const rejectsPath = o.rejects !== undefined ? resolve(ctx.deps.cwd, o.rejects) : besideInput(ctx.deps.cwd, o.file, '.rejects.csv', isStreamInput(path));
  refuseOutputsOverInputs(
    [stdin ? { what: 'stdin, the file of outcomes', fd: fdOf(ctx.deps.io.stdin) } : { what: 'the file of outcomes being read', path }],
    [{ what: o.rejects !== undefined ? '--rejects' : 'the rejects file', path: rejectsPath, shown: o.rejects }, { what: 'stdout', fd: fdOf(ctx.deps.io.stdout) }],
  );
  const client: ApiClient | undefined = o.dryRun ? undefined : await jobClient(ctx, true, 'before its first row');

  const source = await openSource({ path, stdin: ctx.deps.io.stdin, cwdResolve: (p) => p, ...(o.encoding ? { encoding: o.encoding } : {}), ...(o.delimiter ? { delimiter: o.delimiter } : {}) });
  ctx.onClose(() => source.close());
  const cols = columnsOf(source.header, o.map);
  if (cols.callId === undefined || cols.outcome === undefined) {
    throw new UsageError(`no ${cols.callId === undefined ? 'call id' : 'outcome'} column among: ${someNames(source.header)}`, 'name the columns callId and outcome, or use --map "<Header>=callId"');
  }
  const used = (Object.entries(cols) as Array<[Column, number | undefined]>).filter(([, i]) => i !== undefined);
  ctx.log.info(`${shownName}: ${used.map(([c, i]) => `${source.header[i as number]} → ${c}`).join(', ')}`);
  for (const note of source.notes) ctx.log.warn(note);

  const { journal, earlier, rejects, leaveRecord } = await openFileJob(ctx, source, 'writeback', { ...o, rejects: rejectsPath }, { baseUrl: settings.baseUrl, map: o.map, currency, vocabulary: settings.outcomes, encoding: o.encoding, delimiter: o.delimiter }, {
    options: {
      ...(o.map.length > 0 ? { map: o.map } : {}),
      ...(currency !== undefined ? { currency } : {}),
      ...(o.encoding !== undefined ? { encoding: o.encoding } : {}),
      ...(o.delimiter !== undefined ? { delimiter: o.delimiter } : {}),
      ...(o.rejects !== undefined ? { rejects: rejectsPath } : {}),
    },
    client,
  });

  const cell = (cells: string[], i: number | undefined) => (i === undefined ? undefined : (cells[i] ?? '').trim());
  const plan: BulkPlan<{ callId: string; outcome: Outcome }> = {
    check(row) {
      if (row.cells.length > source.header.length && row.cells.slice(source.header.length).some((c) => c.trim() !== '')) {
        return { reject: `row has ${row.cells.length} cells but the header has ${source.header.length}` };
      }
      const callId = cell(row.cells, cols.callId) ?? '';
      if (callId === '') return { reject: 'no call id' };
      if (callId === '.' || callId === '..') return { reject: `the call id "${callId}" cannot be sent as a path segment` };
      const value = cell(row.cells, cols.value);
      // A currency column beside an empty value says nothing: CRM exports fill it on every row.
      const checked = checkOutcome(
        { outcome: cell(row.cells, cols.outcome) ?? '', value, currency: value ? cell(row.cells, cols.currency) : undefined },
        { currency, vocabulary: settings.outcomes },
      );
      if (!checked.ok) return { reject: checked.hint ? `${checked.reason} (${checked.hint})` : checked.reason };
      return { send: { callId, outcome: checked.outcome }, key: callId };
    },
    skipped: (row) => cell(row.cells, cols.callId) || undefined,
    duplicate: (key) => `duplicate: call ${String(key)} is on an earlier row of this file`,
    async send(item, _row, signal) {
      await writeOutcome(client as ApiClient, item.callId, item.outcome, signal);
      return 'updated';
    },
    refused: (err) => (err.status === 404 ? `unknown call (404): ${err.serverMessage ?? err.message}` : `refused by the server (${err.status ?? ''}): ${err.serverMessage ?? err.message}`),
  };

  const result = await runFileJob(ctx, plan, source, { journal, earlier, rejects }, { client, dryRun: o.dryRun, concurrency: settings.concurrency });
  source.close();
  const c = result.counts;
  leaveRecord(rejects.written ? { rejects: rejectsPath } : {}, { rows: c.rows, valid: c.valid, rejected: c.rejected, duplicates: c.duplicates });
  const summary: WritebackSummary = {
    file: shownName,
    rows: c.rows,
    updated: c.endings.updated ?? 0,
    ...tallyOf(ctx, result, { dryRun: o.dryRun, rejectsFile: rejects.written ? rejectsPath : null, client, startedAt: started }),
    ...(c.unfinished > 0 ? { unfinished: c.unfinished } : {}),
  };
  const secs = summary.elapsedMs / 1000;
  const h = headline(endedAs(result), 'wrote back', 'writeback');
  const lines = [
    `${o.dryRun ? 'dry run of the writeback of' : h.opening} ${shownName}: ${c.rows} row${c.rows === 1 ? '' : 's'}${h.afterCount} in ${secs.toFixed(1)} s`,
    o.dryRun ? `  valid       ${c.valid}  (would be written)` : `  updated     ${summary.updated}`,
    `  rejected    ${c.rejected}`,
    `  duplicates  ${c.duplicates}  (same call earlier in the file)`,
  ];
  if (!o.dryRun) lines.push(`  failed      ${c.failed}${c.failed > 0 ? '  (network or server errors: run again with --resume)' : ''}`);
  if (c.skipped > 0) lines.push(`  skipped     ${c.skipped}  (done in an earlier run)`);
  if (c.unfinished > 0) lines.push(`  unfinished  ${c.unfinished}  (--resume sends them)`);
  if (!o.dryRun) lines.push(`  requests    ${summary.requests} (${summary.throttled} met 429)`);
  if (summary.rejectsFile) lines.push(`  rejects  →  ${summary.rejectsFile}`);
  return endJob(ctx, result, summary, { kind: 'writeback', lines, stored: `${summary.updated} calls were written` });
}
