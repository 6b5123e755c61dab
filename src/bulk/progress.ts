/**
 * Progress of a bulk job, true to what it measures: rows finished of the total (estimated from
 * the share of the file read, when its size is known), the rate of rows sent in this run (rows
 * skipped from an earlier run do not count), and the ETA from the rows left at the pace the
 * limiter holds now — not from how fast the start of the file was read. On a terminal, a line
 * redrawn four times a second (ora); elsewhere (cron, CI, `tee`), a plain line every 10 s; nothing
 * under -q. While the service is down (src/http/outage.ts) the line says so instead, the ETA
 * paused: "service unreachable for 12 s, retrying in 4 s; 2,591 of 5,000 rows done" — redrawn in
 * place on a terminal; elsewhere a line when the outage starts, every 10 s while it lasts, and when
 * it ends. Each retry's own line is for -v.
 */
import type { Context } from '../context.js';
import type { OutageView } from '../http/outage.js';

export interface ProgressFacts {
  /** Rows finished in this run, whatever their ending. */
  finished: number;
  /** Rows sent (answered) in this run. */
  sent: number;
  /** Rows done in an earlier run (--resume). */
  skipped: number;
  /** The counts as the job's summary has them: rejected, duplicates (apart), failed. */
  rejected: number;
  duplicates: number;
  failed: number;
  /** Rows read so far. */
  read: number;
  bytesRead: number;
  size: number | undefined;
  /** The limiter's pace (requests per second); undefined or Infinity when unpaced. */
  pace: number | undefined;
  throttled: number;
  /** The service as the requests met it: an outage under way, and those over. */
  outage?: OutageView | undefined;
}

export interface Progress {
  stop(): void;
}

/**
 * The job's own words, so that the progress line and the summary name one thing alike: what a
 * row is (`rows`; an erasure's `requests`; an undo's `contacts`), and whether the server's
 * refusals count as `failed` (an erasure, an undo) rather than `rejected`.
 */
export interface ProgressWords {
  unit: 'rows' | 'requests' | 'contacts';
  refusedAsFailed?: boolean;
}

export const ROWS: ProgressWords = { unit: 'rows' };

/** Plain progress lines this far apart when stderr is not a terminal. */
const PLAIN_EVERY_MS = 10_000;
/** How often plain progress looks for an outage starting or ending (it prints only then). */
const PLAIN_CHECK_MS = 500;

const count = (n: number) => n.toLocaleString('en-US');

/** Rows done, and the rows in the file estimated from the share read (exact once all of it is read). */
function doneOf(f: ProgressFacts): { done: number; total: number | undefined; share: number | undefined } {
  const share = f.size && f.size > 0 ? Math.min(1, f.bytesRead / f.size) : undefined;
  const total = share !== undefined && share > 0 && f.read > 0 ? Math.max(f.read, Math.round(f.read / share)) : undefined;
  return { done: f.finished + f.skipped, total, share };
}

/** "2,591 of 5,000 rows done" (`~5,000` while the total is an estimate). */
function rowsDone(f: ProgressFacts, words: ProgressWords): string {
  const { done, total, share } = doneOf(f);
  return total !== undefined ? `${count(done)} of ${share === 1 ? '' : '~'}${count(total)} ${words.unit} done` : `${count(done)} ${words.unit} done`;
}

/**
 * The counts, named and counted as the summary names them: rejected (or, for a job that calls the
 * server's refusals failures, failed) always; duplicates and failed when there are some.
 */
function countsOf(f: ProgressFacts, words: ProgressWords): string[] {
  const failed = f.failed + (words.refusedAsFailed ? f.rejected : 0);
  return [
    ...(words.refusedAsFailed ? [`${failed} failed`] : [`${f.rejected} rejected`]),
    ...(f.duplicates > 0 ? [`${f.duplicates} duplicates`] : []),
    ...(!words.refusedAsFailed && failed > 0 ? [`${failed} failed`] : []),
  ];
}

/** The line of an outage under way: "service unreachable for 12 s (connection refused), retrying in 4 s; 2,591 of 5,000 rows done". */
export function outageLine(f: ProgressFacts, now: number, words: ProgressWords = ROWS): string | undefined {
  const down = f.outage?.down;
  if (!down) return undefined;
  const retry = down.retryAt === undefined ? 'retrying' : down.retryAt > now ? `retrying in ${formatSecs(Math.ceil((down.retryAt - now) / 1000))}` : 'retrying now';
  return `service unreachable for ${formatSecs(Math.round((now - down.since) / 1000))} (${down.reason}), ${retry}; ${rowsDone(f, words)}`;
}

