/**
 * The operator's own copies of a person: after an erasure (and its dry run), the rows of the files
 * callctl wrote (local-files.ts) that hold the person — a cell holding one of their numbers in any
 * format a file may hold it (`+44 7700 900123`, `07700900123`, `447700900123`, Excel's
 * `4.47700900123E+11`, inside a note), compared as finding compares (src/phone/compare.ts); a cell
 * holding their e-mail; an id column holding one of their contact ids. They are named; with
 * `--purge-local` those rows are taken out of each file, every other byte left as it was
 * (csv-exact.ts), and the receipt names the file.
 */
import { dirname, join } from 'node:path';
import { emailKey } from '../contacts/email.js';
import { ID_HEADERS } from './requests.js';
import { type ExactCsv, readExactCsv, rewriteWithout } from './csv-exact.js';
import { filesJobsWrote, type OwnFile } from './local-files.js';
import { journalHolding } from './local-journals.js';
import { normalizeHeader } from '../source/headers.js';
import type { Logger } from '../output/log.js';
import { expandScientific } from '../phone/e164.js';
import { type NumberKey, numberKey, sameNumber } from '../phone/compare.js';

/** A person to look for: what the request gave and what the contacts found held. */
export interface Person {
  /** The request's line (1 for a request typed on the command line). */
  request: number;
  numbers: NumberKey[];
  emails: string[];
  ids: string[];
}

export interface LocalCopy {
  file: string;
  /** Rows holding one of the people (a journal: notes of their earlier values). */
  rows: number;
  /** The requests (lines) whose person is in it. */
  requests: number[];
  purged: boolean;
}

export interface LocalSearch {
  searched: number;
  copies: LocalCopy[];
  /** Files that could not be read exactly (never rewritten) or not rewritten: named for a person to check. */
  problems: Array<{ file: string; reason: string; hint?: string }>;
}

/** The files to search: those the journals beside the config file know. */
export function ownCopyFiles(configPath: string): OwnFile[] {
  return filesJobsWrote(join(dirname(configPath), 'journals'));
}

