/**
 * Erasure requests: `contacts rm --phone <number>`, `--email <address>` and `--from <file|->`.
 * Each request (an id, or a phone or e-mail standing for every contact that is that person —
 * national-format twins and numbers libphonenumber calls invalid included) is resolved first, with
 * one listing of all contacts for the whole file (resolve.ts); then, only with --confirm, each
 * contact found is erased (DELETE: the person, their calls and recordings) on the bulk engine —
 * limiter, retries, journal, progress, Ctrl-C — with a receipt per contact erased and per request
 * that found nothing. Without --confirm or with --dry-run, it says exactly what would go (the same
 * resolution) and sends no DELETE. After the erasure and its dry run, the files callctl wrote that
 * hold the people are named, and with --purge-local cleaned (local-copies.ts).
 */
import { resolve } from 'node:path';
import { eraseContact } from '../api/contacts.js';
import { type BulkPlan, runBulk } from '../bulk/engine.js';
import { keyOf } from '../bulk/file-job.js';
import { checkResumable, openJob } from '../bulk/job.js';
import { startProgress } from '../bulk/progress.js';
import type { Context } from '../context.js';
import { ApiError, CallctlError, EXIT, InterruptedError, RuntimeError, UsageError } from '../errors.js';
import type { EncodingName } from '../source/open.js';
import { besideInput, fdOf, isStreamInput, refuseOutputsOverInputs } from '../output/files.js';
import { regionOf } from '../phone/e164.js';
import { type LocalCopy, type LocalSearch, ownCopyFiles, reportLocalCopies, searchLocalCopies } from './local-copies.js';
import { ReceiptsFile, receiptsPathOf } from './receipts.js';
import { phoneNotes } from '../contacts/asked.js';
import { type ErasureRequest, readRequests, requestOf } from './requests.js';
import { listingFor, peopleOf, previewErasure, printPreview, type Resolution, resolveAll } from './resolve.js';

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

export interface ErasureSummary {
  file: string | null;
  requests: number;
  contacts: number;
  erased: number;
  notFound: number;
  failed: number;
  skipped: number;
  dryRun: boolean;
  receiptsFile: string | null;
  elapsedMs: number;
  unfinished?: number;
  /** Dry run: what would be erased (request line → contact id). */
  wouldErase?: Array<{ request: number; id: string }>;
  /** The files callctl wrote that hold the people (rows counted, cleaned or not): only when some do. */
  localCopies?: Array<Omit<LocalCopy, 'requests'>>;
}

/** The requests of the command line: a file's, or the one typed. */
async function requestsOf(ctx: Context, o: ErasureOptions, region: string | undefined): Promise<ErasureRequest[]> {
  if (o.from !== undefined) return readRequests({ path: o.from === '-' ? '-' : resolve(ctx.deps.cwd, o.from), stdin: ctx.deps.io.stdin, region, encoding: o.encoding });
  return [o.phone !== undefined ? requestOf(o.phone, 1, region, 'phone') : requestOf(o.email as string, 1, region, 'email')];
}

const copiesOf = (copies: LocalCopy[]) => (copies.length > 0 ? { localCopies: copies.map(({ file, rows, purged }) => ({ file, rows, purged })) } : {});

