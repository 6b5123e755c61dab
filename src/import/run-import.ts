/**
 * The import pipeline end to end: source → mapping → validation → in-file duplicates → sender →
 * journal → report. Reading waits while the window of requests in flight is full, so memory stays
 * flat however large the file; every row ends up exactly once in created, matched, rejected,
 * duplicates or failed — or stays unfinished in the journal for --resume.
 */
import { dirname, resolve } from 'node:path';
import type { Context } from '../context.js';
import { ApiError, CallctlError, InterruptedError, RuntimeError, UsageError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { isRegion } from '../phone/e164.js';
import { type EarlierRun, fileHash, Journal, journalId, type RowStatus } from './journal.js';
import { buildMapping, parseMaps } from './mapping.js';
import { PhoneSet } from './phone-set.js';
import { startProgress } from './progress.js';
import { RejectsFile, type Summary, summaryLines } from './report.js';
import { type EncodingName, openSource } from './source.js';
import { checkRow, type ContactBody } from './validate.js';

/** Consecutive failed rows after which the service is taken to be down and the import stops. */
const DOWN_AFTER = 20;
/** Failed rows named one by one on stderr before only counting. */
const FAILED_SHOWN = 10;

export interface ImportOptions {
  file: string;
  country?: string;
  map: string[];
  dryRun: boolean;
  rejects?: string;
  resume: boolean;
  restart: boolean;
  allowNoPhone: boolean;
  encoding?: EncodingName;
  delimiter?: string;
  sheet?: string;
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
  const region = o.country ?? settings.country;
  if (region !== undefined && !isRegion(region)) throw new UsageError(`--country ${region} is not a region code`, 'use ISO 3166 alpha-2, e.g. GB or US');
  const maps = parseMaps(o.map);
  const delimiter = delimiterOf(o.delimiter);
  const stdin = o.file === '-';
  if (stdin && o.resume) throw new UsageError('--resume needs a file: stdin cannot be read twice', 'save the list to a file and import that');
  const path = stdin ? '-' : resolve(ctx.deps.cwd, o.file);
  const shownName = stdin ? 'stdin' : o.file;

  // Check the key and base URL before reading anything, so a wrong setting costs nothing.
  const client: ApiClient | undefined = o.dryRun ? undefined : await ctx.api();

  const source = await openSource({ path, stdin: ctx.deps.io.stdin, cwdResolve: (p) => p, ...(o.encoding ? { encoding: o.encoding } : {}), ...(delimiter ? { delimiter } : {}), ...(o.sheet !== undefined ? { sheet: o.sheet } : {}) });
  ctx.onClose(() => source.close());
  const mapping = buildMapping(source.header, maps);
  if (mapping.phones.length === 0 && !o.allowNoPhone) {
    throw new UsageError(
      `no phone column among: ${source.header.join(', ')}`,
      'name it with --map "<column>=phone", or import without phones with --allow-no-phone',
    );
  }
  ctx.log.info(`${shownName}: ${mapping.describe.join(', ')}${source.delimiter !== ',' ? ` (delimiter ${JSON.stringify(source.delimiter)})` : ''}${source.encoding !== 'utf8' ? ` (${source.encoding})` : ''}`);
  if (mapping.unknown.length > 0) ctx.log.info(`ignoring columns: ${mapping.unknown.join(', ')}`);
  for (const note of source.notes) ctx.log.warn(note);

  // The journal: only for a real import of a file.
  let journal: Journal | undefined;
  let earlier: EarlierRun | undefined;
  if (!o.dryRun && !stdin) {
    const store = await ctx.config();
    const dir = resolve(dirname(store.path), 'journals');
    const id = journalId(await fileHash(path), { baseUrl: settings.baseUrl, region, map: o.map, allowNoPhone: o.allowNoPhone, encoding: o.encoding, delimiter, ...(o.sheet !== undefined ? { sheet: o.sheet } : {}) });
    earlier = o.restart ? undefined : Journal.earlier(dir, id);
    if (earlier && !o.resume) {
      throw new UsageError(
        `an earlier import of ${shownName} did not finish (${earlier.rows.size} rows recorded${earlier.startedAt ? `, started ${earlier.startedAt}` : ''})`,
        'add --resume to send only what is left, or --restart to start over',
      );
    }
    if (o.resume && !earlier) ctx.log.info('nothing to resume for this file and these options: starting from the first row');
    else if (earlier) ctx.log.info(`resuming: ${[...earlier.rows.values()].filter((s) => Journal.isFinished(s)).length} rows were finished earlier`);
    journal = Journal.open(dir, id, earlier !== undefined, { file: path }, ctx.deps.now);
  } else if (stdin && !o.dryRun) {
    ctx.log.info('reading stdin: no journal is kept (--resume needs a file)');
  }

  const rejectsPath = resolve(ctx.deps.cwd, o.rejects ?? (stdin ? 'stdin.rejects.csv' : `${o.file}.rejects.csv`));
  const rejects = new RejectsFile(rejectsPath, source.header, earlier !== undefined);

  const s = { rows: 0, created: 0, matched: 0, rejected: 0, duplicates: 0, failed: 0, skipped: 0, valid: 0 };
  // E.164 phones already met in this file, as numbers in a compact hash set (phone-set.ts).
  const seen = new PhoneSet();
  const phoneKey = PhoneSet.key;
  const window = Math.max(2, settings.concurrency * 4);
  const inflight = new Set<Promise<void>>();
  const abort = new AbortController();
  let stopping = false;
  let fatal: unknown;
  let consecutiveFailures = 0;
  let failedShown = 0;
  let complete = false;

  const onSignal = () => {
    if (!stopping) {
      stopping = true;
      ctx.log.warn(`stopping: no new rows; ${inflight.size} request${inflight.size === 1 ? '' : 's'} in flight will finish (press Ctrl-C again to abort them)`);
    } else abort.abort();
  };
  const offs = [ctx.deps.onSignal('SIGINT', onSignal), ctx.deps.onSignal('SIGTERM', onSignal)];
  const progress = await startProgress(ctx, () => ({
    done: s.created + s.matched + s.skipped,
    rejected: s.rejected + s.duplicates,
    bytesRead: source.bytesRead(),
    size: source.size,
    pace: client?.stats().pace,
    throttled: client?.stats().throttled ?? 0,
  }));

  const finish = (row: number, status: RowStatus) => journal?.record(row, status);

  async function send(row: number, cells: string[], line: number, body: ContactBody, e164: string | undefined): Promise<void> {
    try {
      const res = await (client as ApiClient).request({ method: 'POST', path: '/contacts', body, safeToRetry: e164 !== undefined, signal: abort.signal });
      if (res.status === 201) s.created += 1;
      else s.matched += 1;
      finish(row, res.status === 201 ? 'created' : 'matched');
      consecutiveFailures = 0;
    } catch (err) {
      if (err instanceof InterruptedError || abort.signal.aborted) return; // unfinished: --resume sends it again
      if (err instanceof ApiError && err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 429) {
        if (err.status === 401 || err.status === 403) {
          fatal ??= err; // every row would meet the same refusal
          return;
        }
        s.rejected += 1;
        rejects.add(cells, `refused by the server (${err.status}): ${err.serverMessage ?? err.message}`);
        finish(row, 'rejected');
        consecutiveFailures = 0;
        return;
      }
      if (err instanceof ApiError) {
        s.failed += 1;
        finish(row, 'failed');
        consecutiveFailures += 1;
        if (failedShown++ < FAILED_SHOWN) ctx.log.warn(`line ${line}: failed: ${err.message}`);
        if (consecutiveFailures >= DOWN_AFTER) {
          fatal ??= new RuntimeError('service_down', `${consecutiveFailures} rows in a row failed (last: ${err.message})`, 'the service looks down; run the same command with --resume later');
        }
        return;
      }
      fatal ??= err;
    }
  }

  try {
    for await (const row of source.rows) {
      if (stopping || fatal) break;
      s.rows += 1;
      const n = s.rows;
      const checked = checkRow(row.cells, mapping, { region, allowNoPhone: o.allowNoPhone, headerLength: source.header.length });
      if (Journal.isFinished(earlier?.rows.get(n))) {
        s.skipped += 1;
        if (checked.ok && checked.e164) seen.add(phoneKey(checked.e164));
        continue;
      }
      if (!checked.ok) {
        s.rejected += 1;
        rejects.add(row.cells, checked.reason);
        finish(n, 'rejected');
        continue;
      }
      if (checked.e164 !== undefined) {
        const key = phoneKey(checked.e164);
        if (seen.has(key)) {
          s.duplicates += 1;
          rejects.add(row.cells, `duplicate: phone ${checked.e164} is on an earlier row of this file`);
          finish(n, 'duplicate');
          continue;
        }
        seen.add(key);
      }
      if (o.dryRun) {
        s.valid += 1;
        continue;
      }
      while (inflight.size >= window) await Promise.race(inflight);
      if (stopping || fatal) {
        s.rows -= 1; // read but not sent: it stays unfinished for --resume
        break;
      }
      const p: Promise<void> = send(n, row.cells, row.line, checked.body, checked.e164).finally(() => inflight.delete(p));
      inflight.add(p);
    }
    complete = !stopping && !fatal;
  } catch (err) {
    fatal ??= err;
  } finally {
    await Promise.allSettled([...inflight]);
    progress.stop();
    offs.forEach((off) => off());
    rejects.close();
    source.close();
    journal?.close(complete && s.failed === 0 && fatal === undefined && !abort.signal.aborted);
  }

  const stats = client?.stats();
  const summary: Summary = {
    file: shownName,
    rows: s.rows,
    created: s.created,
    matched: s.matched,
    rejected: s.rejected,
    duplicates: s.duplicates,
    failed: s.failed,
    skipped: s.skipped,
    dryRun: o.dryRun,
    rejectsFile: rejects.written ? rejectsPath : null,
    requests: stats?.requests ?? 0,
    throttled: stats?.throttled ?? 0,
    elapsedMs: ctx.deps.now() - started,
  };
  for (const line of summaryLines(summary, stopping)) ctx.log.info(line);
  if (ctx.format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify(summary)}\n`);

  if (fatal !== undefined) {
    if (fatal instanceof CallctlError) throw fatal;
    throw new RuntimeError('import_failed', `import stopped: ${(fatal as Error)?.message ?? String(fatal)}`, 'run the same command with --resume');
  }
  if (stopping) throw new InterruptedError(`interrupted after ${s.created + s.matched} rows were stored`, 'the journal is saved: run the same command with --resume');
  return s.rejected + s.duplicates + s.failed === 0 ? 0 : 6;
}
