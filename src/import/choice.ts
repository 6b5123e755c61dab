/**
 * Which of a row's phones and e-mails is sent (docs/commands/import.md, "Which phone, which e-mail"): every value of every phone
 * column (Google's ` ::: ` joins several in a cell) is a candidate with the type its export gives it
 * (src/source/column-types.ts), ranked mobile, work, home, main, other, then fax and pager — a column named by
 * `--map` first —, and within a type in the file's order. The first valid one is sent: a cell that
 * holds no valid number gives way to the next, and that is counted ("phone from Phone 2 - Value:
 * Phone 1 - Value is not valid"). E-mails likewise: home, work, a plain `Email`, other, private.
 * The phones not sent are counted, and with `--keep-other-phones` written into the notes.
 */
import { isEmail } from '../api/fields.js';
import { EMAIL_TYPES, type EmailType, emailTypeOfLabel, PHONE_TYPES, type PhoneType, phoneTypeOfLabel } from '../source/column-types.js';
import type { ContactColumn, Mapping } from './mapping.js';

/** One value of a row that may be its phone or e-mail: where it is, and what its export calls it. */
export interface Candidate<T> {
  column: ContactColumn<T>;
  text: string;
  type: T;
  /** Its type as the export wrote it (Google's `Work Fax`), else its column's name: for the notes. */
  label: string;
}

/** Google's separator of several values in one cell. */
export const MULTI = /\s+:::\s+|^:::\s+|\s+:::$/;
const values = (cell: string | undefined) => (cell ?? '').split(MULTI).map((v) => v.trim());

function candidates<T extends string>(cells: string[], columns: ContactColumn<T>[], ranks: readonly string[], ofLabel: (label: string) => T, split: (cell: string | undefined) => string[]): Candidate<T>[] {
  const out: Array<Candidate<T> & { rank: number; order: number }> = [];
  for (const column of columns) {
    const labels = column.typeIndex === undefined ? [] : values(cells[column.typeIndex]);
    split(cells[column.index]).forEach((text, i) => {
      if (text === '') return;
      const label = column.typeIndex === undefined ? undefined : (labels[i] ?? labels[labels.length - 1] ?? '').replace(/^\*\s*/, '');
      const type = label === undefined ? column.type : ofLabel(label);
      out.push({ column, text, type, label: label || column.name, rank: ranks.indexOf(type), order: out.length });
    });
  }
  out.sort((a, b) => a.rank - b.rank || a.order - b.order);
  return out.map(({ column, text, type, label }) => ({ column, text, type, label }));
}

/** A row's phones, most wanted first. */
export function phoneCandidates(cells: string[], mapping: Mapping): Candidate<PhoneType>[] {
  return candidates(cells, mapping.phones, PHONE_TYPES, phoneTypeOfLabel, values);
}

/** A row's e-mails, most wanted first (a cell may list several: ` ::: `, `;` or `,` between them). */
function emailCandidates(cells: string[], mapping: Mapping): Candidate<EmailType>[] {
  return candidates(cells, mapping.emails, EMAIL_TYPES, emailTypeOfLabel, (cell) => (cell ?? '').split(/\s*:::\s*|[;,]/).map((v) => v.trim()));
}

/** The e-mail sent: the first valid one, and the one it stood in for when the first was not valid. */
export function chooseEmail(cells: string[], mapping: Mapping): { email: Candidate<EmailType>; insteadOf?: Candidate<EmailType> } | { invalid: string } | undefined {
  const all = emailCandidates(cells, mapping);
  if (all.length === 0) return undefined;
  const valid = all.find((c) => isEmail(c.text));
  if (!valid) return { invalid: (all[0] as Candidate<EmailType>).text };
  return valid === all[0] ? { email: valid } : { email: valid, insteadOf: all[0] as Candidate<EmailType> };
}

/** What the phones of the checked rows were: which column each row's came from, the fallbacks, the others. */
export class PhoneTally {
  /** Column → rows whose phone came from it. */
  readonly from = new Map<string, number>();
  /** `<column>\u0000<column not valid>` → rows. */
  readonly fallbacks = new Map<string, number>();
  readonly emailFrom = new Map<string, number>();
  readonly emailFallbacks = new Map<string, number>();
  /** Rows that held phone numbers besides the one sent. */
  others = 0;

  phone(chosen: string, insteadOf: string | undefined, others: boolean): void {
    this.from.set(chosen, (this.from.get(chosen) ?? 0) + 1);
    if (insteadOf !== undefined) this.fallbacks.set(`${chosen}\u0000${insteadOf}`, (this.fallbacks.get(`${chosen}\u0000${insteadOf}`) ?? 0) + 1);
    if (others) this.others += 1;
  }

  email(chosen: string, insteadOf: string | undefined): void {
    this.emailFrom.set(chosen, (this.emailFrom.get(chosen) ?? 0) + 1);
    if (insteadOf !== undefined) this.emailFallbacks.set(`${chosen}\u0000${insteadOf}`, (this.emailFallbacks.get(`${chosen}\u0000${insteadOf}`) ?? 0) + 1);
  }
}

/** A fallback's key split back: the column used and the one that was not valid. */
export const fallbackOf = (key: string): { column: string; notValid: string } => {
  const [column, notValid] = key.split('\u0000') as [string, string];
  return { column, notValid };
};
