/**
 * Erasure requests: `contacts rm --phone <number>` and `contacts rm --from <file|->`. Each request
 * (an id, or a phone standing for every contact that is that person — national-format twins
 * included) is resolved first, with one listing of all contacts for the whole file; then, only
 * with --confirm, each contact found is erased (DELETE: the person, their calls and recordings)
 * on the bulk engine — limiter, retries, journal, progress, Ctrl-C — with a receipt per contact
 * erased and per request that found nothing. Without --confirm or with --dry-run, it says exactly
 * what would go (the same resolution) and sends no DELETE.
 */
import { resolve } from 'node:path';
import { eraseContact, getContact } from '../api/contacts.js';
import { type BulkPlan, runBulk } from '../bulk/engine.js';
import { checkResumable, openJob } from '../bulk/job.js';
import { startProgress } from '../bulk/progress.js';
import type { Context } from '../context.js';
import { ApiError, CallctlError, EXIT, InterruptedError, RuntimeError, UsageError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import type { EncodingName } from '../import/source.js';
import { besideInput, fdOf, isStreamInput, refuseOutputsOverInputs } from '../output/files.js';
import { createListWriter } from '../output/writers.js';
import { regionOf } from '../phone/e164.js';
import { PeopleIndex, type StoredContact, storedContact } from './people.js';
import { ReceiptsFile } from './receipts.js';
import { type ErasureRequest, readRequests, requestOf } from './requests.js';

export interface ErasureOptions {
  /** --from: a file of requests (or - for stdin). */
  from?: string | undefined;
  /** --phone: one request. */
  phone?: string | undefined;
  country?: string | undefined;
  confirm: boolean;
  dryRun: boolean;
  receipts?: string | undefined;
  resume: boolean;
  restart: boolean;
  encoding?: EncodingName | undefined;
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
}

/** What one request resolves to: the contacts that are this person (ids are taken as given). */
type Resolution = { request: ErasureRequest; contacts: Array<Pick<StoredContact, 'id'> & Partial<StoredContact>> };

export async function runErasure(ctx: Context, o: ErasureOptions): Promise<number> {
  const started = ctx.deps.now();
  const settings = await ctx.settings();
  const region = regionOf(o.country, settings.country);
  if (o.from !== undefined) checkResumable(o.from, o.resume, o.from === '-' ? '-' : resolve(ctx.deps.cwd, o.from));
  const stdin = o.from === '-';
  if (stdin && o.receipts === undefined && !o.dryRun && o.confirm) throw new UsageError('--receipts is needed when the requests come from stdin', 'e.g. --receipts erasures.jsonl');

  // The receipts and rejects are never the request file (output/files.ts): checked before anything is read or sent.
  const fromPath = o.from === undefined || stdin ? undefined : resolve(ctx.deps.cwd, o.from);
  const stream = o.from !== undefined && isStreamInput(fromPath ?? '-');
  const receiptsPath = o.receipts !== undefined ? resolve(ctx.deps.cwd, o.receipts) : o.from !== undefined && !stdin ? besideInput(ctx.deps.cwd, o.from, '.erasures.jsonl', stream) : undefined;
  const rejectsPath = besideInput(ctx.deps.cwd, o.from ?? '-', '.rejects.csv', stream);
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

  const requests = o.from !== undefined
    ? await readRequests({ path: stdin ? '-' : resolve(ctx.deps.cwd, o.from), stdin: ctx.deps.io.stdin, region, encoding: o.encoding })
    : [requestOf(o.phone as string, 1, region, 'phone')];
  const shownName = o.from === undefined ? null : stdin ? 'stdin' : o.from;
  const client = await ctx.api();

  // One listing of all contacts for every phone of the file; ids are taken as given.
  const phones = requests.some((r) => r.kind === 'phone');
  const index = phones ? await PeopleIndex.load(client, region) : undefined;
  if (index) ctx.log.info(`read ${index.listed} contacts to find the people requested`);
  const resolutions: Resolution[] = [];
  for (const request of requests) {
    if (request.kind === 'phone') resolutions.push({ request, contacts: (index as PeopleIndex).phone(request.e164) });
    else resolutions.push({ request, contacts: [index?.id(request.id) ?? { id: request.id }] });
  }

  if (o.dryRun || !o.confirm) {
    const preview = await previewErasure(client, resolutions, index !== undefined);
    const erasable = preview.filter((p) => p.contact !== undefined);
    const what = `${erasable.length} contact${erasable.length === 1 ? '' : 's'} for ${requests.length} request${requests.length === 1 ? '' : 's'}`;
    if (!o.dryRun) {
      await printPreview(ctx, preview, 'table');
      throw new UsageError(`this would erase ${what}, with all their calls and recordings, irreversibly; nothing was sent`, 'add --confirm to erase them (or --dry-run to check without this error)');
    }
    const summary: ErasureSummary = {
      file: shownName,
      requests: requests.length,
      contacts: erasable.length,
      erased: 0,
      notFound: new Set(preview.filter((p) => !p.contact).map((p) => p.request.line)).size,
      failed: 0,
      skipped: 0,
      dryRun: true,
      receiptsFile: null,
      elapsedMs: ctx.deps.now() - started,
      wouldErase: erasable.map((p) => ({ request: p.request.line, id: p.contact?.id as string })),
    };
    if (ctx.format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify(summary)}\n`);
    else await printPreview(ctx, preview, ctx.format);
    ctx.log.info(`dry run: would erase ${what}; nothing was sent`);
    return 0;
  }

  const receipts = receiptsPath ? new ReceiptsFile(receiptsPath, (t) => ctx.log.redact(t)) : undefined;
  const { journal, earlier, rejects } = await openJob({
    kind: 'erasure',
    file: o.from ?? '-',
    shownName: shownName ?? 'the request',
    path: o.from === undefined ? '-' : stdin ? '-' : resolve(ctx.deps.cwd, o.from),
    cwd: ctx.deps.cwd,
    dryRun: o.from === undefined, // one --phone: nothing to resume
    resume: o.resume,
    restart: o.restart,
    identity: { baseUrl: settings.baseUrl, region },
    configPath: async () => (await ctx.config()).path,
    rejectsPath,
    header: ['request'],
    csvRaw: ctx.csvRaw,
    log: ctx.log,
    now: ctx.deps.now,
  });

  const counts = { contacts: 0, erased: 0, notFound: 0 };
  const at = () => new Date(ctx.deps.now()).toISOString();
  const receipt = (request: ErasureRequest, id?: string) => {
    const r = id === undefined ? { request: request.line, found: 0 as const } : { request: request.line, id, erased: true as const, at: at() };
    receipts?.add(r);
    if (!receipts) ctx.log.info(id === undefined ? `request ${request.line}: no contact found` : `erased contact ${id} with their calls and recordings at ${r.at}`);
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
        counts.contacts += 1;
        try {
          await eraseContact(client, c.id, signal);
          erased += 1;
          receipt(r.request, c.id);
        } catch (err) {
          // A DELETE re-sent after a lost answer meets 404 when the first attempt went through.
          if (!(err instanceof ApiError) || err.status !== 404) throw err;
          if (err.attempts > 1) {
            erased += 1;
            receipt(r.request, c.id);
          }
        }
      }
      counts.erased += erased;
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
  try {
    result = await runBulk(plan, {
      rows: (async function* () {
        for (const r of requests) yield { cells: [r.text], line: r.line };
      })(),
      log: ctx.log,
      onSignal: ctx.deps.onSignal,
      rejects,
      journal,
      earlier,
      dryRun: false,
      window: Math.max(2, settings.concurrency * 4),
      firstAlone: true,
      startProgress: (facts) => startProgress(ctx, () => ({ ...facts(), bytesRead: 0, size: undefined, pace: client.stats().pace, throttled: client.stats().throttled })),
    });
  } finally {
    receipts?.close();
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
    receiptsFile: receipts && receipts.written > 0 ? (receiptsPath as string) : null,
    elapsedMs: ctx.deps.now() - started,
    ...(c.unfinished > 0 ? { unfinished: c.unfinished } : {}),
  };
  const lines = [
    `${result.interrupted ? 'interrupted erasure of' : 'erasure of'} ${shownName ?? `the contacts with phone ${requests[0]?.text ?? ''}`}: ${c.rows} request${c.rows === 1 ? '' : 's'} in ${(summary.elapsedMs / 1000).toFixed(1)} s`,
    `  erased      ${summary.erased} contact${summary.erased === 1 ? '' : 's'}, with their calls and recordings`,
    `  not found   ${summary.notFound}  (requests that matched no contact)`,
    `  failed      ${summary.failed}${summary.failed > 0 ? '  (run again with --resume)' : ''}`,
  ];
  if (c.skipped > 0) lines.push(`  skipped     ${c.skipped}  (done in an earlier run)`);
  if (c.unfinished > 0) lines.push(`  unfinished  ${c.unfinished}  (--resume erases them)`);
  if (summary.receiptsFile) lines.push(`  receipts →  ${summary.receiptsFile}`);
  if (c.rejected > 0) lines.push(`  refusals →  ${rejectsPath}`);
  for (const line of lines) ctx.log.info(line);
  if (ctx.format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify(summary)}\n`);

  if (result.fatal !== undefined) {
    if (result.fatal instanceof CallctlError) throw result.fatal;
    throw new RuntimeError('erasure_failed', `erasure stopped: ${(result.fatal as Error)?.message ?? String(result.fatal)}`, 'run the same command with --resume');
  }
  if (result.interrupted) throw new InterruptedError(`interrupted after ${summary.erased} contacts were erased`, 'the journal and receipts are saved: run the same command with --resume');
  return summary.failed === 0 ? EXIT.ok : EXIT.incomplete;
}

interface PreviewRow {
  request: ErasureRequest;
  contact: (Pick<StoredContact, 'id'> & Partial<StoredContact>) | undefined;
}

/** Resolves as the real run would; an id not in a listing is looked up (GET) to say who it is. */
async function previewErasure(client: ApiClient, resolutions: Resolution[], listed: boolean): Promise<PreviewRow[]> {
  const rows: PreviewRow[] = [];
  for (const r of resolutions) {
    if (r.contacts.length === 0) {
      rows.push({ request: r.request, contact: undefined });
      continue;
    }
    for (const c of r.contacts) {
      if (c.name !== undefined || listed) {
        rows.push({ request: r.request, contact: c.name !== undefined ? c : undefined });
        continue;
      }
      try {
        rows.push({ request: r.request, contact: storedContact(await getContact(client, c.id), undefined) });
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) rows.push({ request: r.request, contact: undefined });
        else throw err;
      }
    }
  }
  return rows;
}

async function printPreview(ctx: Context, rows: PreviewRow[], format: 'table' | 'json' | 'ndjson' | 'csv'): Promise<void> {
  const writer = await createListWriter(ctx.deps.io.stdout, format === 'json' ? 'table' : format, [
    { key: 'request', header: 'Request (line)' },
    { key: 'asked', header: 'Asked for' },
    { key: 'id', header: 'Would erase' },
    { key: 'name', header: 'Name' },
    { key: 'phone', header: 'Phone' },
  ], ctx);
  await writer.write(rows.map((r) => ({ request: r.request.line, asked: r.request.text, id: r.contact?.id ?? '(none found)', name: r.contact?.name ?? '', phone: r.contact?.phone ?? '' })));
  await writer.end();
}
