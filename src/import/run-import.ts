/**
 * `callctl import`: the options checked, the file opened and mapped, and the import plan — a row
 * to a contact body (E.164 phone, the in-file duplicate key), one POST each, 201 `created` or
 * another 2xx `matched` — handed to the bulk engine (src/bulk/engine.ts), which sends, journals,
 * rejects and counts. The summary is printed here.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { createContact } from '../api/contacts.js';
import type { BulkPlan, BulkRow } from '../bulk/engine.js';
import { endedAs, endJob, jobClient, openFileJob, runFileJob, tallyOf } from '../bulk/file-job.js';
import { checkResumable } from '../bulk/job.js';
import { UsageError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { estimateLine, knownLimit } from '../pace/index.js';
import { decodePhoneResult, regionOf } from '../phone/e164.js';
import { envValue } from '../deps.js';
import { CONTACT_CSV } from '../api/contacts.js';
import { besideInput, fdOf, isStreamInput, refuseOutputsOverInputs } from '../output/files.js';
import { createListWriter } from '../output/writers.js';
import { buildMapping, type Mapping, parseMaps, type Target } from './mapping.js';
import { normalizeHeader, someNames } from '../source/headers.js';
import { PhoneSet } from './phone-set.js';
import { ChangesFile, changesOf, ExistingContacts } from './preview.js';
import { unreadableLine } from '../contacts/people.js';
import { type Answer, dryTally, type Ending, recordedOptions, UndoNotes } from './undo-notes.js';
import { type EncodingName, lineName, openSource, type Row, type Source } from '../source/open.js';
import { choiceCounts, type Summary, summaryLines } from './summary.js';
import { keepHeapSmall, withPhonesOffThread } from './phone-threads.js';
import { checkRow, type CheckOptions, type ContactBody, preferredPhone } from './validate.js';
import { PhoneTally } from './choice.js';
import { RowCountries } from './row-country.js';

export interface ImportOptions {
  file: string;
  country?: string;
  map: string[];
  dryRun: boolean;
  rejects?: string;
  resume: boolean;
  restart: boolean;
  allowNoPhone: boolean;
  /** A row's phones besides the one sent go into its notes. */
  keepOtherPhones: boolean;
  encoding?: EncodingName;
  delimiter?: string;
  /** List the contacts first and report each row as new or matching (always in a dry run with a key). */
  checkExisting: boolean;
  /** `skip`: send only rows whose phone matches no existing contact. */
  existing: 'merge' | 'skip';
  /** Dry run: print the rows as they would be sent (csv or ndjson) on stdout. */
  rowsFormat?: 'csv' | 'ndjson' | undefined;
  /** An .xlsx workbook's worksheet. */
  sheet?: string;
  /** `jobs resume`: the job this run continues. */
  expectJob?: string | undefined;
}

function delimiterOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const d = raw === 'tab' || raw === '\\t' ? '\t' : raw;
  if (d.length !== 1 || /[\r\n"]/.test(d)) throw new UsageError(`--delimiter must be one character (or "tab"), not "${raw}"`);
  return d;
}

export async function runImport(ctx: Context, o: ImportOptions): Promise<number> {
  const started = ctx.deps.now();
  const settings = await ctx.settings();
  const region = regionOf(o.country, settings.country);
  const maps = parseMaps(o.map);
  const delimiter = delimiterOf(o.delimiter);
  const stdin = o.file === '-';
  const path = stdin ? '-' : resolve(ctx.deps.cwd, o.file);
  checkResumable(o.file, o.resume, path);
  const shownName = stdin ? 'stdin' : o.file;
  // The files this import writes are never the one it reads (output/files.ts).
  const stream = isStreamInput(path);
  const rejectsPath = o.rejects !== undefined ? resolve(ctx.deps.cwd, o.rejects) : besideInput(ctx.deps.cwd, o.file, '.rejects.csv', stream);
  const changesPath = besideInput(ctx.deps.cwd, o.file, '.changes.csv', stream);
  refuseOutputsOverInputs(
    [stdin ? { what: 'stdin, the file being imported', fd: fdOf(ctx.deps.io.stdin) } : { what: 'the file being imported', path }],
    [
      { what: o.rejects !== undefined ? '--rejects' : 'the rejects file', path: rejectsPath, shown: o.rejects },
      { what: 'the changes file', path: changesPath },
      { what: 'stdout', fd: fdOf(ctx.deps.io.stdout) },
    ],
  );

  // Check the key and base URL before reading anything, so a wrong setting costs nothing. A dry
  // run needs no key; with one, it previews what the import would change.
  const preview = o.dryRun ? settings.keyStorage !== undefined : o.checkExisting || o.existing === 'skip';
  if (o.dryRun && !preview && o.existing === 'skip') ctx.log.warn('--existing skip in a dry run without a key: no contact can be listed, so every valid row counts as new');
  const client: ApiClient | undefined = o.dryRun && !preview ? undefined : await jobClient(ctx, !o.dryRun, 'before its first row');

  const source = await openSource({ path, stdin: ctx.deps.io.stdin, cwdResolve: (p) => p, ...(o.encoding ? { encoding: o.encoding } : {}), ...(delimiter ? { delimiter } : {}), ...(o.sheet !== undefined ? { sheet: o.sheet, accepts: (header) => sheetMaps(header, maps, o.allowNoPhone) } : {}) });
  ctx.onClose(() => source.close());
  // With --sheet all the last column names each row's sheet: it is kept in the rejects, not mapped.
  const mapping = buildMapping(source.sheetColumn === undefined ? source.header : source.header.slice(0, source.sheetColumn), maps);
  if (mapping.phones.length === 0 && !o.allowNoPhone) {
    const below = await headerBelow(source, maps);
    throw new UsageError(
      `no phone column among: ${someNames(source.header)}`,
      below
        ? `the first non-empty row is the header; line ${lineName(below)} (${below.cells.filter((c) => c.trim() !== '').join(', ')}) looks like it: delete the rows above it, then import again`
        : 'name it with --map "<column>=phone", or import without phones with --allow-no-phone',
    );
  }
  ctx.log.info(`${shownName}: ${someNames(mapping.describe)}${source.delimiter !== ',' ? ` (delimiter ${JSON.stringify(source.delimiter)})` : ''}${source.encoding !== 'utf8' ? ` (${source.encoding})` : ''}`);
  if (mapping.unknown.length > 0) ctx.log.info(`ignoring columns: ${someNames(mapping.unknown)}`);
  for (const note of source.notes) ctx.log.warn(note);

  const job = await openFileJob(ctx, source, 'import', { ...o, rejects: rejectsPath }, { baseUrl: settings.baseUrl, region, map: o.map, allowNoPhone: o.allowNoPhone, ...(o.keepOtherPhones ? { keepOtherPhones: true } : {}), encoding: o.encoding, delimiter, ...(o.sheet !== undefined ? { sheet: o.sheet } : {}), ...(o.existing === 'skip' ? { existing: 'skip' } : {}) }, {
    options: recordedOptions(o, region, ctx.deps.cwd),
    ...(preview ? { files: { changes: changesPath } } : {}),
    client,
  });
  const { journal, earlier, rejects } = job;

  const existing = preview ? await ExistingContacts.load(client as ApiClient, region) : undefined;
  if (existing) ctx.log.info(`read ${existing.listed} existing contacts to compare with`);
  const unread = existing ? unreadableLine(existing.unreadable) : undefined;
  if (unread !== undefined) ctx.log.warn(`${unread}; a row with one of their numbers shows as new`);
  const changes = new ChangesFile(changesPath, { redact: (t) => ctx.log.redact(t), csvRaw: ctx.csvRaw });
  const undo = new UndoNotes(journal, earlier, job.abandoned, ctx.deps.now);
  const rowsOut = o.dryRun && o.rowsFormat ? await createListWriter(ctx.deps.io.stdout, o.rowsFormat, CONTACT_CSV.filter((c) => c.key !== 'id'), ctx) : undefined;
  const preCounts = { new: 0, matches: 0 };
  const countries = new RowCountries(mapping, region);
  const tally = new PhoneTally();
  const checks: CheckOptions = { region, allowNoPhone: o.allowNoPhone, headerLength: source.header.length, countries, keepOtherPhones: o.keepOtherPhones };
  const plan = importPlan(client, mapping, checks, tally, {
    existing,
    skipExisting: o.existing === 'skip',
    onAccepted: async (row, item) => {
      if (existing && item.e164 !== undefined) {
        const match = existing.get(item.e164);
        if (match) {
          preCounts.matches += 1;
          const changed = changesOf(match, item.body);
          changes.add(lineName(row), match.id, changed);
          undo.read(row, match, changed);
        } else {
          preCounts.new += 1;
          undo.read(row, undefined, []);
        }
      } else if (existing) preCounts.new += 1;
      await rowsOut?.write([item.body]);
    },
    onSending: (row, item) => undo.sending(row, item.e164, item.body),
  });
  // A dry run is bound by the CPU, most of it phone parsing: that goes to a worker thread on a
  // machine with a core to spare (phone-threads.ts). A real import waits on the rate limit, not
  // on its phones, and keeps reading in one thread.
  const workers = o.dryRun ? phoneWorkers(envValue(ctx.deps.env, 'CALLCTL_PHONE_WORKERS')) : 0;
  if (o.dryRun) keepHeapSmall();
  const rows = workers > 0 ? withPhonesOffThread(source.rows, { phone: (cells) => preferredPhone(cells, mapping, checks), workers, debug: (line) => ctx.log.debug(line) }) : source.rows;
  const result = await runFileJob(ctx, plan, { ...source, rows }, { journal, earlier, rejects }, { client, dryRun: o.dryRun, concurrency: settings.concurrency });
  source.close();
  if (result.nothingDone) changes.discard();
  else changes.close();
  await rowsOut?.end();
  const s = result.counts;
  job.leaveRecord({ ...(rejects.written ? { rejects: rejectsPath } : {}), ...(changes.count > 0 ? { changes: changes.path } : {}) }, dryTally(s, preCounts, changes.count));
  const created = s.endings.created ?? 0;
  const matched = s.endings.matched ?? 0;
  const uncertain = s.endings.uncertain ?? 0;

  const summary: Summary = {
    file: shownName,
    rows: s.rows,
    created,
    matched,
    ...tallyOf(ctx, result, { dryRun: o.dryRun, rejectsFile: rejects.written ? rejectsPath : null, client, startedAt: started }),
    ...(existing ? { new: preCounts.new, matches: preCounts.matches, changes: changes.count, changesFile: changes.count > 0 ? changes.path : null } : {}),
    ...(o.existing === 'skip' ? { existing: s.endings.existing ?? 0 } : {}),
    ...(s.unfinished > 0 ? { unfinished: s.unfinished } : {}),
    ...(uncertain > 0 ? { uncertain } : {}),
    ...(countries.any ? { countryFromFile: countries.fromFile, countryUnread: countries.unread } : {}),
    ...choiceCounts(mapping, tally, o.keepOtherPhones),
  };
  if (countries.unread > 0) {
    const values = [...countries.unreadValues].map((v) => JSON.stringify(v)).join(', ');
    ctx.log.warn(`${countries.unread} row${countries.unread === 1 ? ' has' : 's have'} a country callctl cannot read (${values}${countries.unread > countries.unreadValues.size ? ', …' : ''}): ${region ? `read as ${region} (--country or the profile's)` : 'their national numbers were rejected (no --country)'}`);
  }
  // A dry run says how long the real one would take at the limit known (docs/pacing.md): the one
  // remembered for this key, or read from the listing's headers, else --rate.
  const toSend = s.rows - s.rejected - s.duplicates - s.skipped - (s.endings.existing ?? 0);
  const estimate = o.dryRun ? [`  ${estimateLine(knownLimit(client?.stats().limit, settings.rate), toSend)}`] : [];
  return endJob(ctx, result, summary, { kind: 'import', lines: [...summaryLines(summary, endedAs(result)), ...estimate], stored: `${created + matched + uncertain} rows were stored` });
}

/**
 * A header that maps no phone: whether one of the next rows would (a title, a date or a blank-looking
 * row above the real header, as exports and reports put there), or is a header of no phone wider than
 * the one read (LinkedIn's Connections.csv puts a `Notes:` line and a paragraph above `First Name,
 * Last Name, URL, Email Address…`: --allow-no-phone would read `Notes:` as the header). Read only to
 * word the refusal.
 */
async function headerBelow(source: Source, maps: Map<string, Target | null>): Promise<Row | undefined> {
  let n = 0;
  for await (const row of source.rows) {
    const cells = row.cells.map((c) => c.trim());
    const m = row.refused === undefined ? buildMapping(cells, maps) : undefined;
    const fields = m ? m.phones.length + m.emails.length + m.columns.length + m.addresses.length : 0;
    if (m && (m.phones.length > 0 || (fields >= 2 && cells.filter((c) => c !== '').length > source.header.length))) return row;
    if (++n >= HEADER_SEARCH_ROWS) break;
  }
  return undefined;
}

/** Rows looked at below a header that maps no phone, for one that would. */
const HEADER_SEARCH_ROWS = 20;

/**
 * `--sheet all`: whether a sheet's header maps — a phone column (or, with --allow-no-phone, any
 * field) — under the `--map`s that name its columns; else why not.
 */
function sheetMaps(header: string[], maps: Map<string, Target | null>, allowNoPhone: boolean): true | string {
  const own = new Set(header.map(normalizeHeader));
  const m = buildMapping(header, new Map([...maps].filter(([k]) => own.has(k))));
  if (m.phones.length > 0 || (allowNoPhone && (m.columns.length > 0 || m.addresses.length > 0))) return true;
  return `its header maps no ${allowNoPhone ? 'field' : 'phone column'} (${header.filter((h) => h !== '').join(', ')})`;
}

/**
 * Worker threads for a dry run's phones: `CALLCTL_PHONE_WORKERS` (0 turns them off, docs/commands/import.md),
 * else one when the machine has a second core.
 */
function phoneWorkers(given: string | undefined): number {
  if (given !== undefined && /^\d+$/.test(given)) return Math.min(Number(given), 4);
  return availableParallelism() >= 2 ? 1 : 0;
}

type Item = { body: ContactBody; e164: string | undefined };

/**
 * A row to one POST /contacts: the E.164 phone makes a repeat safe and is the duplicate key. With
 * `skipExisting`, a row whose phone an existing contact has is finished as `existing`, unsent.
 */
function importPlan(
  client: ApiClient | undefined,
  mapping: Mapping,
  check: CheckOptions,
  tally: PhoneTally,
  o: { existing: ExistingContacts | undefined; skipExisting: boolean; onAccepted: (row: BulkRow, item: Item) => Promise<void>; onSending: (row: BulkRow, item: Item) => (body: ContactBody, answer: Answer) => Ending },
): BulkPlan<Item> {
  // E.164 phones as numbers in a compact typed-array set (phone-set.ts): a million rows' index
  // costs a few megabytes, not a million strings.
  const keyOf = PhoneSet.key;
  return {
    keySet: () => {
      const set = new PhoneSet();
      return { has: (k) => set.has(k as number), add: (k) => set.add(k as number) };
    },
    check(row) {
      const checked = checkRow(row.cells, mapping, check, row.prepared === undefined ? undefined : decodePhoneResult(row.prepared as string));
      if (checked.where) check.countries?.count(checked.where);
      if (!checked.ok) return { reject: checked.reason };
      if (checked.phone) tally.phone(checked.phone.column, checked.phone.insteadOf, checked.phone.others);
      if (checked.email) tally.email(checked.email.column, checked.email.insteadOf);
      const item = { body: checked.body, e164: checked.e164 };
      if (checked.e164 === undefined) return { send: item };
      if (o.skipExisting && o.existing?.get(checked.e164)) return { done: 'existing' };
      return { send: item, key: keyOf(checked.e164) };
    },
    skipped(row) {
      const checked = checkRow(row.cells, mapping, check, row.prepared === undefined ? undefined : decodePhoneResult(row.prepared as string));
      return checked.ok && checked.e164 !== undefined ? keyOf(checked.e164) : undefined;
    },
    duplicate: (key) => `duplicate: phone +${String(key)} is on an earlier row of this file`,
    accepted: (row, item) => o.onAccepted(row, item),
    async send(item, row, signal) {
      // Its intent first, as the POST goes on the wire (undo-notes.ts): a row whose answer is lost
      // is known to have perhaps been stored.
      let answered: ((body: ContactBody, answer: Answer) => Ending) | undefined;
      const res = await createContact(client as ApiClient, item.body, { signal, beforeSend: () => (answered = o.onSending(row, item)) });
      return (answered ?? o.onSending(row, item))(item.body, res);
    },
    refused: (err) => `refused by the server (${err.status ?? ''}): ${err.serverMessage ?? err.message}`,
  };
}
