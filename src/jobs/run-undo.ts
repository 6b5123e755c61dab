/**
 * `callctl import undo <job>` (also `jobs undo`): puts the service back as it was before an
 * import, as far as it safely can (docs/commands/jobs.md, "import undo"). What
 * the import did is read from its journal (src/import/effects.ts); what earlier undos of it already
 * did is read from theirs, so running it again sends nothing. Without --confirm (and without
 * --dry-run) it says what it would do, from the record alone, and sends nothing (exit 2). The undo
 * itself runs on the bulk engine (undo-plan.ts) with a journal of its own: lock, --resume,
 * receipts.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { endedAs, headline, jobClient, runFileJob } from '../bulk/file-job.js';
import { journalsDir, openJob } from '../bulk/job.js';
import type { Context } from '../context.js';
import { CallctlError, EXIT, InterruptedError, RuntimeError, UsageError } from '../errors.js';
import { type Effect, effectsOf } from '../import/effects.js';
import { runningError, takeLock } from '../bulk/lock.js';
import { findJob, type JobRecord, readJobs, readJournal } from '../bulk/records.js';
import { lineName } from '../source/open.js';
import { refuseOtherAccount, sameBase } from './account.js';
import { undoCounts } from './counts.js';
import { inFlightContacts } from './in-flight.js';
import { KEPT_SHOWN, plannedRows, showUndoTable, tableAsked, UndoTable, writeUndoChanges } from './undo-output.js';
import { readForUndo } from './undo-reads.js';
import { finalBefore, UndoReceipts, undoPlan } from './undo-plan.js';

export interface UndoOptions {
  job: string;
  dryRun: boolean;
  confirm: boolean;
  includeChanged: boolean;
  /** Also erase the contacts the import may have created but could not tell (docs/people.md). */
  includeUncertain?: boolean;
  resume: boolean;
  restart: boolean;
  /** `jobs resume`: the undo job this run continues. */
  expectJob?: string | undefined;
}

/** The contract's keys, in its order; the others only when they apply. */
export interface UndoSummary {
  job: string;
  dryRun: boolean;
  erased: number;
  restored: number;
  kept: number;
  cannotRestore: number;
  failed: number;
  receiptsFile: string | null;
  elapsedMs: number;
  gone?: number;
  /** Contacts the import may have created (an attempt's answer lost): kept, without --include-uncertain. */
  uncertain?: number;
  /** Rows sent without a journaled answer that no contact holds the phone of: the service never stored them. */
  notStored?: number;
  keptFields?: number;
  skipped?: number;
  unfinished?: number;
}

/** Why a job is not an import that can be undone: exit 2. */
function refuseKind(job: JobRecord): void {
  const name = `job ${job.id}`;
  if (job.kind === 'erasure') throw new UsageError(`${name} is an erasure: it cannot be undone — the contacts, their calls and recordings are gone`, 'an erased person cannot be brought back');
  if (job.kind === 'writeback') throw new UsageError(`${name} is an outcome writeback: it is not undone — the calls' earlier outcomes were never read`, 'write the outcomes you want with callctl calls outcome --from <file>');
  if (job.kind === 'undo') throw new UsageError(`${name} is an undo: an undo is not undone`, 'import the file again to put the contacts back');
  if (job.kind !== 'import') throw new UsageError(`${name} is a ${job.kind} job: only an import can be undone`);
  if (job.dryRun) throw new UsageError(`${name} was a dry run: it changed nothing`, 'undo the real import: see callctl jobs ls');
  if (job.state === 'running' && job.holder) throw runningError(`the import ${job.id}`, job.holder);
}

/**
 * What earlier undos of this import did: contact id → ending, the contacts they set out to erase,
 * and those they set out to erase for a row sent without a journaled answer (import row → ids).
 */
