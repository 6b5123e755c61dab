/** What an import tells the operator: the summary on stderr, and with --json the contract's object. */
import { type Ended, headline, type JobTally } from '../bulk/file-job.js';
import { fallbackOf, type PhoneTally } from './choice.js';
import type { Mapping } from './mapping.js';

/** The contract's keys, in its order: file, rows, created, matched, then the counts of every job. */
export type Summary = { file: string; rows: number; created: number; matched: number } & JobTally & ImportExtras;

interface ImportExtras {
  /** Preview against the service (a dry run with a key, or --check-existing). */
  new?: number;
  matches?: number;
  changes?: number;
  changesFile?: string | null;
  /** --existing skip: rows whose phone an existing contact has, not sent. */
  existing?: number;
  /**
   * Rows matched after an attempt whose answer was lost, where nothing tells whether that attempt
   * stored the contact (no listing, no creation time): neither created nor matched — `import undo`
   * names them, and erases them only with --include-uncertain.
   */
  uncertain?: number;
  /** With a country column: rows whose region came from it, and rows whose cell named no country. */
  countryFromFile?: number;
  countryUnread?: number;
  /** With several phone columns: rows by the column their phone came from (choice.ts). */
  phoneFrom?: Record<string, number>;
  /** Rows whose phone came from `column` because `notValid`, wanted first, held no valid number. */
  phoneFallback?: Fallback[];
  /** Rows that held numbers besides the one sent; `otherPhonesKept`: they went into the notes. */
  otherPhones?: number;
  otherPhonesKept?: boolean;
  emailFrom?: Record<string, number>;
  emailFallback?: Fallback[];
}

type Fallback = { column: string; notValid: string; rows: number };

const fallbacks = (m: Map<string, number>): Fallback[] => [...m].map(([key, rows]) => ({ ...fallbackOf(key), rows }));

/** The summary's word on how phones and e-mails were chosen, when a row had more than one to choose from. */
export function choiceCounts(mapping: Mapping, t: PhoneTally, kept: boolean): ImportExtras {
  const several = mapping.phones.length > 1 || t.fallbacks.size > 0 || t.others > 0;
  return {
    ...(several ? { phoneFrom: Object.fromEntries(t.from), phoneFallback: fallbacks(t.fallbacks), otherPhones: t.others, otherPhonesKept: kept } : {}),
    ...(mapping.emails.length > 1 || t.emailFallbacks.size > 0 ? { emailFrom: Object.fromEntries(t.emailFrom), emailFallback: fallbacks(t.emailFallbacks) } : {}),
  };
}

/** `3 from Mobile Phone, 1 from Business Phone`, most first. */
const fromLine = (from: Record<string, number>) =>
  Object.entries(from)
    .sort((a, b) => b[1] - a[1])
    .map(([column, rows]) => `${rows} from ${column}`)
    .join(', ') || 'none';

/** `1 from Phone 2 - Value: Phone 1 - Value is not valid`. */
const fallbackLine = (f: Fallback, what: string) => (f.column === f.notValid ? `${f.rows} from a later value of ${f.column}: its first ${what}` : `${f.rows} from ${f.column}: ${f.notValid} ${what}`);

/** The lines for how phones and e-mails were chosen. */
function choiceLines(s: Summary): string[] {
  const lines: string[] = [];
  if (s.phoneFrom) {
    lines.push(`  phones      ${fromLine(s.phoneFrom)}  (by type: mobile, work, home, main, other, then fax and pager)`);
    for (const f of s.phoneFallback ?? []) lines.push(`              ${fallbackLine(f, 'is not valid')}`);
    if (s.otherPhones) lines.push(`              ${s.otherPhones} row${s.otherPhones === 1 ? '' : 's'} had other numbers: ${s.otherPhonesKept ? 'added to the notes (--keep-other-phones)' : 'not sent (--keep-other-phones adds them to the notes)'}`);
  }
  if (s.emailFrom) {
    lines.push(`  e-mails     ${fromLine(s.emailFrom)}  (by type: home, work, other, private)`);
    for (const f of s.emailFallback ?? []) lines.push(`              ${fallbackLine(f, 'is not an e-mail address')}`);
  }
  return lines;
}

/**
 * The summary lines for a person. A job that stopped on an error (the service out of reach, not
 * the API's answers) says so in its first line: the rows counted are those read before the stop,
 * not the file's.
 */
export function summaryLines(s: Summary, ended: Ended): string[] {
  const secs = s.elapsedMs / 1000;
  const sent = s.created + s.matched + (s.uncertain ?? 0);
  const h = headline(ended, 'imported', 'import');
  const lines = [
    `${s.dryRun ? 'dry run of' : h.opening} ${s.file}: ${s.rows} row${s.rows === 1 ? '' : 's'}${h.afterCount} in ${secs.toFixed(1)} s`,
    s.dryRun ? `  valid       ${s.rows - s.rejected - s.duplicates - s.skipped - (s.existing ?? 0)}  (would be sent)` : `  created     ${s.created}`,
  ];
  if (!s.dryRun) lines.push(`  matched     ${s.matched}  (already known by phone: updated)`);
  if (s.uncertain) lines.push(`  uncertain   ${s.uncertain}  (an attempt's answer was lost, and the service does not tell whether it stored them: import undo names them)`);
  lines.push(`  rejected    ${s.rejected}`, `  duplicates  ${s.duplicates}  (same phone earlier in the file)`);
  if (!s.dryRun) lines.push(`  failed      ${s.failed}${s.failed > 0 ? '  (network or server errors: run again with --resume)' : ''}`);
  if (s.new !== undefined) lines.push(`  new         ${s.new}  (no contact has the phone)`, `  matches     ${s.matches ?? 0}  (an existing contact has the phone: its fields are updated)`, `  changes     ${s.changes ?? 0}  (fields that change on matched contacts${s.changesFile ? ` → ${s.changesFile}` : ''})`);
  if (s.existing !== undefined) lines.push(`  existing    ${s.existing}  (--existing skip: not sent)`);
  lines.push(...choiceLines(s));
  if (s.countryFromFile !== undefined) lines.push(`  countries   ${s.countryFromFile} from the file${s.countryUnread ? `, ${s.countryUnread} not a country (default used)` : ''}  (the others: --country or the profile's)`);
  if (s.skipped > 0) lines.push(`  skipped     ${s.skipped}  (done in an earlier run)`);
  if (s.unfinished) lines.push(`  unfinished  ${s.unfinished}  (not sent or aborted in flight: --resume sends them)`);
  if (!s.dryRun) lines.push(`  requests    ${s.requests} (${s.throttled} met 429)${secs > 0 && sent > 0 ? `, ${(sent / secs).toFixed(1)} rows/s` : ''}`);
  if (s.rejectsFile) lines.push(`  rejects  →  ${s.rejectsFile}`);
  return lines;
}
