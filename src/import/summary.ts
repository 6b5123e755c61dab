/** What an import tells the operator: the summary on stderr, and with --json the contract's object. */

export interface Summary {
  file: string;
  rows: number;
  created: number;
  matched: number;
  rejected: number;
  duplicates: number;
  failed: number;
  skipped: number;
  dryRun: boolean;
  rejectsFile: string | null;
  requests: number;
  throttled: number;
  elapsedMs: number;
  /** Rows read but not finished when interrupted (--resume sends them). */
  unfinished?: number;
}

/** The summary lines for a person. */
export function summaryLines(s: Summary, interrupted: boolean): string[] {
  const secs = s.elapsedMs / 1000;
  const sent = s.created + s.matched;
  const lines = [
    `${s.dryRun ? 'dry run of' : interrupted ? 'interrupted import of' : 'imported'} ${s.file}: ${s.rows} row${s.rows === 1 ? '' : 's'} in ${secs.toFixed(1)} s`,
    s.dryRun ? `  valid       ${s.rows - s.rejected - s.duplicates - s.skipped}  (would be sent)` : `  created     ${s.created}`,
  ];
  if (!s.dryRun) lines.push(`  matched     ${s.matched}  (already known by phone: updated)`);
  lines.push(`  rejected    ${s.rejected}`, `  duplicates  ${s.duplicates}  (same phone earlier in the file)`);
  if (!s.dryRun) lines.push(`  failed      ${s.failed}${s.failed > 0 ? '  (network or server errors: run again with --resume)' : ''}`);
  if (s.skipped > 0) lines.push(`  skipped     ${s.skipped}  (done in an earlier run)`);
  if (s.unfinished) lines.push(`  unfinished  ${s.unfinished}  (not sent or aborted in flight: --resume sends them)`);
  if (!s.dryRun) lines.push(`  requests    ${s.requests} (${s.throttled} met 429)${secs > 0 && sent > 0 ? `, ${(sent / secs).toFixed(1)} rows/s` : ''}`);
  if (s.rejectsFile) lines.push(`  rejects  →  ${s.rejectsFile}`);
  return lines;
}