function earlierUndos(dir: string, importId: string): { done: Map<string, string>; erasing: Set<string>; erasingInFlight: Map<number, string[]>; erasedInFlight: Set<number>; by: JobRecord[] } {
  const done = new Map<string, string>();
  const erasing = new Set<string>();
  const erasingInFlight = new Map<number, string[]>();
  const erasedInFlight = new Set<number>();
  const by = readJobs(dir).filter((j) => j.kind === 'undo' && j.undoes === importId && !j.dryRun).reverse();
  for (const job of by) {
    const p = readJournal(job);
    for (const [r, intent] of p.intents) {
      if (typeof intent.id !== 'string') continue;
      if (intent.act === 'erase') erasing.add(intent.id);
      const ending = p.rows.get(r);
      if (ending !== undefined && ending !== 'earlier' && ending !== 'failed') done.set(intent.id, ending);
    }
    for (const [r, d] of p.data) {
      if (typeof d.row !== 'number' || !Array.isArray(d.erasing)) continue;
      const ids = d.erasing.filter((id): id is string => typeof id === 'string');
      erasingInFlight.set(d.row, [...new Set([...(erasingInFlight.get(d.row) ?? []), ...ids])]);
      if (p.rows.get(r) === 'erased') erasedInFlight.add(d.row);
    }
  }
  return { done, erasing, erasingInFlight, erasedInFlight, by };
}

/**
 * The contacts other imports of the same account created — their POST answered 201 for that very
 * contact, not a match judged created — contact id → that import's id. A contact the service
 * answered as created to another request is not what a lost send of this import stored: with the
 * phone already held, the service would have matched it (the abandoned run of a --restart, or an
 * import of an overlapping file, whose row is then created by the other).
 */
function createdByOthers(dir: string, target: JobRecord): Map<string, string> {
  const by = new Map<string, string>();
  for (const job of readJobs(dir)) {
    if (job.kind !== 'import' || job.id === target.id || job.dryRun || !sameBase(job.baseUrl ?? '', target.baseUrl ?? '') || job.key !== target.key) continue;
    const p = readJournal(job);
    for (const [r, status] of p.rows) {
      const d = p.data.get(r);
      if (status === 'created' && d !== undefined && d.own !== true && typeof d.id === 'string') by.set(d.id, job.id);
    }
  }
  return by;
}

