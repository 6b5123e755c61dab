/**
 * One rate-limit budget for every callctl process using the same key and base URL, on Redis:
 * bottleneck's clustering mode holds the spacing between request starts and the 429 pause in
 * Redis, so three imports at once pace together, and one meeting a 429 stops them all.
 *
 * Tried against Debian's redis-server 7.0.15 before building on it (see README): clustering
 * works; NOSCRIPT after `SCRIPT FLUSH` is handled by ioredis; but when the keys vanish (a Redis
 * restart without persistence, FLUSHALL) every call fails with `ERR SETTINGS_KEY_NOT_FOUND`
 * (bottleneck #205/#219). The limiter therefore falls back to pacing this process alone on any
 * Redis error — no request is dropped or run twice — after one warning. Loaded only with a URL.
 */
import { createHash } from 'node:crypto';
import Bottleneck from 'bottleneck';
import { RuntimeError } from '../errors.js';
import type { Logger } from '../output/log.js';

/** The cluster's name: a hash of base URL and key, so the key itself never reaches Redis. */
export function sharedLimiterId(baseUrl: string, apiKey: string): string {
  return `callctl:${createHash('sha256').update(`${baseUrl}\u0000${apiKey}`).digest('hex').slice(0, 24)}`;
}

/** Where Redis is, for messages (no password). */
function where(url: string): string {
  try {
    const u = new URL(url);
    return u.host || url;
  } catch {
    return url;
  }
}

export interface SharedLimiterOptions {
  redisUrl: string;
  id: string;
  log: Logger;
  /** --require-redis: no Redis is exit 1 instead of a warning. */
  required: boolean;
}

/** Connects the shared limiter, or returns undefined (after a warning) when Redis is unreachable. */
export async function connectSharedLimiter(o: SharedLimiterOptions): Promise<Bottleneck | undefined> {
  const { default: Redis } = await import('ioredis');
  let url: URL;
  try {
    url = new URL(o.redisUrl);
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error('not a redis URL');
  } catch {
    throw new RuntimeError('bad_redis_url', `--redis-url ${o.redisUrl} is not a redis:// URL`, 'e.g. redis://127.0.0.1:6379');
  }
  const cluster = new Bottleneck({
    id: o.id,
    datastore: 'ioredis',
    clearDatastore: false,
    Redis: Redis as unknown as Bottleneck.ConstructorOptions['Redis'],
    // Keys of an idle limiter expire after a day; a running import refreshes them.
    timeout: 24 * 60 * 60 * 1000,
    clientOptions: {
      host: url.hostname,
      port: Number(url.port || 6379),
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      ...(url.pathname.length > 1 ? { db: Number(url.pathname.slice(1)) } : {}),
      ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
      // Fail fast instead of queueing commands while Redis is away: the fallback takes over.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1_000,
      retryStrategy: () => null,
    },
  } as Bottleneck.ConstructorOptions);
  cluster.on('error', () => undefined); // reported through the failing calls, once
  let timer: NodeJS.Timeout | undefined;
  try {
    // ioredis gives up at once (no retry strategy) but bottleneck's ready() may never settle then:
    // the timer both bounds the wait and keeps the process alive for it.
    await Promise.race([
      cluster.ready(),
      new Promise((_, fail) => cluster.on('error', (err: Error) => fail(err))),
      new Promise((_, fail) => (timer = setTimeout(() => fail(new Error('no answer within 2 s')), 2_000))),
    ]);
    return cluster;
  } catch (err) {
    void cluster.disconnect(false).catch(() => undefined);
    const reason = (err as Error).message;
    if (o.required) throw new RuntimeError('redis_unreachable', `Redis at ${where(o.redisUrl)} is unreachable (${reason})`, 'start it, fix --redis-url, or drop --require-redis to pace this process alone');
    o.log.warn(`Redis at ${where(o.redisUrl)} is unreachable (${reason}); pacing this process alone`);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