const TAIL = 6;
const PHONE_LIKE = /\+?[\d(][\d\s()./-]*\d/g;
const EMAIL_LIKE = /[^\s@,;:<>"'()[\]]+@[^\s@,;:<>"'()[\]]+/g;

class PeopleMatcher {
  private readonly byTail = new Map<string, Array<{ person: Person; key: NumberKey }>>();
  private readonly byEmail = new Map<string, Person[]>();
  private readonly byId = new Map<string, Person[]>();

  constructor(people: Person[]) {
    for (const person of people) {
      for (const key of person.numbers) push(this.byTail, key.national.slice(-TAIL), { person, key });
      for (const email of person.emails) push(this.byEmail, emailKey(email), person);
      for (const id of person.ids) push(this.byId, id, person);
    }
  }

  /** The people a row holds. */
  holds(cells: string[], idColumns: ReadonlySet<number>): Set<Person> {
    const out = new Set<Person>();
    cells.forEach((cell, i) => {
      if (idColumns.has(i)) for (const p of this.byId.get(cell.trim()) ?? []) out.add(p);
      // Full-width letters and `＠` (as an IME types them) read as the e-mail they are (emailKey).
      const text = /[^\x00-\x7f]/.test(cell) ? cell.normalize('NFKC') : cell;
      if (text.includes('@')) for (const m of text.matchAll(EMAIL_LIKE)) for (const p of this.byEmail.get(emailKey(m[0].replace(/\.+$/, ''))) ?? []) out.add(p);
      const scientific = expandScientific(cell.trim());
      const texts = scientific && 'digits' in scientific ? [scientific.digits] : [...cell.matchAll(PHONE_LIKE)].flatMap((m) => numberTexts(m[0]));
      for (const text of texts) {
        const digits = text.replace(/\D/g, '');
        if (digits.length < TAIL) continue;
        const candidates = this.byTail.get(digits.slice(-TAIL));
        if (!candidates) continue;
        const key = numberKey(text);
        if (key) for (const c of candidates) if (sameNumber(key, c.key)) out.add(c.person);
      }
    });
    return out;
  }
}

/** Most digit groups of one run whose parts are tried (a run longer than this is read whole). */
const MAX_GROUPS = 24;

/**
 * The numbers a run of phone characters may hold: the run, and — when it cannot be one number
 * with its country code (no `+`, or more digits than E.164 allows) — each part of it that starts
 * where the run does or as a number is written (`+`, `(` or `0`), and ends at a group's end: a
 * phone after a date or a count in a note (`called 2024-01-05 07700 900123`), two numbers.
 */
function numberTexts(run: string): string[] {
  const digits = run.replace(/\D/g, '').length;
  if (run.startsWith('+') && digits <= 15) return [run];
  const groups = [...run.matchAll(/[+(]?\d+/g)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  if (groups.length < 2 || groups.length > MAX_GROUPS) return [run];
  const out = new Set([run]);
  groups.forEach((from, i) => {
    if (i > 0 && !/^[+(0]/.test(run.slice(from.start))) return;
    for (const to of groups.slice(i)) out.add(run.slice(from.start, to.end));
  });
  return [...out];
}

/**
 * Searches `files` for the people; with `purge`, rewrites each file that holds some without their
 * rows, and calls `cleaned` once it is renamed in place (for its receipt). A file that cannot be
 * read exactly is never rewritten, nor one a running job writes (local-files.ts).
 */
export function searchLocalCopies(files: OwnFile[], people: Person[], purge: boolean, cleaned: (copy: LocalCopy) => void = () => undefined): LocalSearch {
  const result: LocalSearch = { searched: 0, copies: [], problems: [] };
  if (people.length === 0) return result;
  const matcher = new PeopleMatcher(people);
  const ids = new Set(people.flatMap((p) => p.ids));
  for (const { path, running, kind } of files) {
    if (kind === 'journal') {
      searchJournal(result, path, running, people, ids, purge, cleaned);
      continue;
    }
    const file = readExactCsv(path);
    result.searched += 1;
    if ('unreadable' in file) {
      result.problems.push({ file: path, reason: file.unreadable });
      continue;
    }
    const { drop, requests } = rowsHolding(file, matcher);
    if (drop.size === 0) continue;
    const copy: LocalCopy = { file: path, rows: drop.size, requests: [...requests].sort((a, b) => a - b), purged: false };
    result.copies.push(copy);
    if (!purge) continue;
    if (running) {
      result.problems.push({ file: path, reason: 'could not be cleaned: a job that writes it is running (rewritten under it, the rows it writes next would be lost)', hint: 'run the erasure again with --purge-local once that job has ended, or clean it by hand' });
      continue;
    }
    try {
      rewriteWithout(file, drop);
    } catch (err) {
      result.problems.push({ file: path, reason: `could not be rewritten: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
      continue;
    }
    copy.purged = true;
    cleaned(copy);
  }
  return result;
}

/** An import's journal: the earlier values it noted of the people's contacts (local-journals.ts). */
function searchJournal(result: LocalSearch, path: string, running: boolean, people: Person[], ids: ReadonlySet<string>, purge: boolean, cleaned: (copy: LocalCopy) => void): void {
  result.searched += 1;
  // The people's phones too: a row's intent keeps the phone it was sent with (local-journals.ts).
  const phones = new Set(people.flatMap((p) => p.numbers.flatMap((n) => [n, ...n.others]).flatMap((n) => (n.e164 !== undefined ? [n.e164] : []))));
  const keys = new Set([...ids, ...phones]);
  if (keys.size === 0) return;
  let held: ReturnType<typeof journalHolding>;
  try {
    held = journalHolding(path, keys, false);
  } catch (err) {
    result.problems.push({ file: path, reason: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
    return;
  }
  if (held.notes === 0) return;
  const requests = people.filter((p) => p.ids.some((id) => held.ids.has(id)) || p.numbers.some((n) => [n, ...n.others].some((k) => k.e164 !== undefined && held.ids.has(k.e164)))).map((p) => p.request);
  const copy: LocalCopy = { file: path, rows: held.notes, requests: [...new Set(requests)].sort((a, b) => a - b), purged: false };
  result.copies.push(copy);
  if (!purge) return;
  if (running) {
    result.problems.push({ file: path, reason: 'could not be cleaned: the import it journals is running', hint: 'run the erasure again with --purge-local once that job has ended' });
    return;
  }
  try {
    journalHolding(path, keys, true);
  } catch (err) {
    result.problems.push({ file: path, reason: `could not be rewritten: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
    return;
  }
  copy.purged = true;
  cleaned(copy);
}

function rowsHolding(file: ExactCsv, matcher: PeopleMatcher): { drop: Set<number>; requests: Set<number> } {
  const header = file.records[0]?.cells ?? [];
  const idColumns = new Set(header.map((h, i) => (ID_HEADERS.has(normalizeHeader(h)) ? i : -1)).filter((i) => i >= 0));
  const drop = new Set<number>();
  const requests = new Set<number>();
  file.records.forEach((r, i) => {
    if (i === 0) return;
    const held = matcher.holds(r.cells, idColumns);
    if (held.size === 0) return;
    drop.add(i);
    for (const p of held) requests.add(p.request);
  });
  return { drop, requests };
}

/** What a person is told: which files hold the people, and what --purge-local does or did. */
export function reportLocalCopies(log: Logger, search: LocalSearch, o: { purge: boolean; dryRun: boolean }): void {
  const rows = search.copies.reduce((n, c) => n + c.rows, 0);
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  if (search.copies.length === 0) {
    if (search.searched > 0) log.info(`your own copies: none of the ${plural(search.searched, 'file')} callctl wrote (rejects, changes, journals) holds them`);
  } else {
    log.info(`your own copies: ${plural(rows, 'row')} in ${plural(search.copies.length, 'file')} callctl wrote hold them:`);
    for (const c of search.copies) log.info(`  ${c.file}  (${plural(c.rows, 'row')}${c.purged ? ', removed' : ''})`);
    if (!o.purge) log.info('  add --purge-local to remove those rows (every other row stays as it is)');
    else if (o.dryRun) log.info('  --purge-local will remove those rows with the erasure (every other row stays as it is)');
  }
  for (const p of search.problems) log.warn(`${p.file}: ${p.reason.startsWith('could not') ? p.reason : `could not be searched (${p.reason})`}: ${p.hint ?? 'check it by hand'}`);
}

function push<V>(map: Map<string, V[]>, key: string, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