/** One progress line from the facts, `elapsedMs` after the job started. */
export function progressLine(f: ProgressFacts, elapsedMs: number, words: ProgressWords = ROWS): string {
  const secs = Math.max(0.001, elapsedMs / 1000);
  const rate = f.sent / secs;
  const { done, total, share } = doneOf(f);
  const left = total !== undefined ? Math.max(0, total - done) : undefined;
  const pace = f.pace !== undefined && Number.isFinite(f.pace) && f.pace > 0 ? f.pace : rate > 0 ? rate : undefined;
  const eta = left !== undefined && pace !== undefined ? left / pace : undefined;
  const unit = words.unit;
  const parts = [
    total !== undefined ? `${done} of ${share === 1 ? '' : '~'}${total} ${unit} (${Math.floor((done / Math.max(1, total)) * 100)} %)` : `${done} ${unit}`,
    ...countsOf(f, words),
    `${rate.toFixed(1)} ${unit}/s`,
  ];
  // At the end (the last line, kept on a terminal above the summary) nothing is left to wait for.
  if (left !== undefined && left > 0) parts.push(`${left} left`);
  if (eta !== undefined && left !== 0) parts.push(`ETA ${formatSecs(eta)}`);
  if (f.pace !== undefined && Number.isFinite(f.pace)) parts.push(`pace ${f.pace.toFixed(1)}/s`);
  parts.push(`${f.throttled} met 429`);
  return parts.join(', ');
}

/**
 * Progress until `stop`. On a terminal the line's last state stays above the summary, its counts
 * the summary's own; elsewhere the summary follows the last plain line.
 */
export async function startProgress(ctx: Context, facts: () => ProgressFacts, words: ProgressWords = ROWS): Promise<Progress> {
  const started = ctx.deps.now();
  if (!ctx.animated) {
    if (ctx.log.verbosity === 'quiet') return { stop: () => undefined };
    const plain = plainProgress(ctx.deps.now(), (line) => ctx.log.info(`progress: ${line}`), words);
    const timer = setInterval(() => plain(facts(), ctx.deps.now(), started), PLAIN_CHECK_MS);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }
  const { default: ora } = await import('ora');
  const spinner = ora({ stream: ctx.deps.io.stderr, discardStdin: false, text: 'reading…' }).start();
  const timer = setInterval(() => {
    const f = facts();
    const now = ctx.deps.now();
    spinner.text = outageLine(f, now, words) ?? progressLine(f, now - started, words);
  }, 250);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      spinner.stopAndPersist({ symbol: '', text: progressLine(facts(), ctx.deps.now() - started, words) });
    },
  };
}

/**
 * Plain progress, looked at every PLAIN_CHECK_MS: the progress line every PLAIN_EVERY_MS; while
 * the service is down, a line when the outage starts and then its line every PLAIN_EVERY_MS;
 * a line when it ends — not a line per retry.
 */
export function plainProgress(start: number, say: (line: string) => void, words: ProgressWords = ROWS): (f: ProgressFacts, now: number, started: number) => void {
  let lastSaid = start;
  let down = false;
  let ended = 0;
  return (f, now, started) => {
    const outage = f.outage;
    const line = outageLine(f, now, words);
    if (outage && outage.ended > ended) {
      ended = outage.ended;
      // Over (perhaps before a look saw it start): said once, with how long it lasted.
      if (!line) {
        say(`service reachable again (unreachable for ${formatSecs(Math.round((outage.lastMs ?? 0) / 1000))}); ${rowsDone(f, words)}`);
        down = false;
        lastSaid = now;
        return;
      }
    }
    if (line && (!down || now - lastSaid >= PLAIN_EVERY_MS)) {
      down = true;
      say(line);
      lastSaid = now;
    } else if (!line && now - lastSaid >= PLAIN_EVERY_MS) {
      say(progressLine(f, now - started, words));
      lastSaid = now;
    }
  };
}

function formatSecs(s: number): string {
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}
