/**
 * The rejects file of a bulk job: the original columns in order, then `error` and `line` (the
 * row's line in the source) — so the operator can find each row where it came from, fix it, and
 * feed the file back. It is written as the source was: the same delimiter and encoding (a file
 * from Excel on Windows comes back as Windows-1252 with semicolons), and a UTF-8 one with a BOM so
 * that Excel reads its accents. The original cells are written exactly as they were read: they are
 * the operator's own data, from a file the operator already opened, and a guard would change them
 * (a `+44…` phone, a `-` note). The `error` cell is callctl's text and may quote a server's
 * message: it carries the CSV formula guard (output/csv-guard.ts) unless --csv-raw, which the
 * reader takes off again when the file is fed back. It is written as every
 * job file is (output/files.ts): whole under a temporary name then renamed, appended to on
 * --resume, masked.
 */
import { stringify } from 'csv-stringify/sync';
import iconv from 'iconv-lite';
import { RuntimeError } from '../errors.js';
import { guardCell } from '../output/csv-guard.js';
import { JobFile, type Redact } from '../output/files.js';

/** How the source was written, for a rejects file Excel opens as it opened the source. */
export interface SourceShape {
  delimiter: string;
  /** utf8, utf16le, utf16be, latin1, windows-1252. */
  encoding: string;
}

const ICONV: Record<string, string> = { utf8: 'utf8', utf16le: 'utf16le', utf16be: 'utf16be', latin1: 'win1252', 'windows-1252': 'win1252' };
const BOM: Record<string, Buffer> = { utf8: Buffer.from([0xef, 0xbb, 0xbf]), utf16le: Buffer.from([0xff, 0xfe]), utf16be: Buffer.from([0xfe, 0xff]) };

/** How the rejects file is written: masked like stderr, the `error` cell guarded unless `csvRaw`. */
export interface RejectsWriting {
  redact: Redact;
  csvRaw?: boolean | undefined;
}

/** Where a job's rejected rows go: its rejects file, or — for a job that read no file — its summary. */
export interface Rejects {
  /** One rejected row: its cells, the reason, and its line in the source (a workbook's `Leads!12`). */
  add(cells: string[], reason: string, line?: number | string): void;
  close(): void;
  /** Drops this run's rows: the job stored nothing and leaves no record (engine.ts). */
  discard(): void;
  readonly count: number;
  /** Whether a rejects file holds rows (of this run or, on --resume, an earlier one). */
  readonly written: boolean;
}

/**
 * The rejected rows of a job that read no file (one erasure request typed on the command line):
 * their reasons, for its summary to show — never a file beside an input there is not.
 */
export class ShownRejects implements Rejects {
  readonly reasons: string[] = [];
  readonly written = false;

  get count(): number {
    return this.reasons.length;
  }

  add(_cells: string[], reason: string): void {
    this.reasons.push(reason);
  }

  close(): void {}

  discard(): void {}
}

/** The rejects file, created on the first reject (no reject, no file). Appended to on --resume. */
export class RejectsFile implements Rejects {
  private file: JobFile | undefined;
  count = 0;

  private readonly encoding: string;
  private readonly delimiter: string;
  private readonly cell: (text: string) => string;
  private readonly redact: Redact;

  constructor(
    readonly path: string,
    private readonly header: string[],
    private readonly append: boolean,
    shape: SourceShape = { delimiter: ',', encoding: 'utf8' },
    writing: RejectsWriting = { redact: (t) => t },
  ) {
    this.encoding = ICONV[shape.encoding] ?? 'utf8';
    this.delimiter = shape.delimiter;
    this.cell = writing.csvRaw ? (t) => t : guardCell;
    this.redact = writing.redact;
  }

  private write(row: string[]): void {
    (this.file as JobFile).write(stringify([row], { delimiter: this.delimiter }), (t) => iconv.encode(t, this.encoding));
  }

  /** One rejected row: its cells, the reason, and its line in the source. */
  add(cells: string[], reason: string, line?: number | string): void {
    if (this.file === undefined) {
      let fresh: boolean;
      try {
        ({ file: this.file, fresh } = JobFile.open(this.path, { append: this.append, redact: this.redact }));
      } catch (err) {
        throw new RuntimeError('rejects_unwritable', `cannot write the rejects file ${this.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'choose another place with --rejects');
      }
      if (fresh) {
        const bom = BOM[this.encoding];
        if (bom) this.file.writeBytes(bom);
        this.write([...this.header, 'error', 'line']);
      }
    }
    const row = this.header.map((_, i) => cells[i] ?? '');
    // Cells beyond the header are kept too: they are what made the row too long.
    for (let i = this.header.length; i < cells.length; i++) row.push(cells[i] as string);
    this.write([...row.slice(0, this.header.length), this.cell(reason), line === undefined ? '' : String(line), ...row.slice(this.header.length)]);
    this.count += 1;
  }

  /** Flushes the file and gives it its name (a fresh one was written under a temporary name). */
  close(): void {
    const file = this.file;
    this.file = undefined;
    file?.close();
  }

  discard(): void {
    const file = this.file;
    this.file = undefined;
    file?.discard();
  }

  get written(): boolean {
    return this.count > 0 || (this.append && JobFile.left(this.path));
  }
}
