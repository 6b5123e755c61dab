/**
 * What an import tells the operator: the rejects file (the original columns in order, plus
 * `error`), the summary on stderr, and the JSON summary of the contract on stdout with --json.
 */
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import { RuntimeError } from '../errors.js';

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
}

/** The rejects file, created on the first reject (no reject, no file). Appended to on --resume. */
export class RejectsFile {
  private fd: number | undefined;
  count = 0;

  constructor(
    readonly path: string,
    private readonly header: string[],
    private readonly append: boolean,
  ) {}

  add(cells: string[], reason: string): void {
    if (this.fd === undefined) {
      const keep = this.append && existsSync(this.path);
      try {
        this.fd = openSync(this.path, keep ? 'a' : 'w', 0o600);
      } catch (err) {
        throw new RuntimeError('rejects_unwritable', `cannot write the rejects file ${this.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'choose another place with --rejects');
      }
      if (!keep) writeSync(this.fd, stringify([[...this.header, 'error']]));
    }
    const row = this.header.map((_, i) => cells[i] ?? '');
    // Cells beyond the header are kept too: they are what made the row too long.
    for (let i = this.header.length; i < cells.length; i++) row.push(cells[i] as string);
    writeSync(this.fd, stringify([[...row.slice(0, this.header.length), reason, ...row.slice(this.header.length)]]));
    this.count += 1;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  get written(): boolean {
    return this.count > 0 || (this.append && existsSync(this.path));
  }
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
  if (!s.dryRun) lines.push(`  requests    ${s.requests} (${s.throttled} met 429)${secs > 0 && sent > 0 ? `, ${(sent / secs).toFixed(1)} rows/s` : ''}`);
  if (s.rejectsFile) lines.push(`  rejects  →  ${s.rejectsFile}`);
  return lines;
}
