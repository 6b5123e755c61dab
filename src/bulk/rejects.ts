/**
 * The rejects file of a bulk job: the original columns in order, plus `error` — so the operator
 * can fix the rows where they came from and feed the file back.
 */
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import { RuntimeError } from '../errors.js';

/** The rejects file, created on the first reject (no reject, no file). Appended to on --resume. */
export class RejectsFile {
  private fd: number | undefined;
  count = 0;

  constructor(
    readonly path: string,
    private readonly header: string[],
    private readonly append: boolean,
  ) {}

  /** One rejected row: its cells, the reason, and its line in the source. */
  add(cells: string[], reason: string, line?: number): void {
    if (this.fd === undefined) {
      const keep = this.append && existsSync(this.path);
      try {
        this.fd = openSync(this.path, keep ? 'a' : 'w', 0o600);
      } catch (err) {
        throw new RuntimeError('rejects_unwritable', `cannot write the rejects file ${this.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'choose another place with --rejects');
      }
      if (!keep) writeSync(this.fd, stringify([[...this.header, 'error', 'line']]));
    }
    const row = this.header.map((_, i) => cells[i] ?? '');
    // Cells beyond the header are kept too: they are what made the row too long.
    for (let i = this.header.length; i < cells.length; i++) row.push(cells[i] as string);
    writeSync(this.fd, stringify([[...row.slice(0, this.header.length), reason, line === undefined ? '' : String(line), ...row.slice(this.header.length)]]));
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
