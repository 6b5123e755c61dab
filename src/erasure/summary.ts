/** What an erasure tells the operator: the summary on stderr, and with --json the contract's object. */
import type { BulkResult } from '../bulk/engine.js';
import type { ShownRejects } from '../bulk/rejects.js';
import { endedAs, headline } from '../bulk/file-job.js';
import type { LocalCopy } from './local-copies.js';

export interface ErasureSummary {
  file: string | null;
  requests: number;
  contacts: number;
  erased: number;
  notFound: number;
  failed: number;
  skipped: number;
  dryRun: boolean;
  receiptsFile: string | null;
  elapsedMs: number;
  unfinished?: number;
  /** Dry run: what would be erased (request line → contact id). */
  wouldErase?: Array<{ request: number | string; id: string }>;
  /** The files callctl wrote that hold the people (rows counted, cleaned or not): only when some do. */
  localCopies?: Array<Omit<LocalCopy, 'requests'>>;
}

/** The summary's `localCopies`, only when some file holds the people. */
export const copiesOf = (copies: LocalCopy[]): Pick<ErasureSummary, 'localCopies'> => (copies.length > 0 ? { localCopies: copies.map(({ file, rows, purged }) => ({ file, rows, purged })) } : {});

/**
 * The summary's lines. `asked`: what a request typed on the command line asked for (no file);
 * the refusals are a file's path, or — for a typed request — the server's reasons themselves;
 * `requestId`: the id on each of the run's receipts (receipts.ts).
 */
export function erasureLines(summary: ErasureSummary, result: BulkResult, o: { asked: string; refusals: string | ShownRejects; requestId: string }): string[] {
  const c = result.counts;
  const h = headline(endedAs(result), 'erasure of', 'erasure');
  const lines = [
    `${h.opening} ${summary.file ?? `the contacts with ${o.asked}`}: ${c.rows} request${c.rows === 1 ? '' : 's'}${h.afterCount} in ${(summary.elapsedMs / 1000).toFixed(1)} s`,
    `  erased      ${summary.erased} contact${summary.erased === 1 ? '' : 's'}, with their calls and recordings`,
    `  not found   ${summary.notFound}  (requests that matched no contact)`,
    `  failed      ${summary.failed}${summary.failed > 0 ? '  (run again with --resume)' : ''}`,
  ];
  if (c.skipped > 0) lines.push(`  skipped     ${c.skipped}  (done in an earlier run)`);
  if (c.unfinished > 0) lines.push(`  unfinished  ${c.unfinished}  (--resume erases them)`);
  if (summary.receiptsFile) lines.push(`  receipts →  ${summary.receiptsFile}  (request ${o.requestId})`);
  if (c.rejected > 0 && typeof o.refusals === 'string') lines.push(`  refusals →  ${o.refusals}`);
  else if (c.rejected > 0 && typeof o.refusals !== 'string') for (const reason of o.refusals.reasons) lines.push(`  refused     ${reason}`);
  return lines;
}