export async function runUndo(ctx: Context, o: UndoOptions): Promise<number> {
  const started = ctx.deps.now();
  const settings = await ctx.settings();
  const dir = journalsDir((await ctx.config()).path);
  const target = findJob(dir, o.job);
  refuseKind(target);
  await refuseOtherAccount(ctx, target, { doing: 'undo', strict: true });
  const shown = target.file === '-' ? 'stdin' : target.file;
  if (target.state === 'interrupted') ctx.log.warn(`the import ${target.id} did not finish: this undoes the rows it stored (a later --resume of it would send the rest)`);
  const recorded = effectsOf(readJournal(target));
  const { unknown } = recorded;
  // Rows sent without a journaled answer come last, each found by its phone when the undo runs.
  const inFlight = recorded.inFlight.flatMap((r): Effect[] => (r.p !== undefined ? [{ kind: 'inFlight', row: r.row, line: r.line, ...(r.sheet !== undefined ? { sheet: r.sheet } : {}), id: '', p: r.p, t: r.t, ...(r.f !== undefined ? { f: r.f } : {}) }] : []));
  const effects = [...recorded.effects, ...inFlight];
  const phoneless = recorded.inFlight.filter((r) => r.p === undefined);
  if (phoneless.length > 0) ctx.log.warn(`line${phoneless.length === 1 ? '' : 's'} ${phoneless.map((r) => lineName(r)).join(', ')}: sent without a phone, the answer never journaled — what ${phoneless.length === 1 ? 'it' : 'they'} stored cannot be found by the undo (check the contacts)`);
  if (inFlight.length > 0) ctx.log.warn(`${inFlight.length} row${inFlight.length === 1 ? ' was' : 's were'} sent without a journaled answer (the import stopped, or ${inFlight.length === 1 ? 'it' : 'they'} failed): the contacts are read to find what ${inFlight.length === 1 ? 'it' : 'they'} stored`);
  const earlier = earlierUndos(dir, target.id);
  // A row sent without a journaled answer whose contact an earlier undo erased is done: not looked
  // for again (but with --include-uncertain: another contact holding its phone may have been kept).
  const erasedInFlight = o.includeUncertain === true ? new Set<number>() : earlier.erasedInFlight;
  const left = effects.filter((e) => (e.kind === 'inFlight' ? !erasedInFlight.has(e.row) : !finalBefore(earlier.done.get(e.id), o.includeChanged, o.includeUncertain === true)));
  const unread = effects.filter((e) => e.kind === 'unread');
  const uncertain = left.filter((e) => e.kind === 'uncertain');
  if (uncertain.length > 0) {
    const ids = uncertain.slice(0, 10).map((e) => e.id).join(', ');
    ctx.log.warn(
      `${uncertain.length} contact${uncertain.length === 1 ? ' was' : 's were'} matched by this import after an attempt whose answer was lost, and the service did not tell whether that attempt created ${uncertain.length === 1 ? 'it' : 'them'}: ${ids}${uncertain.length > 10 ? ` and ${uncertain.length - 10} more` : ''} — ${o.includeUncertain ? 'erased as created by it (--include-uncertain)' : 'kept (check them; --include-uncertain erases them as created by the import)'}`,
    );
  }
  if (unknown > 0) ctx.log.warn(`${unknown} rows this import stored left no contact id in its journal (it ran before callctl kept one): they cannot be undone`);
  if (unread.length > 0 && left.some((e) => e.kind === 'unread')) {
    ctx.log.warn(`${unread.length} contact${unread.length === 1 ? ' was' : 's were'} changed by this import without being read first (it ran without --check-existing): their earlier values are unknown and cannot be given back`);
    ctx.log.warn('to make the next import reversible, run it with --check-existing: it reads the contacts first and keeps the values it changes');
  }
  const keptBefore = [...earlier.done.values()].filter((s) => s === 'kept' || s === 'partly').length;
  if (left.filter((e) => e.kind !== 'unread' && (e.kind !== 'uncertain' || o.includeUncertain === true)).length === 0) {
    const why = effects.length === 0 ? 'the import created and changed no contact' : earlier.by.length > 0 ? `job ${earlier.by.at(-1)?.id} undid it already${keptBefore > 0 && !o.includeChanged ? ` (${keptBefore} changed since were kept: --include-changed undoes them too)` : ''}` : 'nothing it changed can be given back';
    ctx.log.info(`nothing to undo for job ${target.id}: ${why}; nothing was sent`);
    if (ctx.format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify(summaryOf(target.id, o.dryRun, {}, null, ctx.deps.now() - started, { cannotRestore: left.length }))}\n`);
    return EXIT.ok;
  }

  const toErase = left.filter((e) => e.kind === 'created' || (e.kind === 'uncertain' && o.includeUncertain === true));
  const toFind = left.filter((e) => e.kind === 'inFlight');
  const toRestore = left.filter((e) => e.kind === 'changed');
  const base = target.file === '-' ? join(dirname(dir), 'undo', target.id) : target.file;
  if (target.file === '-') mkdirSync(dirname(base), { recursive: true, mode: 0o700 });
  const changesPath = `${base}.undo-changes.csv`;
  if (!o.dryRun && !o.confirm) {
    // The summary of what it would do, from the record alone; each contact in the changes file.
    const rows = plannedRows(left);
    writeUndoChanges(ctx, changesPath, rows);
    const n = (action: string) => rows.filter((r) => r.action === action).length;
    for (const line of [
      `undo of job ${target.id} (import of ${shown}): ${rows.length} contact${rows.length === 1 ? '' : 's'}, from its record (none read yet)`,
      `  would erase     ${n('would erase')}  (created by the import, with their calls and recordings)`,
      `  would restore   ${n('would restore')}  (given their earlier values back)`,
      `  cannot restore  ${n('cannot restore')}  (changed without being read first)`,
      ...(n('uncertain') > 0 ? [`  uncertain       ${n('uncertain')}  (perhaps created by it, an answer lost: ${o.includeUncertain ? 'erased, --include-uncertain' : 'kept; --include-uncertain erases them'})`] : []),
      ...(n('would find by phone') > 0 ? [`  to find         ${n('would find by phone')}  (sent without a journaled answer: found by their phone, erased if that send created them)`] : []),
      `  each contact →  ${changesPath}${tableAsked(ctx) ? '' : '  (-v or --format shows it here)'}`,
    ]) ctx.log.info(line);
    if (tableAsked(ctx)) await showUndoTable(ctx, rows);
    throw new UsageError(
      `this would erase ${toErase.length} contact${toErase.length === 1 ? '' : 's'} the import created (with their calls and recordings, irreversibly)${toFind.length > 0 ? `, and those ${toFind.length} row${toFind.length === 1 ? '' : 's'} sent without a journaled answer created,` : ''} and give ${toRestore.length} contact${toRestore.length === 1 ? '' : 's'} their earlier values back; nothing was sent`,
      'add --confirm to undo it, or --dry-run to read each contact and see what would happen',
    );
  }

  const client = await jobClient(ctx, !o.dryRun, 'while reading the contacts, before any was changed');
  // An interrupted import is not resumed while it is being undone: the undo holds its lock too.
  if (!/\.done-\d+\.jsonl$/.test(target.journal)) {
    const lock = takeLock(target.journal.replace(/\.jsonl$/, '.lock'), `the import ${target.id}`, ctx.deps.now);
    ctx.onClose(() => lock.release());
  }
  const region = typeof target.options.country === 'string' ? target.options.country : undefined;
  const found = toFind.length > 0 ? await inFlightContacts(client, recorded.inFlight, region) : undefined;
  const receiptsPath = `${base}.undo.jsonl`;
  const digest = createHash('sha256').update(target.id).update(JSON.stringify(effects.map((e) => [e.row, e.id, e.kind]))).digest('hex');
  const files = await openJob({
    kind: 'undo',
    file: target.file,
    shownName: `job ${target.id}`,
    path: target.file,
    cwd: ctx.deps.cwd,
    dryRun: o.dryRun,
    resume: o.resume,
    restart: o.restart,
    expectJob: o.expectJob,
    identity: { includeChanged: o.includeChanged, ...(o.includeUncertain ? { includeUncertain: true } : {}) },
    options: { job: target.id, ...(o.includeChanged ? { includeChanged: true } : {}), ...(o.includeUncertain ? { includeUncertain: true } : {}) },
    files: { receipts: receiptsPath, changes: changesPath },
    content: { hash: digest, undoes: target.id },
    baseUrl: settings.baseUrl,
    apiKey: await ctx.apiKey(),
    keep: settings.jobsKept,
    client,
    configPath: async () => (await ctx.config()).path,
    rejectsPath: resolve(`${base}.undo-refused.csv`),
    header: ['line', 'id'],
    log: ctx.log,
    now: ctx.deps.now,
  });
  const journal = files.journal;
  // However the undo ends before the engine closes its journal (a signal or a failure while it
  // reads the contacts): nothing of this run was sent, so a new undo leaves no record and its lock
  // is let go; a resumed one keeps its own (as file-job.ts's openFileJob).
  if (journal) ctx.onClose(() => journal.discard());
  const receipts = o.dryRun ? undefined : new UndoReceipts(receiptsPath);
  // Every contact's row for the changes file: what a dry run would do, what the real run did.
  const table = new UndoTable(o.dryRun, receipts);
  const keptNamed: string[] = [];
  // The contacts to read, the cheaper way: one listing of the account, or one GET each.
  const toRead = new Set(left.filter((e) => e.kind === 'created' || e.kind === 'changed' || (e.kind === 'uncertain' && o.includeUncertain === true)).map((e) => e.id));
  const reads = await readForUndo(client, toRead);
  ctx.log.info(`reading the ${toRead.size.toLocaleString('en-US')} contacts to undo by ${reads.how}`);
  const { plan, tally } = undoPlan({
    client,
    items: effects,
    includeChanged: o.includeChanged,
    includeUncertain: o.includeUncertain === true,
    inFlight: found,
    fills: recorded.fills,
    createdByOthers: found !== undefined ? createdByOthers(dir, target) : undefined,
    dryRun: o.dryRun,
    journal: files.journal,
    earlier: files.earlier,
    receipts: table,
    listed: reads.listed,
    doneBefore: earlier.done,
    erasingBefore: earlier.erasing,
    erasingInFlightBefore: earlier.erasingInFlight,
    erasedInFlightBefore: erasedInFlight,
    now: ctx.deps.now,
    onKept(e, what) {
      keptNamed.push(`${o.dryRun ? 'would keep' : 'kept'} contact ${e.id} (line ${lineName(e)}): ${what}`);
    },
  });
  let result;
  try {
    const rows = (async function* () {
      for (const e of effects) yield { cells: [lineName(e), e.id], line: e.line, sheet: e.sheet };
    })();
    const source = { header: ['line', 'id'], rows, bytesRead: () => 0, size: undefined, delimiter: ',', encoding: 'utf8' };
    result = await runFileJob(ctx, plan, source, files, { client, dryRun: false, concurrency: settings.concurrency, words: { unit: 'contacts', refusedAsFailed: true } });
  } finally {
    receipts?.close();
  }
  const c = result.counts;
  const e = c.endings;
  const summary = summaryOf(target.id, o.dryRun, { ...e, failed: c.failed, rejected: c.rejected }, receipts && existsSync(receiptsPath) ? receiptsPath : null, ctx.deps.now() - started, {
    keptFields: tally.keptFields,
    skipped: c.skipped,
    unfinished: c.unfinished,
  });
  const h = headline(endedAs(result), 'undo of', 'undo');
  const lines = [
    `${o.dryRun ? 'dry run of the undo of' : h.opening} job ${target.id} (import of ${shown}): ${c.rows} contact${c.rows === 1 ? '' : 's'}${h.afterCount} in ${(summary.elapsedMs / 1000).toFixed(1)} s`,
    `  erased          ${summary.erased}  (created by the import${o.dryRun ? ': would be erased' : ''})`,
    `  restored        ${summary.restored}  (given their earlier values back${o.dryRun ? ': would be' : ''})`,
    `  kept            ${summary.kept}  (changed since the import${summary.keptFields ? `, ${summary.keptFields} field${summary.keptFields === 1 ? '' : 's'} of them on restored contacts` : ''}; --include-changed undoes them too)`,
    `  cannot restore  ${summary.cannotRestore}  (changed without being read first)`,
  ];
  if (summary.notStored) lines.push(`  not stored      ${summary.notStored}  (sent when the import stopped; the service never stored them)`);
  if (summary.uncertain) lines.push(`  uncertain       ${summary.uncertain}  (perhaps created by it, an answer lost: kept; --include-uncertain erases them)`);
  if (summary.gone) lines.push(`  gone            ${summary.gone}  (no longer on the service)`);
  lines.push(`  failed          ${summary.failed}${summary.failed > 0 ? '  (run again with --resume)' : ''}`);
  if (summary.skipped) lines.push(`  skipped         ${summary.skipped}  (done by an earlier run)`);
  if (summary.unfinished) lines.push(`  unfinished      ${summary.unfinished}  (--resume finishes them)`);
  if (summary.receiptsFile) lines.push(`  receipts →  ${summary.receiptsFile}`);
  writeUndoChanges(ctx, changesPath, table.rows);
  lines.push(`  each contact →  ${changesPath}${tableAsked(ctx) ? '' : '  (-v or --format shows it here)'}`);
  for (const line of lines) ctx.log.info(line);
  // Then the contacts kept, named (the first of them; all are in the changes file).
  for (const line of keptNamed.slice(0, KEPT_SHOWN)) ctx.log.warn(line);
  if (keptNamed.length > KEPT_SHOWN) ctx.log.warn(`… and ${keptNamed.length - KEPT_SHOWN} more kept (see ${changesPath})`);
  if (tableAsked(ctx)) await showUndoTable(ctx, table.rows);
  if (ctx.format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify(summary)}\n`);
  if (result.fatal !== undefined) {
    if (result.fatal instanceof CallctlError) throw result.fatal;
    throw new RuntimeError('undo_failed', `undo stopped: ${(result.fatal as Error)?.message ?? String(result.fatal)}`, `run callctl import undo ${target.id} --confirm --resume`);
  }
  if (result.interrupted) throw new InterruptedError(`interrupted after ${summary.erased} erased and ${summary.restored} restored`, `the journal and receipts are saved: run callctl import undo ${target.id} --confirm --resume`);
  return summary.failed === 0 ? EXIT.ok : EXIT.incomplete;
}

function summaryOf(job: string, dryRun: boolean, e: Record<string, number>, receiptsFile: string | null, elapsedMs: number, extra: { keptFields?: number; skipped?: number; unfinished?: number; cannotRestore?: number }): UndoSummary {
  // Counted as jobs ls and jobs show count the record (counts.ts): a contact given some fields back
  // and keeping others (`partly`) counts as restored and as kept.
  const n = undoCounts(e);
  const skipped = n.skipped + (extra.skipped ?? 0);
  return {
    job,
    dryRun,
    erased: n.erased,
    restored: n.restored,
    kept: n.kept,
    cannotRestore: n.cannotRestore + (extra.cannotRestore ?? 0),
    failed: n.failed,
    receiptsFile,
    elapsedMs,
    ...(n.gone ? { gone: n.gone } : {}),
    ...(n.uncertain ? { uncertain: n.uncertain } : {}),
    ...(n.notStored ? { notStored: n.notStored } : {}),
    ...(extra.keptFields ? { keptFields: extra.keptFields } : {}),
    ...(skipped ? { skipped } : {}),
    ...(extra.unfinished ? { unfinished: extra.unfinished } : {}),
  };
}