export async function runErasure(ctx: Context, o: ErasureOptions): Promise<number> {
  const started = ctx.deps.now();
  const settings = await ctx.settings();
  const region = regionOf(o.country, settings.country);
  if (o.from !== undefined) checkResumable(o.from, o.resume, o.from === '-' ? '-' : resolve(ctx.deps.cwd, o.from));
  const stdin = o.from === '-';
  const configPath = (await ctx.config()).path;

  // The receipts and rejects are never the request file (output/files.ts): checked before anything is read or sent.
  const fromPath = o.from === undefined || stdin ? undefined : resolve(ctx.deps.cwd, o.from);
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
  const requests = await requestsOf(ctx, o, region);
  for (const note of phoneNotes(requests, region, o.from === undefined)) ctx.log.warn(note);
  const shownName = o.from === undefined ? null : stdin ? 'stdin' : o.from;
  const client = await ctx.api();
  const files = ownCopyFiles(configPath);

  // One listing of all contacts for every phone and e-mail of the file (and for the people's own
  // copies: an id's contact holds the phone and e-mail to look for); ids are taken as given.
  const index = await listingFor(ctx, client, requests, region, files.length > 0 && (o.dryRun || o.confirm));
  const resolutions = resolveAll(requests, index);

  if (o.dryRun || !o.confirm) {
    const preview = await previewErasure(client, resolutions, index !== undefined);
    const erasable = preview.filter((p) => p.contact !== undefined);
    // A contact several requests find is one contact erased once, as the real run counts it.
    const distinct = new Set(erasable.map((p) => p.contact?.id)).size;
    const what = `${distinct} contact${distinct === 1 ? '' : 's'} for ${requests.length} request${requests.length === 1 ? '' : 's'}`;
    if (!o.dryRun) {
      await printPreview(ctx, preview, 'table');
      throw new UsageError(`this would erase ${what}, with all their calls and recordings, irreversibly; nothing was sent`, 'add --confirm to erase them (or --dry-run to check without this error)');
    }
    const search = searchLocalCopies(files, peopleOf(resolutions), false);
    const summary: ErasureSummary = {
      file: shownName,
      requests: requests.length,
      contacts: distinct,
      erased: 0,
      notFound: new Set(preview.filter((p) => !p.contact).map((p) => p.request.line)).size,
      failed: 0,
      skipped: 0,
      dryRun: true,
      receiptsFile: null,
      elapsedMs: ctx.deps.now() - started,
      wouldErase: erasable.map((p) => ({ request: p.request.line, id: p.contact?.id as string })),
      ...copiesOf(search.copies),
    };
    if (ctx.format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify(summary)}\n`);
    else await printPreview(ctx, preview, ctx.format);
    ctx.log.info(`dry run: would erase ${what}; nothing was sent`);
    reportLocalCopies(ctx.log, search, { purge: o.purgeLocal, dryRun: true });
    return 0;
  }

  const receipts = new ReceiptsFile(receiptsPath, o.receipts === undefined && (o.from === undefined || stdin || stream), (t) => ctx.log.redact(t));
  const { journal, earlier, rejects, rejectsPath: refusalsPath } = await openJob({
    kind: 'erasure',
    file: o.from ?? '-',
    shownName: shownName ?? 'the request',
    path: o.from === undefined ? '-' : stdin ? '-' : resolve(ctx.deps.cwd, o.from),
    cwd: ctx.deps.cwd,
    dryRun: o.from === undefined, // one typed request: nothing to resume
    resume: o.resume,
    restart: o.restart,
    expectJob: o.expectJob,
    identity: { baseUrl: settings.baseUrl, region },
    options: { ...(region !== undefined ? { country: region } : {}), ...(o.encoding !== undefined ? { encoding: o.encoding } : {}), receipts: receiptsPath, ...(o.purgeLocal ? { purgeLocal: true } : {}) },
    files: { receipts: receiptsPath },
    baseUrl: settings.baseUrl,
    apiKey: await keyOf(ctx),
    keep: settings.jobsKept,
    client,
    configPath: async () => configPath,
    rejectsPath,
    header: ['request'],
    csvRaw: ctx.csvRaw,
    log: ctx.log,
    now: ctx.deps.now,
  });
  receipts.open();

  const counts = { contacts: 0, erased: 0, notFound: 0 };
  const at = () => new Date(ctx.deps.now()).toISOString();
  const receipt = (request: ErasureRequest, erased?: { id: string; at: string }) => receipts.add(erased === undefined ? { request: request.line, found: 0 } : { request: request.line, id: erased.id, erased: true, at: erased.at });
  // One DELETE per contact, however many lines of the file find it (a person who wrote twice, by
  // phone and by e-mail): every such line gets the receipt of that erasure, none a "found 0". The
  // time it was erased, or undefined when it was already gone on the first try (404).
  const erasing = new Map<string, Promise<string | undefined>>();
  const eraseOnce = (id: string, signal: AbortSignal | undefined): Promise<string | undefined> => {
    let attempt = erasing.get(id);
    if (attempt !== undefined) return attempt;
    counts.contacts += 1;
    attempt = (async () => {
      try {
        await eraseContact(client, id, signal);
      } catch (err) {
        // A DELETE re-sent after a lost answer meets 404 when the first attempt went through.
        if (!(err instanceof ApiError) || err.status !== 404) throw err;
        if (err.attempts <= 1) return undefined;
      }
      counts.erased += 1;
      return at();
    })();
    erasing.set(id, attempt);
    // A failed DELETE may be tried again by a later line (or --resume).
    attempt.catch(() => erasing.delete(id));
    return attempt;
  };
  const byRow = new Map(resolutions.map((r, i) => [i + 1, r]));
  const plan: BulkPlan<Resolution> = {
    check(row) {
      const r = byRow.get(row.n) as Resolution;
      return r.contacts.length === 0 ? { done: 'notFound' } : { send: r };
    },
    duplicate: () => 'duplicate',
    ended(row) {
      counts.notFound += 1;
      receipt((byRow.get(row.n) as Resolution).request);
    },
    async send(r, _row, signal) {
      let erased = 0;
      for (const c of r.contacts) {
        const when = await eraseOnce(c.id, signal);
        if (when === undefined) continue;
        erased += 1;
        receipt(r.request, { id: c.id, at: when });
      }
      if (erased === 0) {
        counts.notFound += 1;
        receipt(r.request);
        return 'notFound';
      }
      return 'erased';
    },
    refused: (err) => `refused by the server (${err.status ?? ''}): ${err.serverMessage ?? err.message}`,
  };

  let result;
  let search: LocalSearch | undefined;
  try {
    result = await runBulk(plan, {
      rows: (async function* () {
        for (const r of requests) yield { cells: [r.text], line: r.line };
      })(),
      client,
      log: ctx.log,
      onSignal: ctx.deps.onSignal,
      rejects,
      journal,
      earlier,
      dryRun: false,
      window: Math.max(2, settings.concurrency * 4),
      startProgress: (facts) => startProgress(ctx, () => ({ ...facts(), bytesRead: 0, size: undefined, pace: client.stats().pace, throttled: client.stats().throttled })),
    });
    // The people's own copies, once every request has been through (not after a stop or Ctrl-C:
    // --resume comes back here). This erasure's own refusals file is not one of them.
    if (result.fatal === undefined && !result.interrupted) {
      search = searchLocalCopies(files.filter((f) => f.path !== refusalsPath && f.path !== `${refusalsPath}.partial`), peopleOf(resolutions), o.purgeLocal, (copy) => receipts.add({ cleaned: copy.file, rows: copy.rows, at: at() }));
    }
  } finally {
    receipts.close();
  }
  const c = result.counts;
  const summary: ErasureSummary = {
    file: shownName,
    requests: c.rows,
    contacts: counts.contacts,
    erased: counts.erased,
    notFound: counts.notFound,
    failed: c.failed + c.rejected,
    skipped: c.skipped,
    dryRun: false,
    receiptsFile: receipts.written > 0 ? receiptsPath : null,
    elapsedMs: ctx.deps.now() - started,
    ...(c.unfinished > 0 ? { unfinished: c.unfinished } : {}),
    ...copiesOf(search?.copies ?? []),
  };
  const asked = requests[0]?.numbers?.length ? `phone ${requests[0].text}` : `e-mail ${requests[0]?.text ?? ''}`;
  const lines = [
    `${result.interrupted ? 'interrupted erasure of' : 'erasure of'} ${shownName ?? `the contacts with ${asked}`}: ${c.rows} request${c.rows === 1 ? '' : 's'} in ${(summary.elapsedMs / 1000).toFixed(1)} s`,
    `  erased      ${summary.erased} contact${summary.erased === 1 ? '' : 's'}, with their calls and recordings`,
    `  not found   ${summary.notFound}  (requests that matched no contact)`,
    `  failed      ${summary.failed}${summary.failed > 0 ? '  (run again with --resume)' : ''}`,
  ];
  if (c.skipped > 0) lines.push(`  skipped     ${c.skipped}  (done in an earlier run)`);
  if (c.unfinished > 0) lines.push(`  unfinished  ${c.unfinished}  (--resume erases them)`);
  if (summary.receiptsFile) lines.push(`  receipts →  ${summary.receiptsFile}`);
  if (c.rejected > 0) lines.push(`  refusals →  ${refusalsPath}`);
  for (const line of lines) ctx.log.info(line);
  if (search) reportLocalCopies(ctx.log, search, { purge: o.purgeLocal, dryRun: false });
  if (ctx.format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify(summary)}\n`);

  if (result.fatal !== undefined) {
    if (result.fatal instanceof CallctlError) throw result.fatal;
    throw new RuntimeError('erasure_failed', `erasure stopped: ${(result.fatal as Error)?.message ?? String(result.fatal)}`, 'run the same command with --resume');
  }
  if (result.interrupted) throw new InterruptedError(`interrupted after ${summary.erased} contacts were erased`, 'the journal and receipts are saved: run the same command with --resume');
  return summary.failed === 0 ? EXIT.ok : EXIT.incomplete;
}
