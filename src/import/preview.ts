/**
 * What an import would do to the contacts that exist: the service matches a contact by phone and
 * merges the sent fields into it, so a lead list can rename an existing customer. With a key, the
 * dry run (and `--check-existing` on a real run) lists all contacts once and reports each valid
 * row as new or matching — and for a match, the fields that would change, old → new, into
 * `<file>.changes.csv` (line, id, field, old, new). `--existing skip` sends only the new ones.
 */
import { stringify } from 'csv-stringify/sync';
import { RuntimeError } from '../errors.js';
import { guardCell } from '../output/csv-guard.js';
import { JobFile, type Redact } from '../output/files.js';
import type { ApiClient } from '../http/client.js';
import { everyContact } from '../contacts/people.js';
import type { ContactBody } from './validate.js';

/** An existing contact: its id and the fields an import could change. */
interface Existing {
  id: string;
  fields: Record<string, unknown>;
}

/** Every contact, by E.164 phone (a national-format phone read with the region). */
export class ExistingContacts {
  private readonly byPhone = new Map<string, Existing>();
  listed = 0;
  /** Contacts whose phone cannot be read as a number (src/contacts/people.ts): a row of theirs would show as new. */
  readonly unreadable: string[] = [];

  /**
   * One listing of every contact — the same reading of phones as `contacts find` (src/contacts/
   * people.ts): each number of a phone the service returns as a list or an object.
   */
  static async load(client: ApiClient, region: string | undefined): Promise<ExistingContacts> {
    const index = new ExistingContacts();
    for await (const { stored, raw } of everyContact(client, region)) {
      index.listed += 1;
      if (stored.unreadable) index.unreadable.push(stored.id);
      const { id: _id, createdAt: _c, updatedAt: _u, ...fields } = raw;
      for (const e164 of stored.e164s) if (!index.byPhone.has(e164)) index.byPhone.set(e164, { id: stored.id, fields });
    }
    return index;
  }

  get(e164: string): Existing | undefined {
    return this.byPhone.get(e164);
  }
}

export interface FieldChange {
  field: string;
  old: string;
  new: string;
}

const text = (v: unknown): string => (v === undefined || v === null ? '' : Array.isArray(v) ? v.map(String).join(';') : String(v));

/** The fields a POST of `body` would change on `existing` (tags compared as a set). */
export function changesOf(existing: Existing, body: ContactBody): FieldChange[] {
  const out: FieldChange[] = [];
  for (const [field, value] of Object.entries(body)) {
    const before = existing.fields[field];
    if (field === 'tags') {
      const a = new Set(Array.isArray(before) ? before.map(String) : []);
      const b = new Set(Array.isArray(value) ? value : [value]);
      if (a.size === b.size && [...a].every((t) => b.has(t))) continue;
    } else if (text(before).trim() === text(value).trim()) continue;
    out.push({ field, old: text(before), new: text(value) });
  }
  return out;
}

/**
 * `<file>.changes.csv`: created on the first change, like the rejects file — written whole under
 * a temporary name, masked, its cells guarded against formulas unless --csv-raw (output/).
 */
export class ChangesFile {
  private file: JobFile | undefined;
  count = 0;
  private readonly cell: (text: string) => string;

  constructor(
    readonly path: string,
    private readonly writing: { redact: Redact; csvRaw?: boolean } = { redact: (t) => t },
  ) {
    this.cell = writing.csvRaw ? (t) => t : guardCell;
  }

  add(line: number | string, id: string, changes: FieldChange[]): void {
    if (changes.length === 0) return;
    if (this.file === undefined) {
      try {
        this.file = JobFile.open(this.path, { append: false, redact: this.writing.redact }).file;
      } catch (err) {
        throw new RuntimeError('changes_unwritable', `cannot write ${this.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      this.file.write(`\ufeff${stringify([['line', 'id', 'field', 'old', 'new']])}`);
    }
    this.file.write(stringify(changes.map((c) => [String(line), id, c.field, c.old, c.new].map(this.cell))));
    this.count += changes.length;
  }

  /** Flushes the file and gives it its name. */
  close(): void {
    const file = this.file;
    this.file = undefined;
    file?.close();
  }

  /** Drops it: the import stored nothing and leaves no record. */
  discard(): void {
    const file = this.file;
    this.file = undefined;
    file?.discard();
  }
}
