/**
 * The progress line of a bulk job on a terminal: rows done, rejected, rows/s, ETA from the bytes
 * read, the pace and the 429s met. Nothing at all when stderr is not a TTY (CI, pipes).
 */
import type { Context } from '../context.js';

export interface ProgressFacts {
  done: number;
  rejected: number;
  bytesRead: number;
  size: number | undefined;
  pace: number | undefined;
  throttled: number;
}

export interface Progress {
  stop(): void;
}

export async function startProgress(ctx: Context, facts: () => ProgressFacts): Promise<Progress> {
  if (!ctx.animated) return { stop: () => undefined };
  const { default: ora } = await import('ora');
  const started = ctx.deps.now();
  const spinner = ora({ stream: ctx.deps.io.stderr, discardStdin: false, text: 'reading…' }).start();
  const timer = setInterval(() => {
    const f = facts();
    const secs = Math.max(0.001, (ctx.deps.now() - started) / 1000);
    const rate = f.done / secs;
    const share = f.size ? f.bytesRead / f.size : undefined;
    const eta = share && share > 0.001 ? Math.max(0, secs / share - secs) : undefined;
    const pace = f.pace !== undefined && Number.isFinite(f.pace) ? `, pace ${f.pace.toFixed(1)}/s` : '';
    spinner.text = `${f.done} rows done, ${f.rejected} rejected, ${rate.toFixed(1)} rows/s${eta !== undefined ? `, ETA ${formatSecs(eta)}` : ''}${pace}, ${f.throttled} × 429`;
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
