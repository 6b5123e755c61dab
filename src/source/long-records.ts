/**
 * A row longer than 1 MB is refused early (docs/cli.md, "Data and files"): the
 * text on its way to csv-parse is watched record by record, and a record that passes the limit
 * is cut there — the rest of it is dropped as it streams by, never held — and marked, so that its
 * row is rejected with a short reason instead of being parsed, held and printed whole. A file of
 * 50 MB with no line end costs one megabyte and a moment, not the whole file in memory.
 *
 * The watch follows the quotes as csv-parse does on a well-formed file (a `"` toggles; `""` inside
 * quotes toggles twice), so a line end inside a quoted cell does not end the record. The cut keeps
 * csv-parse in step: it opens a quoted cell of its own for the mark (after a delimiter, unless a
 * quoted cell is already open), passes on the dropped part's line ends inside it (the line numbers
 * of the rows after stay right), and closes it where the record really ends.
 */

/** The longest record (in characters) read; a longer one is cut and its row refused. */
export const MAX_RECORD = 1024 * 1024;

/** What stands for the dropped rest of a cut record (csv-parse passes it on inside a cell). */
export const CUT_MARK = '\u0000callctl:cut\u0000';

export class RecordWatch {
  /** Inside a quoted cell, in the file as it is. */
  private quoting = false;
  /** Characters of the current record so far. */
  private length = 0;
  /** Dropping the rest of a cut record. */
  private cutting = false;
  /** Records cut so far. */
  cuts = 0;
  private readonly special = /["\r\n]/g;

  constructor(
    private readonly delimiter: string,
    private readonly limit = MAX_RECORD,
  ) {}

  /** The text to hand to csv-parse for the next chunk of the file. */
  push(s: string): string {
    let parts: string[] | undefined;
    let from = 0;
    let i = 0;
    const re = this.special;
    while (i < s.length) {
      re.lastIndex = i;
      const m = re.exec(s);
      const at = m ? m.index : s.length;
      if (this.cutting) {
        parts ??= [s.slice(0, from)];
        if (!m) break;
        const ch = s[at] as string;
        if (ch === '"') this.quoting = !this.quoting;
        else if (this.quoting) parts.push(ch);
        else {
          // Where the record really ends: close the mark's cell, end the record.
          parts.push(`"${ch}`);
          this.cutting = false;
          this.length = 0;
        }
        i = from = at + 1;
        continue;
      }
      if (this.length + (at - i) > this.limit) {
        const cutAt = i + (this.limit - this.length);
        parts ??= [];
        parts.push(s.slice(from, cutAt), this.quoting ? CUT_MARK : `${this.delimiter}"${CUT_MARK}`);
        this.cutting = true;
        this.cuts += 1;
        i = from = cutAt;
        continue;
      }
      if (!m) {
        this.length += s.length - i;
        break;
      }
      const ch = s[at];
      if (ch === '"') {
        this.quoting = !this.quoting;
        this.length += at - i + 1;
      } else if (this.quoting) this.length += at - i + 1;
      else this.length = 0;
      i = at + 1;
    }
    if (parts === undefined) return s;
    if (!this.cutting) parts.push(s.slice(from));
    return parts.join('');
  }

  /** What the file's end still owes csv-parse: the close of a mark's cell. */
  end(): string {
    if (!this.cutting) return '';
    this.cutting = false;
    return '"';
  }
}
