/**
 * Progress of a bulk job, true to what it measures: rows finished of the total (estimated from
 * the share of the file read, when its size is known), the rate of rows sent in this run (rows
 * skipped from an earlier run do not count), and the ETA from the rows left at the pace the
 * limiter holds now — not from how fast the start of the file was read. On a terminal, a line
 * redrawn four times a second (ora); elsewhere (cron, CI, `tee`), a plain line every 10 s; nothing
 * under -q.
 */
import type { Context } from '../context.js';

export interface ProgressFacts {
  /** Rows finished in this run, whatever their ending. */
  finished: number;
  /** Rows sent (answered) in this run. */
  sent: number;
  /** Rows done in an earlier run (--resume). */
  skipped: number;
  rejected: number;
  /** Rows read so far. */
  read: number;
  bytesRead: number;
  size: number | undefined;
  /** The limiter's pace (requests per second); undefined or Infinity when unpaced. */
  pace: number | undefined;
  throttled: number;
}

export interface Progress {
  stop(): void;
}

/** Plain progress lines this far apart when stderr is not a terminal. */
const PLAIN_EVERY_MS = 10_000;

/** One progress line from the facts, `elapsedMs` after the job started. */
export function progressLine(f: ProgressFacts, elapsedMs: number): string {
  const secs = Math.max(0.001, elapsedMs / 1000);
  const rate = f.sent / secs;
  const share = f.size && f.size > 0 ? Math.min(1, f.bytesRead / f.size) : undefined;
  // Rows in the file, estimated from the share read (exact once all of it is read).
  const total = share !== undefined && share > 0 && f.read > 0 ? Math.max(f.read, Math.round(f.read / share)) : undefined;
  const done = f.finished + f.skipped;
  const left = total !== undefined ? Math.max(0, total - done) : undefined;
  const pace = f.pace !== undefined && Number.isFinite(f.pace) && f.pace > 0 ? f.pace : rate > 0 ? rate : undefined;
  const eta = left !== undefined && pace !== undefined ? left / pace : undefined;
  const parts = [
    total !== undefined ? `${done} of ${share === 1 ? '' : '~'}${total} rows (${Math.floor((done / Math.max(1, total)) * 100)} %)` : `${done} rows`,
    `${f.rejected} rejected`,
    `${rate.toFixed(1)} rows/s`,
  ];
  if (left !== undefined) parts.push(`${left} left`);
  if (eta !== undefined) parts.push(`ETA ${formatSecs(eta)}`);
  if (f.pace !== undefined && Number.isFinite(f.pace)) parts.push(`pace ${f.pace.toFixed(1)}/s`);
  parts.push(`${f.throttled} × 429`);
  return parts.join(', ');
}

export async function startProgress(ctx: Context, facts: () => ProgressFacts): Promise<Progress> {
  const started = ctx.deps.now();
  if (!ctx.animated) {
    if (ctx.log.verbosity === 'quiet') return { stop: () => undefined };
    const timer = setInterval(() => ctx.log.info(`progress: ${progressLine(facts(), ctx.deps.now() - started)}`), PLAIN_EVERY_MS);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }
  const { default: ora } = await import('ora');
  const spinner = ora({ stream: ctx.deps.io.stderr, discardStdin: false, text: 'reading…' }).start();
  const timer = setInterval(() => {
    spinner.text = progressLine(facts(), ctx.deps.now() - started);
  }, 250);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      spinner.stop();
    },
  };
}

function formatSecs(s: number): string {
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}
