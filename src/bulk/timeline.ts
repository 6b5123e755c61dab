/**
 * How a job ran, second by second: requests the service admitted (any answer but 429), 429s, the
 * time the limiter stood paused after them, and the pace the limiter held — fed by the API
 * client's observer of answers (client.ts `observe`) and written into the journal as the job goes
 * (a `tl` line every couple of seconds). A day-long job stays small: after CAP buckets of one
 * width, the next buckets are twice as wide (1 s, then 2 s, 4 s…), so a day is a few thousand
 * buckets. `resample` turns the buckets of every run of a job into the columns of a chart.
 */
import type { AnswerSeen, PauseSeen } from '../http/answer.js';

/** A bucket as the journal keeps it: [t, width, admitted, 429s, paused ms, pace?] (t and width in seconds). */
export type BucketRow = number[];

/** A bucket as it is shown (`jobs show --json`'s timeline). */
export interface Bucket {
  /** Seconds from the job's first start to the bucket's start. */
  t: number;
  /** The bucket's width in seconds. */
  width: number;
  admitted: number;
  throttled: number;
  /** Milliseconds of the bucket the limiter stood paused after a 429. */
  paused: number;
  /** The limiter's pace (requests per second) at the bucket's end, when it had one. */
  pace?: number;
}

/** Buckets of one width before the width doubles. */
export const CAP = 900;

const round3 = (n: number) => Math.round(n * 1000) / 1000;

export class TimelineRecorder {
  private start: number;
  private width = 1000;
  private atWidth = 0;
  private admitted = 0;
  private throttled = 0;
  private pauses: Array<[number, number]> = [];
  private readonly closed: BucketRow[] = [];

  constructor(private readonly o: { jobStart: number; runStart: number; pace?: () => number | undefined; cap?: number }) {
    this.start = o.runStart;
  }

  /**
   * One answer (or failed attempt) seen by the client, or a pause of the limiter: a 429's
   * Retry-After, and every pause the limiter made (without one: its probe's interval, or its
   * back-off), are time paused.
   */
  seen(a: AnswerSeen | PauseSeen): void {
    this.advance(a.at);
    if ('pauseMs' in a) return this.pause(a.at, a.at + a.pauseMs);
    if (a.status === 429) {
      this.throttled += 1;
      if (a.retryAfterMs !== undefined) this.pause(a.at, a.at + a.retryAfterMs);
    } else if (a.status !== undefined) this.admitted += 1;
  }

  private pause(from: number, to: number): void {
    const last = this.pauses.at(-1);
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else this.pauses.push([from, to]);
  }

  /** The buckets ended by `now` (with `final`, the one under way too), each given out once. */
  take(now: number, final = false): BucketRow[] {
    this.advance(now);
    if (final && now > this.start) this.close(now);
    return this.closed.splice(0);
  }

  private advance(to: number): void {
    while (to >= this.start + this.width) this.close(this.start + this.width);
  }

  private close(end: number): void {
    let paused = 0;
    for (const [from, to] of this.pauses) paused += Math.max(0, Math.min(to, end) - Math.max(from, this.start));
    this.pauses = this.pauses.filter(([, to]) => to > end);
    const row: BucketRow = [round3((this.start - this.o.jobStart) / 1000), round3((end - this.start) / 1000), this.admitted, this.throttled, Math.round(paused)];
    const pace = this.o.pace?.();
    if (pace !== undefined && Number.isFinite(pace) && pace > 0) row.push(Math.round(pace * 100) / 100);
    this.closed.push(row);
    this.start = end;
    this.admitted = 0;
    this.throttled = 0;
    this.atWidth += 1;
    if (this.atWidth >= (this.o.cap ?? CAP)) {
      this.width *= 2;
      this.atWidth = 0;
    }
  }
}

/** A journal's bucket row as shown. */
export function bucketOf(row: BucketRow): Bucket | undefined {
  const [t, width, admitted, throttled, paused, pace] = row;
  if (![t, width, admitted, throttled, paused].every((n) => typeof n === 'number' && Number.isFinite(n)) || (width as number) <= 0) return undefined;
  const b: Bucket = { t: t as number, width: width as number, admitted: admitted as number, throttled: throttled as number, paused: paused as number };
  if (typeof pace === 'number' && Number.isFinite(pace)) b.pace = pace;
  return b;
}

