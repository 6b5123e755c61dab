/**
 * What an erasure would do, said before anything is sent: without --confirm, a refusal (exit 2)
 * after the table of who would go; with --dry-run, the same table (or the summary with --json),
 * exit 0. Both resolve every request as the real run does (resolve.ts) and name the files callctl
 * wrote that hold the people (local-copies.ts); neither sends a DELETE.
 */
import { getContact } from '../api/contacts.js';
import { storedContact } from '../contacts/people.js';
import type { Context } from '../context.js';
import { lineName, lineRef } from '../source/open.js';
import { ApiError, UsageError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { createListWriter } from '../output/writers.js';
import { reportLocalCopies, searchLocalCopies } from './local-copies.js';
import type { OwnFile } from './local-files.js';
import type { ErasureRequest } from './requests.js';
import { type FoundContact, peopleOf, type Resolution } from './resolve.js';
import { copiesOf, type ErasureSummary } from './summary.js';

interface PreviewRow {
  request: ErasureRequest;
  contact: FoundContact | undefined;
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
  await writer.write(rows.map((r) => ({ request: lineName(r.request), asked: r.request.text, id: r.contact?.id ?? '(none found)', name: r.contact?.name ?? '', phone: r.contact?.phone ?? '' })));
  await writer.end();
}


/** The refusal without --confirm, or the dry run's answer: what would be erased, and nothing sent. */
export async function previewOrRefuse(
  ctx: Context,
  client: ApiClient,
  o: { dryRun: boolean; purgeLocal: boolean; shownName: string | null; started: number },
  requests: ErasureRequest[],
  resolutions: Resolution[],
  listing: { listed: boolean; files: OwnFile[] },
): Promise<number> {
  const preview = await previewErasure(client, resolutions, listing.listed);
  const erasable = preview.flatMap((p) => (p.contact === undefined ? [] : [{ request: lineRef(p.request), id: p.contact.id }]));
  // A contact several requests find is one contact erased once, as the real run counts it.
  const distinct = new Set(erasable.map((p) => p.id)).size;
  const what = `${distinct} contact${distinct === 1 ? '' : 's'} for ${requests.length} request${requests.length === 1 ? '' : 's'}`;
  if (!o.dryRun) {
    await printPreview(ctx, preview, 'table');
    throw new UsageError(`this would erase ${what}, with all their calls and recordings, irreversibly; nothing was sent`, 'add --confirm to erase them (or --dry-run to check without this error)');
  }
  const search = searchLocalCopies(listing.files, peopleOf(resolutions), false);
  const summary: ErasureSummary = {
    file: o.shownName,
    requests: requests.length,
    contacts: distinct,
    erased: 0,
    notFound: new Set(preview.filter((p) => !p.contact).map((p) => p.request.line)).size,
    failed: 0,
    skipped: 0,
    dryRun: true,
    receiptsFile: null,
    elapsedMs: ctx.deps.now() - o.started,
    wouldErase: erasable,
    ...copiesOf(search.copies),
  };
  if (ctx.format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify(summary)}\n`);
  else await printPreview(ctx, preview, ctx.format);
  ctx.log.info(`dry run: would erase ${what}; nothing was sent`);
  reportLocalCopies(ctx.log, search, { purge: o.purgeLocal, dryRun: true });
  return 0;
}
