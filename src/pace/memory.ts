/**
 * The limit remembered between runs (docs/pacing.md, "The memory"): one small JSON file per base
 * URL and key in the config folder, named by a fingerprint of the two (a hash: the key itself is
 * never written). A job starts from it and saves what it learnt when it ends; a file that cannot
 * be read, or was written by another version, is ignored with one warning.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Limit } from './types.js';

/** The format of the file: a file of another version is ignored (and replaced by the next save). */
export const MEMORY_VERSION = 1;

/** The fingerprint of a base URL and key: the file's name, and the shared budget's name in Redis. */
export function fingerprint(baseUrl: string, apiKey: string): string {
  return createHash('sha256').update(`${baseUrl}\u0000${apiKey}`).digest('hex').slice(0, 24);
}

/** The shared budget's name in Redis: the same fingerprint, so the key itself never reaches Redis. */
export function sharedLimiterId(baseUrl: string, apiKey: string): string {
  return `callctl:${fingerprint(baseUrl, apiKey)}`;
}

export interface Memory {
  /** The file (for messages). */
  readonly path: string;
  /** The limit remembered, or undefined (none, or a file ignored with its warning). */
  load(): Limit | undefined;
  /** Keeps `limit` for the next run; a failure to write is told to `debug` only. */
  save(limit: Limit): void;
  /** Drops what is remembered; false when nothing was. */
  forget(): boolean;
}

const SHAPES = new Set(['bucket', 'window', 'concurrency', 'rate']);
const FORMS = new Set(['draft6', 'draft7', 'draft8', 'x']);

/**
 * What a remembered limit may hold and still be a service's (docs/pacing.md, "The memory"): a file
 * edited by hand or damaged — a rate of 1e-300 requests/s is a pause of 10^303 ms before the first
 * request — is ignored with a warning rather than obeyed.
 */
const PLAUSIBLE: Record<'rate' | 'burst' | 'windowMs' | 'quota' | 'maxInFlight' | 'learntAt' | 'endedAt', [number, number]> = {
  /** From one request a day to 100,000 a second. */
  rate: [1 / 86_400, 100_000],
  burst: [1, 1_000_000],
  /** From a millisecond to a month. */
  windowMs: [1, 31 * 86_400_000],
  quota: [1, 100_000_000],
  maxInFlight: [1, 10_000],
  /** Times between 2000 and 2100. */
  learntAt: [946_684_800_000, 4_102_444_800_000],
  endedAt: [946_684_800_000, 4_102_444_800_000],
};

/** A limit read back from a file; a string says which field is outside plausible bounds; undefined when a field is not what save() writes. */
function parseLimit(v: unknown): Limit | string | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : undefined);
  const rate = num(o.rate);
  if (!SHAPES.has(o.shape as string) || rate === undefined || typeof o.learntAt !== 'number' || (o.source !== 'headers' && o.source !== 'learnt')) return undefined;
  const limit: Limit = { shape: o.shape as Limit['shape'], rate, source: o.source, learntAt: o.learntAt, headers: FORMS.has(o.headers as string) ? (o.headers as Limit['headers']) : null };
  if (o.unconfirmed === true) limit.unconfirmed = true;
  if (o.guess === true) limit.guess = true;
  if (o.silent === true) limit.silent = true;
  for (const k of ['burst', 'windowMs', 'quota', 'maxInFlight', 'endedAt'] as const) {
    const x = num(o[k]);
    if (x !== undefined) limit[k] = x;
  }
  for (const [k, [low, high]] of Object.entries(PLAUSIBLE) as Array<[keyof typeof PLAUSIBLE, [number, number]]>) {
    const x = limit[k];
    if (x !== undefined && !(x >= low && x <= high)) return `${k} ${x}`;
  }
  return limit;
}

export function openMemory(o: { dir: string; baseUrl: string; apiKey: string; warn: (line: string) => void; debug: (line: string) => void }): Memory {
  const path = join(o.dir, 'limits', `${fingerprint(o.baseUrl, o.apiKey)}.json`);
  return {
    path,
    load() {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') o.warn(`cannot read the remembered rate limit in ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'}); starting without it`);
        return undefined;
      }
      let data: { version?: unknown; baseUrl?: unknown; limit?: unknown };
      try {
        data = JSON.parse(text) as typeof data;
      } catch {
        o.warn(`the remembered rate limit in ${path} is not valid JSON; starting without it (the next job replaces it)`);
        return undefined;
      }
      const limit = data?.version === MEMORY_VERSION ? parseLimit(data.limit) : undefined;
      if (typeof limit === 'string') {
        o.warn(`the remembered rate limit in ${path} is outside plausible bounds (${limit}); starting without it (the next job replaces it)`);
        return undefined;
      }
      if (limit === undefined || data.baseUrl !== o.baseUrl) {
        o.warn(`the remembered rate limit in ${path} is from another version of callctl or damaged; starting without it (the next job replaces it)`);
        return undefined;
      }
      o.debug(`· starting from the rate limit ${limit.source === 'headers' ? 'read' : 'learnt'} on ${new Date(limit.learntAt).toISOString().slice(0, 10)}: ${limit.shape}, ${Math.round(limit.rate * 10) / 10} requests/s (${path})`);
      return limit;
    },
    save(limit) {
      const tmp = `${path}.${process.pid}.tmp`;
      try {
        mkdirSync(join(o.dir, 'limits'), { recursive: true, mode: 0o700 });
        writeFileSync(tmp, `${JSON.stringify({ version: MEMORY_VERSION, baseUrl: o.baseUrl, limit })}\n`, { mode: 0o600 });
        renameSync(tmp, path);
      } catch (err) {
        rmSync(tmp, { force: true });
        o.debug(`could not remember the rate limit in ${path}: ${(err as Error).message}`);
      }
    },
    forget() {
      try {
        rmSync(path);
        return true;
      } catch {
        return false;
      }
    },
  };
}