/** One column of a chart. */
export interface Column {
  /** Requests admitted per second over the column. */
  rate: number;
  throttled: number;
  /** Share of the column spent paused (0–1). */
  paused: number;
  /** The highest pace the limiter held in the column, if it had one. */
  pace: number | undefined;
  /** A later run of the job (a resume) starts in this column. */
  resumed: boolean;
  /** Seconds of the job's running time (runs end to end) at the column's start. */
  from: number;
}

/**
 * The buckets of every run, end to end (the time between an interruption and its resume left
 * out), in `columns` columns of equal running time; a bucket wider than a column is spread
 * evenly over the columns it covers (a 429 goes whole to the column where its bucket starts).
 */
export function resample(buckets: Bucket[], columns: number): { columns: Column[]; seconds: number } {
  const sorted = [...buckets].sort((a, b) => a.t - b.t);
  const total = sorted.reduce((s, b) => s + b.width, 0);
  if (total <= 0 || columns <= 0) return { columns: [], seconds: 0 };
  const n = Math.max(1, Math.floor(columns));
  const span = total / n;
  const out: Column[] = Array.from({ length: n }, (_, i) => ({ rate: 0, throttled: 0, paused: 0, pace: undefined, resumed: false, from: round3(i * span) }));
  let at = 0;
  let prevEnd: number | undefined;
  for (const b of sorted) {
    // A gap of more than a second between buckets is the time between two runs.
    if (prevEnd !== undefined && b.t - prevEnd > 1) out[Math.min(n - 1, Math.floor(at / span))]!.resumed = true;
    prevEnd = b.t + b.width;
    const from = at;
    const to = at + b.width;
    for (let i = Math.floor(from / span); i < n && i * span < to; i++) {
      const overlap = Math.min(to, (i + 1) * span) - Math.max(from, i * span);
      if (overlap <= 0) continue;
      const share = overlap / b.width;
      const col = out[i]!;
      col.rate += (b.admitted * share) / span;
      col.paused += (b.paused * share) / 1000 / span;
      if (b.pace !== undefined) col.pace = Math.max(col.pace ?? 0, b.pace);
    }
    // A 429 is an event: it goes whole into the column where its bucket starts.
    if (b.throttled > 0) out[Math.min(n - 1, Math.floor(from / span))]!.throttled += b.throttled;
    at = to;
  }
  for (const c of out) c.paused = Math.min(1, c.paused);
  return { columns: out, seconds: round3(total) };
}

/** What recordTimeline needs of a journal and of the API client (types only: no import of either). */
interface TimelineSink {
  readonly jobStartedAt: number;
  timeline(rows: BucketRow[]): void;
  onClose(hook: () => { timeline: BucketRow[]; limit: number | undefined }): void;
}
export interface AnswerSource {
  observe(fn: (a: AnswerSeen | PauseSeen) => void): () => void;
  stats(): { pace: number; limit?: unknown };
}

/** Buckets written this often while a job runs (a kill -9 loses at most these seconds of the picture). */
const WRITE_EVERY_MS = 2000;

/**
 * Records a job's timeline into its journal from the client's answers: buckets every couple of
 * seconds, the last ones and the limit learnt (the limiter's pace) at the close.
 */
export function recordTimeline(journal: TimelineSink, client: AnswerSource, now: () => number): void {
  // The pace is the limit learnt only once a limit is known (headers, memory, or learnt from 429s):
  // before, it is the limiter's first guess, which no chart or `jobs show` calls learnt.
  const learnt = () => {
    const s = client.stats();
    return s.limit !== undefined ? s.pace : undefined;
  };
  const rec = new TimelineRecorder({ jobStart: journal.jobStartedAt, runStart: now(), pace: learnt });
  const off = client.observe((a) => rec.seen(a));
  const timer = setInterval(() => journal.timeline(rec.take(now())), WRITE_EVERY_MS);
  timer.unref();
  journal.onClose(() => {
    clearInterval(timer);
    off();
    const pace = learnt();
    return { timeline: rec.take(now(), true), limit: pace !== undefined && Number.isFinite(pace) && pace > 0 ? Math.round(pace * 100) / 100 : undefined };
  });
}
