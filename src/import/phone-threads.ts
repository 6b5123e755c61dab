/**
 * A dry run's phones parsed on worker threads (phone-worker.ts) while this thread reads and checks
 * the rows: libphonenumber-js is most of a dry run's CPU (BENCHMARKS.md §3), and a machine with
 * two cores can run it beside the CSV parser.
 *
 * The rows come out exactly as they went in, in order, each with its phone's result (encoded, see
 * `encodePhoneResult`) as `prepared`; the checks then run as they always do, so the verdicts,
 * rejects and summary are those of the in-thread path. Rows go to a worker in batches, at most
 * `depth` batches in flight: reading waits for the oldest batch, so memory stays bounded.
 *
 * The first `after` rows are checked in this thread while the worker starts (a small file never
 * pays for one), and rows keep flowing in this thread until it says it is ready. A worker that
 * fails or exits is replaced by this thread for its batches and for the rest of the file.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
import { encodePhoneResult, toE164 } from '../phone/e164.js';
import type { Row } from '../source/open.js';

export interface PhoneThreadOptions {
  /**
   * The phone a row is matched on first and the region it is read with (validate.ts
   * `preferredPhone`: its country column's, else the default); undefined when it has none.
   */
  phone: (cells: string[]) => { text: string; region: string | undefined } | undefined;
  /** Worker threads (0: none, every phone is parsed in this thread). */
  workers: number;
  /** Rows read before the workers start. */
  after?: number;
  batch?: number;
  /** Batches in flight at most. */
  depth?: number;
  /** Told how the phones were parsed, for --verbose. */
  debug?: (line: string) => void;
}

export type PreparedRow = Row & { prepared?: string };

/**
 * A dry run allocates as fast as the CPU goes, and V8 would size its young generation (up to
 * 32 MB) and then its old one to that rate: tens of megabytes of garbage in the peak RSS. From
 * here on the young generation keeps the size start-up gave it (a few MB) and the old one grows
 * by a quarter at a time (BENCHMARKS.md §3). Process-wide flags, worker threads included; a new
 * thread's start sets them back to the defaults, so they are set again once it runs. bin/callctl.js
 * sets the same before dist/ loads: V8's code cache must find the flags it was made under.
 */
const HEAP_FLAGS = '--semi-space-growth-factor=1 --heap-growing-percent=25';
let heapFlagsSet = false;

export function keepHeapSmall(): void {
  setFlagsFromString(HEAP_FLAGS);
  heapFlagsSet = true;
}

