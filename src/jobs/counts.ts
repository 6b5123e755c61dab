/**
 * A job's counts as its summary names and counts them, whatever shows them — the summary, `jobs
 * ls`, `jobs show`, the HTML page (docs/commands/jobs.md, "jobs ls"). A journal keeps row endings (records.ts);
 * most are the summary's words already (`created`, `rejected`, `duplicates`…), and these are not:
 * - an undo's contact restored in part (`partly`) is counted in `restored` and in `kept`, as its
 *   summary counts it; a contact an earlier undo finished (`earlier`) is `skipped`; a refusal is
 *   `failed`;
 * - an erasure's `erased` counts contacts, as its summary does — read from its receipts, one a
 *   contact erased and each carrying the job's id (erasure/receipts.ts) — where a journal's row
 *   ending `erased` is a request that erased someone; a refusal is `failed`.
 */
import { readFileSync } from 'node:fs';
import type { JobRecord } from '../bulk/records.js';

/** What a row of a job is, in its summary's words: an erasure's requests, an undo's contacts. */
export function unitOf(kind: string): 'rows' | 'requests' | 'contacts' {
  return kind === 'erasure' ? 'requests' : kind === 'undo' ? 'contacts' : 'rows';
}

/** An undo's counts from its row endings (its summary, and its record). */
export function undoCounts(endings: Record<string, number>): { erased: number; restored: number; kept: number; cannotRestore: number; gone: number; uncertain: number; notStored: number; failed: number; skipped: number } {
  const n = (k: string) => endings[k] ?? 0;
  return {
    erased: n('erased'),
    restored: n('restored') + n('partly'),
    kept: n('kept') + n('partly'),
    cannotRestore: n('cannotRestore'),
    gone: n('gone'),
    uncertain: n('uncertain'),
    notStored: n('notStored'),
    failed: n('failed') + n('rejected'),
    skipped: n('earlier') + n('skipped'),
  };
}

/** Contacts erased by erasure job `id`, from its receipts; undefined when they cannot be read. */
function erasedByReceipts(path: string | undefined, id: string): number | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  let n = 0;
  for (const line of text.split('\n')) {
    if (!line.includes(id)) continue;
    try {
      const r = JSON.parse(line) as Record<string, unknown>;
      if (r.requestId === id && r.erased === true) n += 1;
    } catch {
      // a line cut short by a crash
    }
  }
  return n;
}

/** The counts of a job's record in its summary's words: `rows` first, then the rest, most first, none at 0. */
export function shownCounts(job: JobRecord): Record<string, number> {
  if (job.dryRun || (job.kind !== 'undo' && job.kind !== 'erasure')) return job.counts;
  const { rows, unfinished, ...endings } = job.counts;
  let named: Record<string, number>;
  if (job.kind === 'undo') named = { ...undoCounts(endings) };
  else {
    const erased = erasedByReceipts(job.files.receipts, job.id);
    named = { ...(erased !== undefined ? { erased } : {}), notFound: endings.notFound ?? 0, failed: (endings.failed ?? 0) + (endings.rejected ?? 0), skipped: endings.skipped ?? 0 };
  }
  if (unfinished) named.unfinished = unfinished;
  const rest = Object.entries(named).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  return { ...(rows !== undefined ? { rows } : {}), ...Object.fromEntries(rest) };
}
