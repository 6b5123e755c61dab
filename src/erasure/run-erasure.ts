/**
 * Erasure requests: `contacts rm --phone <number>`, `--email <address>` and `--from <file|->`.
 * Each request (an id, or a phone or e-mail standing for every contact that is that person —
 * national-format twins and numbers libphonenumber calls invalid included) is resolved first, with
 * one listing of all contacts for the whole file (resolve.ts); then, only with --confirm, each
 * contact found is erased (DELETE: the person, their calls and recordings) by a plan on the bulk
 * engine, run as a file job like the import (src/bulk/file-job.ts: limiter, retries, journal,
 * progress, Ctrl-C) — with a receipt per contact erased and per request that found nothing
 * (erase-plan.ts). Without --confirm or with --dry-run, it says exactly what would go (the same
 * resolution) and sends no DELETE (dry-run.ts). After the erasure and its dry run, the files
 * callctl wrote that hold the people are named, and with --purge-local cleaned (local-copies.ts).
 */
import { resolve } from 'node:path';
import { type FileJobFlags, jobClient, type JobSource, jobOutcome, openFileJob, runFileJob } from '../bulk/file-job.js';
import { checkResumable } from '../bulk/job.js';
import { ShownRejects } from '../bulk/rejects.js';
import { phoneNotes } from '../contacts/asked.js';
import type { Context } from '../context.js';
import { someNames } from '../source/headers.js';
import { type EncodingName, lineName } from '../source/open.js';
import { besideInput, fdOf, isStreamInput, refuseOutputsOverInputs } from '../output/files.js';
import { regionOf } from '../phone/e164.js';
import { previewOrRefuse } from './dry-run.js';
import { erasurePlan } from './erase-plan.js';
import { type LocalSearch, ownCopyFiles, reportLocalCopies, searchLocalCopies } from './local-copies.js';
import { ReceiptsFile, receiptsPathOf } from './receipts.js';
import { type ErasureRequest, readRequests, requestOf } from './requests.js';
import { listingFor, lookalikeLines, nearLines, peopleOf, resolveAll } from './resolve.js';
import { copiesOf, erasureLines, type ErasureSummary } from './summary.js';

export type { ErasureSummary } from './summary.js';

export interface ErasureOptions {
  /** --from: a file of requests (or - for stdin). */
  from?: string | undefined;
  /** --phone / --email: one request typed on the command line. */
  phone?: string | undefined;
  email?: string | undefined;
  country?: string | undefined;
  confirm: boolean;
  dryRun: boolean;
  receipts?: string | undefined;
  resume: boolean;
  restart: boolean;
  encoding?: EncodingName | undefined;
  /** Remove the people's rows from the files callctl wrote. */
  purgeLocal: boolean;
  /** `jobs resume`: the job this run continues. */
  expectJob?: string | undefined;
}

/** The requests of the command line: a file's, or the one typed. */
async function requestsOf(ctx: Context, o: ErasureOptions, region: string | undefined): Promise<ErasureRequest[]> {
  if (o.from !== undefined) {
    const unread = (headers: string[], sheet?: string) => ctx.log.info(`${sheet !== undefined ? `worksheet "${sheet}": ` : ''}columns not read: ${someNames(headers)} (only id, phone and e-mail columns find people)`);
    const note = (line: string) => ctx.log.warn(line);
    return readRequests({ path: o.from === '-' ? '-' : resolve(ctx.deps.cwd, o.from), shown: o.from, stdin: ctx.deps.io.stdin, region, encoding: o.encoding, unread, note });
  }
  return [o.phone !== undefined ? requestOf(o.phone, 1, region, 'phone') : requestOf(o.email ?? '', 1, region, 'email')];
}

/**
 * Where an erasure writes — its receipts, and beside a request file its refusals — checked before
 * anything is read or sent: never the request file itself (output/files.ts).
 */
async function outputsOf(ctx: Context, o: ErasureOptions): Promise<{ configPath: string; receiptsPath: string; rejectsPath: string | undefined; shownName: string | null; makeFolder: boolean }> {
  const stdin = o.from === '-';
  const fromPath = o.from === undefined || stdin ? undefined : resolve(ctx.deps.cwd, o.from);
  if (o.from !== undefined) checkResumable(o.from, o.resume, fromPath ?? '-');
  const configPath = (await ctx.config()).path;
  const stream = o.from !== undefined && isStreamInput(fromPath ?? '-');
  const receiptsPath = receiptsPathOf({ receipts: o.receipts, from: o.from, stream, cwd: ctx.deps.cwd, configPath, now: ctx.deps.now() });
  const rejectsPath = o.from === undefined ? undefined : besideInput(ctx.deps.cwd, o.from, '.rejects.csv', stream);
  if (o.from !== undefined) {
    refuseOutputsOverInputs(
      [stdin ? { what: 'stdin, the request file', fd: fdOf(ctx.deps.io.stdin) } : { what: 'the request file', path: fromPath }],
      [
        { what: o.receipts !== undefined ? '--receipts' : 'the receipts file', path: receiptsPath, shown: o.receipts },
        { what: 'the rejects file', path: rejectsPath },
        { what: 'stdout', fd: fdOf(ctx.deps.io.stdout) },
      ],
    );
  }
  return { configPath, receiptsPath, rejectsPath, shownName: o.from === undefined ? null : stdin ? 'stdin' : o.from, makeFolder: o.receipts === undefined && (o.from === undefined || stdin || stream) };
}