/** The worker's file: dist/import/phone-worker.js next to dist/chunks/, or the source under tsx. */
function workerFile(): URL | undefined {
  const candidates = import.meta.url.endsWith('.ts') ? ['./phone-worker.ts'] : ['../import/phone-worker.js', './phone-worker.js'];
  for (const c of candidates) {
    const url = new URL(c, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return undefined;
}

/** One worker: batches answered in the order sent. `results` settles to undefined if it failed. */
class PhoneWorker {
  private readonly worker: Worker;
  private readonly waiting: ((out: string[] | undefined) => void)[] = [];
  ready = false;
  failed = false;

  constructor(url: URL, onFail: (why: string) => void) {
    this.worker = new Worker(url, {
      // Its heap holds the phone metadata and a cache; small limits keep V8 from sizing it to
      // the allocation rate. If they ever were too small, the worker fails and this thread takes over.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
      stdout: false,
      stderr: false,
    });
    this.worker.unref();
    // A new thread's start sets V8's flags back to the defaults (see keepHeapSmall).
    this.worker.on('online', () => {
      if (heapFlagsSet) setFlagsFromString(HEAP_FLAGS);
    });
    this.worker.on('message', (m: string[] | 'ready') => {
      if (m === 'ready') {
        this.ready = true;
        if (heapFlagsSet) setFlagsFromString(HEAP_FLAGS);
      }
      else this.waiting.shift()?.(m);
    });
    const fail = (why: string) => {
      if (this.failed) return;
      this.failed = true;
      onFail(why);
      for (const w of this.waiting.splice(0)) w(undefined);
    };
    this.worker.on('error', (err) => fail(err.message));
    this.worker.on('exit', (code) => fail(`exited (${code})`));
  }

  /** `regions[i]` is the region of `texts[i]` ('' for none). */
  results(texts: string[], regions: string[]): Promise<string[] | undefined> {
    if (this.failed) return Promise.resolve(undefined);
    return new Promise((done) => {
      this.waiting.push(done);
      this.worker.postMessage({ texts, regions });
    });
  }

  stop(): void {
    this.failed = true;
    void this.worker.terminate();
  }
}

interface Batch {
  rows: PreparedRow[];
  texts: string[];
  regions: string[];
  /** Index in `rows` of each text. */
  at: number[];
  results: Promise<string[] | undefined>;
}

/** The rows of `source`, each with its phone's result once the workers run (see above). */
export async function* withPhonesOffThread(source: AsyncIterable<Row>, o: PhoneThreadOptions): AsyncGenerator<PreparedRow> {
  const after = o.after ?? 2000;
  const size = o.batch ?? 128;
  const depth = o.depth ?? 4 * Math.max(1, o.workers);
  const url = o.workers > 0 ? workerFile() : undefined;
  const it = source[Symbol.asyncIterator]();
  const workers: PhoneWorker[] = [];
  let read = 0;
  try {
    // In this thread until the workers are up (never, for a small file or without workers).
    for (;;) {
      if (workers.length > 0 && workers.every((w) => w.ready || w.failed)) break;
      const next = await it.next();
      if (next.done) return;
      read += 1;
      if (read === after && url) {
        for (let i = 0; i < o.workers; i++) workers.push(new PhoneWorker(url, (why) => o.debug?.(`phone worker ${i + 1}: ${why}; its phones are parsed in the main thread`)));
        o.debug?.(`phones parsed on ${o.workers} worker thread${o.workers === 1 ? '' : 's'} from row ${read + 1}`);
      }
      yield next.value;
    }

    const pending: Batch[] = [];
    let turn = 0;
    const send = (rows: PreparedRow[], texts: string[], regions: string[], at: number[]) => {
      const live = workers.filter((w) => !w.failed);
      const w = live[turn++ % Math.max(1, live.length)];
      pending.push({ rows, texts, regions, at, results: w ? w.results(texts, regions) : Promise.resolve(undefined) });
    };
    let rows: PreparedRow[] = [];
    let texts: string[] = [];
    let regions: string[] = [];
    let at: number[] = [];
    // A file that breaks (a quote never closed) stops with its error only after every row above
    // it: the rows read and not yet handed on go out first, as in the main thread.
    let failure: { error: unknown } | undefined;
    for (;;) {
      let next: IteratorResult<Row>;
      try {
        next = await it.next();
      } catch (error) {
        failure = { error };
        next = { done: true, value: undefined };
      }
      if (!next.done) {
        const row: PreparedRow = next.value;
        const phone = o.phone(row.cells);
        if (phone !== undefined) {
          at.push(rows.length);
          texts.push(phone.text);
          regions.push(phone.region ?? '');
        }
        rows.push(row);
        if (rows.length < size) continue;
      }
      if (rows.length > 0) send(rows, texts, regions, at);
      rows = [];
      texts = [];
      regions = [];
      at = [];
      while (pending.length > (next.done ? 0 : depth - 1)) {
        const batch = pending.shift() as Batch;
        const out = (await batch.results) ?? batch.texts.map((t, i) => encodePhoneResult(toE164(t, batch.regions[i] || undefined)));
        for (let i = 0; i < batch.at.length; i++) (batch.rows[batch.at[i] as number] as PreparedRow).prepared = out[i] as string;
        yield* batch.rows;
      }
      if (failure) throw failure.error;
      if (next.done) return;
    }
  } finally {
    for (const w of workers) w.stop();
    await it.return?.();
  }
}
