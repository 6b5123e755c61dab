/**
 * `callctl jobs resume <job>`: an interrupted job run again with its recorded file and options, as
 * `--resume` of the same command would — but only on the file it read: a file whose bytes changed
 * (its size, or its content hash when only the time changed) is refused, naming what changed.
 * The run must continue that very journal: settings that make it another job (the profile's
 * country changed since) stop it before anything is sent.
 */
import { statSync } from 'node:fs';
import { journalsDir } from '../bulk/job.js';
import { fileHash } from '../bulk/journal.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { runningError } from '../bulk/lock.js';
import { findJob, type JobRecord } from '../bulk/records.js';
import { str, strings } from '../values.js';
import { refuseOtherAccount } from './account.js';


/** Refuses a file that is gone or changed since the job read it. */
async function checkFile(job: JobRecord): Promise<void> {
  let size: number;
  let mtimeMs: number;
  try {
    const s = statSync(job.file);
    size = s.size;
    mtimeMs = Math.round(s.mtimeMs);
  } catch {
    throw new UsageError(`job ${job.id} read ${job.file}, which is no longer there`, 'put the file back where it was to resume the job');
  }
  if (job.size !== undefined && size !== job.size) {
    throw new UsageError(`${job.file} changed since job ${job.id} read it (${job.size} bytes then, ${size} now)`, 'a resume only continues the same file: run the new file as a job of its own');
  }
  if (job.sha256 !== undefined && mtimeMs !== job.mtimeMs && (await fileHash(job.file)) !== job.sha256) {
    throw new UsageError(`${job.file} changed since job ${job.id} read it (same size, other content, modified ${new Date(mtimeMs).toISOString()})`, 'a resume only continues the same file: run the new file as a job of its own');
  }
}

export async function resumeJob(ctx: Context, given: string): Promise<number> {
  const job = findJob(journalsDir((await ctx.config()).path), given);
  if (job.state === 'running' && job.holder) throw runningError(`job ${job.id}`, job.holder);
  if (job.state === 'finished') throw new UsageError(`job ${job.id} finished${job.endedAt ? ` at ${job.endedAt}` : ''}: there is nothing to resume`, `see callctl jobs show ${job.id}`);
  if (job.file === '-' && job.kind !== 'undo') throw new UsageError(`job ${job.id} read stdin, which cannot be read again`, 'run it again from a file');
  if (/\.done-\d+\.jsonl$/.test(job.journal)) throw new UsageError(`job ${job.id} was started over (--restart): it cannot be resumed`, 'see callctl jobs ls for the run that replaced it');
  await refuseOtherAccount(ctx, job, { doing: 'resume', strict: false });
  if (job.kind !== 'undo') await checkFile(job);
  const o = job.options;
  const common = { dryRun: false, resume: true, restart: false, expectJob: job.id };
  ctx.log.info(`resuming job ${job.id}: the ${job.kind} of ${job.file === '-' ? `job ${str(o.job) ?? ''}` : job.file}`);
  switch (job.kind) {
    case 'import': {
      const { runImport } = await import('../import/run-import.js');
      const existing = o.existing === 'skip' ? 'skip' : 'merge';
      return runImport(ctx, {
        ...common,
        file: job.file,
        map: strings(o.map),
        allowNoPhone: o.allowNoPhone === true,
        keepOtherPhones: o.keepOtherPhones === true,
        checkExisting: o.checkExisting === true,
        existing,
        ...(str(o.country) ? { country: str(o.country) as string } : {}),
        ...(str(o.encoding) ? { encoding: str(o.encoding) as never } : {}),
        ...(str(o.delimiter) ? { delimiter: str(o.delimiter) as string } : {}),
        ...(str(o.sheet) !== undefined ? { sheet: str(o.sheet) as string } : {}),
        ...(str(o.rejects) ? { rejects: str(o.rejects) as string } : {}),
      });
    }
    case 'writeback': {
      const { runWriteback } = await import('../writeback/run-writeback.js');
      return runWriteback(ctx, {
        ...common,
        file: job.file,
        map: strings(o.map),
        ...(str(o.currency) ? { currency: str(o.currency) as string } : {}),
        ...(str(o.encoding) ? { encoding: str(o.encoding) as never } : {}),
        ...(str(o.delimiter) ? { delimiter: str(o.delimiter) as string } : {}),
        ...(str(o.rejects) ? { rejects: str(o.rejects) as string } : {}),
      });
    }
    case 'erasure': {
      const { runErasure } = await import('../erasure/run-erasure.js');
      return runErasure(ctx, { ...common, from: job.file, confirm: true, purgeLocal: o.purgeLocal === true, country: str(o.country), encoding: str(o.encoding) as never, receipts: str(o.receipts) });
    }
    case 'undo': {
      const { runUndo } = await import('./run-undo.js');
      return runUndo(ctx, { ...common, job: str(o.job) ?? job.undoes ?? '', confirm: true, includeChanged: o.includeChanged === true, includeUncertain: o.includeUncertain === true });
    }
    default:
      throw new UsageError(`job ${job.id} is a ${job.kind} job, which callctl cannot resume`);
  }
}