/** The requests as the rows of a file job: one a row, its text the one cell (what a refusal keeps). */
function requestRows(requests: ErasureRequest[]): JobSource {
  return {
    header: ['request'],
    rows: (async function* () {
      for (const r of requests) yield { cells: [r.text], line: r.line, sheet: r.sheet };
    })(),
    bytesRead: () => 0,
    size: undefined,
    delimiter: ',',
    encoding: 'utf8',
  };
}

export async function runErasure(ctx: Context, o: ErasureOptions): Promise<number> {
  const started = ctx.deps.now();
  const settings = await ctx.settings();
  const region = regionOf(o.country, settings.country);
  const out = await outputsOf(ctx, o);
  const requests = await requestsOf(ctx, o, region);
  for (const note of phoneNotes(requests.map((r) => ({ ...r, line: lineName(r) })), region, o.from === undefined)) ctx.log.warn(note);
  const client = await jobClient(ctx, o.confirm && !o.dryRun, 'while reading the contacts, before any was erased');
  const files = ownCopyFiles(out.configPath);

  // One listing of all contacts for every phone and e-mail of the file (and for the people's own
  // copies: an id's contact holds the phone and e-mail to look for); ids are taken as given.
  const index = await listingFor(ctx, client, requests, region, files.length > 0 && (o.dryRun || o.confirm));
  const resolutions = resolveAll(requests, index, (line) => ctx.log.info(line));
  for (const line of [...lookalikeLines(resolutions, index), ...nearLines(resolutions)]) ctx.log.warn(line);
  if (o.dryRun || !o.confirm) {
    // A preview holds no lock and no journal: a signal from here ends it as Node's default does,
    // and one met while it listed stops it now (context.ts guardSignals).
    ctx.rowsStart();
    return previewOrRefuse(ctx, client, { ...o, shownName: out.shownName, started }, requests, resolutions, { listed: index !== undefined, files });
  }

  const receipts = new ReceiptsFile(out.receiptsPath, out.makeFolder, (t) => ctx.log.redact(t));
  const source = requestRows(requests);
  // One request typed on the command line has nothing to resume: no journal, its refusals shown.
  const flags: FileJobFlags = { file: o.from ?? '-', dryRun: false, noJournal: o.from === undefined, resume: o.resume, restart: o.restart, rejects: out.rejectsPath, expectJob: o.expectJob };
  const job = await openFileJob(ctx, source, 'erasure', flags, { baseUrl: settings.baseUrl, region }, {
    options: { ...(region !== undefined ? { country: region } : {}), ...(o.encoding !== undefined ? { encoding: o.encoding } : {}), receipts: out.receiptsPath, ...(o.purgeLocal ? { purgeLocal: true } : {}) },
    files: { receipts: out.receiptsPath },
    client,
  });
  // Opened before the first DELETE: an unwritable place stops the erasure before it starts. The
  // request's id is its job's, which --resume keeps (receipts.ts).
  receipts.open();
  receipts.requestId = job.job;
  ctx.log.info(`erasure request ${job.job}: receipts → ${out.receiptsPath}`);
  const { plan, counts } = erasurePlan(client, resolutions, receipts, ctx.deps.now, { journal: job.journal, intents: job.earlier?.intents ?? job.abandoned }, { unsettled: index?.unsettled === true });
  let result;
  let search: LocalSearch | undefined;
  try {
    result = await runFileJob(ctx, plan, source, job, { client, dryRun: false, concurrency: settings.concurrency, words: { unit: 'requests', refusedAsFailed: true } });
    // The people's own copies, once every request has been through (not after a stop or Ctrl-C:
    // --resume comes back here), listed again now: a job that ended meanwhile renamed its journal
    // (as this one did, resumed). This erasure's own refusals file and journal are not among them.
    if (result.fatal === undefined && !result.interrupted) {
      const journal = job.journal?.path.replace(/\.jsonl$/, '');
      const own = ownCopyFiles(out.configPath).filter(
        (f) => f.path !== job.rejectsPath && f.path !== `${job.rejectsPath}.partial` && (journal === undefined || (f.path !== `${journal}.jsonl` && !f.path.startsWith(`${journal}.done-`))),
      );
      search = searchLocalCopies(own, peopleOf(resolutions), o.purgeLocal, (copy) => receipts.add({ cleaned: copy.file, rows: copy.rows, at: new Date(ctx.deps.now()).toISOString() }));
    }
  } finally {
    receipts.close();
  }
  const c = result.counts;
  const summary: ErasureSummary = {
    file: out.shownName,
    requests: c.rows,
    ...counts,
    failed: c.failed + c.rejected,
    skipped: c.skipped,
    dryRun: false,
    receiptsFile: receipts.written > 0 ? out.receiptsPath : null,
    elapsedMs: ctx.deps.now() - started,
    ...(c.unfinished > 0 ? { unfinished: c.unfinished } : {}),
    ...copiesOf(search?.copies ?? []),
  };
  const asked = requests[0]?.numbers?.length ? `phone ${requests[0].text}` : `e-mail ${requests[0]?.text ?? ''}`;
  const refusals = job.rejects instanceof ShownRejects ? job.rejects : (job.rejectsPath ?? '');
  for (const line of erasureLines(summary, result, { asked, refusals, requestId: job.job })) ctx.log.info(line);
  if (search) reportLocalCopies(ctx.log, search, { purge: o.purgeLocal, dryRun: false });
  if (ctx.format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify(summary)}\n`);
  return jobOutcome(result, { kind: 'erasure', stored: `${summary.erased} contacts were erased`, saved: 'the journal and receipts are saved' });
}
