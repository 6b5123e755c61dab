/**
 * One rate-limit budget for every callctl process using the same key and base URL, on Redis
 * (docs/pacing.md, "One budget, several processes"):
 * - every start is a slot booked in Redis, one shared gap after the last, never inside a pause —
 *   so three imports at once pace together, and one meeting a 429 stops them all;
 * - the gap is one pace learnt from every process's answers (shared-pace.ts): each process
 *   publishes its answers, the leader (whoever holds a lock) learns from all of them and writes
 *   the gap, and a new leader takes over from it when the last one ends or dies.
 * The slots are booked ahead, in Redis's own time, so the pace loses nothing to late timers and
 * round trips, and clocks of different machines need not agree. bottleneck's clustering mode did
 * this before: its spacing counts from when each start is registered, so every timer's lateness
 * and round trip was lost (a shared pace of 57/s ran at 85 % of it), and its keys vanishing
 * (a Redis restart without persistence, bottleneck #205/#219) failed every call.
 * On any Redis error the process paces alone, from the shared pace, after one warning; no request
 * is dropped or run twice (a request never waits on Redis to be sent). Loaded only with a URL.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { RuntimeError, UsageError } from '../errors.js';
import type { Logger } from '../output/log.js';
import { decodeAnswer, encodeAnswer, SharedLearner, type SharedAnswer } from './shared-pace.js';

/** How often answers are published and the shared pace is read (or, by the leader, learnt). */
const TICK_MS = 50;
/** The leader's lock lapses this long after its last renewal (a killed leader is replaced). */
const LOCK_MS = 3_000;
/** A follower tries to take the lead this often. */
const TRY_LEAD_MS = 500;
/** A shared pace older than this is stale: nobody is learning it any more. */
const STALE_MS = 30_000;
/** Answers waiting for a leader are kept up to this many. */
const MAX_WAITING_ANSWERS = 20_000;

/**
 * Books the next start: `{pausedMs, startInMs}`. Inside a pause nothing is booked; otherwise the
 * slot is one gap after the last (or now, if that has passed) and the next one gap later. Times are
 * Redis's own (TIME), so every process on every machine books on one clock.
 */
const BOOK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local s = redis.call('HMGET', KEYS[1], 'pausedUntil', 'gap', 'next')
local paused = tonumber(s[1]) or 0
if now < paused then return {paused - now, 0} end
local gap = tonumber(s[2]) or tonumber(ARGV[1])
local slot = math.max(tonumber(s[3]) or 0, now)
redis.call('HSET', KEYS[1], 'next', tostring(slot + gap))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {0, slot - now}`;
/** Pauses every process for ARGV[1] ms from now: no slot is booked before the pause ends. */
const PAUSE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local s = redis.call('HMGET', KEYS[1], 'pausedUntil', 'next')
local untilMs = math.max(tonumber(s[1]) or 0, now + tonumber(ARGV[1]))
redis.call('HSET', KEYS[1], 'pausedUntil', tostring(untilMs), 'next', tostring(math.max(tonumber(s[2]) or 0, untilMs)))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return untilMs - now`;
/** How long every process is still paused (ms; 0 for none). */
const PAUSED_FOR = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return math.max(0, (tonumber(redis.call('HGET', KEYS[1], 'pausedUntil')) or 0) - now)`;

const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/** What the shared budget needs of the limiter. */
export interface SharedHooks {
  now(): number;
  /** Whether this process has requests waiting for the pace. */
  busy(): boolean;
  /** The spacing between request starts, for all processes together, changed. */
  follow(gapMs: number): void;
  /** Redis failed: the limiter goes on alone. */
  lost(err: unknown): void;
  /** --rate of this process. */
  ceiling?: number | undefined;
}

/** The shared budget: booked starts, pauses, and the one pace. */
export class SharedBudget {
  private readonly keys: { leader: string; answers: string; state: string };
  private readonly token = randomUUID();
  private outbox: string[] = [];
  private learner: SharedLearner | undefined;
  private hooks: SharedHooks | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private closed = false;
  private lastTry = -Infinity;
  private gapApplied: number | undefined;

  constructor(
    private readonly redis: RedisClient,
    id: string,
  ) {
    this.keys = { leader: `${id}:pace:leader`, answers: `${id}:pace:answers`, state: `${id}:pace:state` };
  }

  /**
   * Books this process's next start. `ownGapMs`: the spacing to use while no process has written
   * a shared one yet (this process's own pace).
   */
  async book(ownGapMs: number): Promise<{ pausedMs: number; startInMs: number }> {
    const [pausedMs, startInMs] = (await this.redis.eval(BOOK, 1, this.keys.state, String(Math.max(0, ownGapMs)), String(STALE_MS))) as [number, number];
    return { pausedMs: Number(pausedMs), startInMs: Number(startInMs) };
  }

  /** How long every process is still paused (ms). */
  async pausedFor(): Promise<number> {
    return Number(await this.redis.eval(PAUSED_FOR, 1, this.keys.state));
  }

  /** A 429 here: every process pauses for `ms`. */
  pause(ms: number): void {
    if (this.closed) return;
    this.redis.eval(PAUSE, 1, this.keys.state, String(Math.ceil(ms)), String(STALE_MS)).catch((err: unknown) => {
      if (!this.closed) this.hooks?.lost(err);
    });
  }

  /** Whether close() was called: what fails after it is the closed connection, not Redis. */
  get isClosed(): boolean {
    return this.closed;
  }

  start(hooks: SharedHooks): void {
    this.hooks = hooks;
    this.timer = setInterval(() => void this.tick(), TICK_MS);
    this.timer.unref();
  }

  /** One of this process's answers, published at the next tick. */
  record(answer: SharedAnswer): void {
    if (!this.closed) this.outbox.push(encodeAnswer(answer));
  }

  private async tick(): Promise<void> {
    const hooks = this.hooks;
    if (this.ticking || this.closed || !hooks) return;
    this.ticking = true;
    try {
      const k = this.keys;
      const now = hooks.now();
      if (this.outbox.length > 0) {
        const batch = this.outbox;
        this.outbox = [];
        await this.redis.multi().rpush(k.answers, ...batch).ltrim(k.answers, -MAX_WAITING_ANSWERS, -1).pexpire(k.answers, STALE_MS).exec();
      }
      if (!this.learner && now - this.lastTry >= TRY_LEAD_MS) {
        this.lastTry = now;
        if ((await this.redis.set(k.leader, this.token, 'PX', LOCK_MS, 'NX')) === 'OK') {
          this.learner = new SharedLearner({ ceiling: hooks.ceiling, seedRate: await this.freshRate(now) });
        }
      }
      if (this.learner && Number(await this.redis.eval(RENEW, 1, k.leader, this.token, String(LOCK_MS))) !== 1) this.learner = undefined;
      if (this.learner) {
        const res = await this.redis.multi().lrange(k.answers, 0, -1).del(k.answers).exec();
        const lines = (res?.[0]?.[1] ?? []) as string[];
        const answers = lines.map(decodeAnswer).filter((a): a is SharedAnswer => a !== undefined);
        this.learner.feed(answers);
        if (hooks.busy() || answers.length > 0) this.learner.busy(now);
        else this.learner.idle();
        const pace = this.learner.pace;
        if (pace !== undefined) {
          await this.redis.multi().hset(k.state, 'rate', String(pace), 'gap', String(1000 / pace), 'at', String(now)).pexpire(k.state, STALE_MS).exec();
          this.apply(1000 / pace);
        }
      } else {
        const rate = await this.freshRate(now);
        if (rate !== undefined) this.apply(1000 / rate);
      }
    } catch (err) {
      // A tick still waiting on Redis when the budget closed fails with the closed connection.
      if (!this.closed) hooks.lost(err);
    } finally {
      this.ticking = false;
    }
  }

  /** The shared pace, if one was written lately. */
  private async freshRate(now: number): Promise<number | undefined> {
    const [rate, at] = await this.redis.hmget(this.keys.state, 'rate', 'at');
    const r = Number(rate);
    return Number.isFinite(r) && r > 0 && now - Number(at) < STALE_MS ? r : undefined;
  }

  private apply(gapMs: number): void {
    if (this.gapApplied !== undefined && aboutEqual(gapMs, this.gapApplied)) return;
    this.gapApplied = gapMs;
    this.hooks?.follow(gapMs);
  }

  /** Stops publishing; a leader hands the lead on (the next takes up the pace it wrote). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.learner) await this.redis.eval(RELEASE, 1, this.keys.leader, this.token).catch(() => undefined);
    this.redis.disconnect();
  }
}

/** Within 2 %: not worth telling the gate. */
function aboutEqual(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 0.02 * Math.max(Math.abs(a), Math.abs(b));
}

/** The budget's name in Redis: a hash of base URL and key, so the key itself never reaches Redis. */
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
export async function connectSharedLimiter(o: SharedLimiterOptions): Promise<SharedBudget | undefined> {
  // ioredis is CommonJS: its class is the module itself, which its ESM types call `Redis`.
  const ioredis = await import('ioredis');
  const Redis = (ioredis as unknown as { default: typeof ioredis.Redis }).default;
  let url: URL;
  try {
    url = new URL(o.redisUrl);
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error('not a redis URL');
  } catch {
    // A malformed value is the operator's argument (exit 2, docs/cli.md); Redis away is not (below).
    throw new UsageError(`--redis-url ${o.redisUrl} is not a redis:// URL`, 'e.g. redis://127.0.0.1:6379', 'bad_redis_url');
  }
  const clientOptions: RedisOptions = {
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
  };
  const redis = new Redis(clientOptions);
  redis.on('error', () => undefined); // reported through the failing calls
  let timer: NodeJS.Timeout | undefined;
  try {
    // ioredis gives up at once (no retry strategy); the timer both bounds the wait and keeps the
    // process alive for it.
    await Promise.race([
      new Promise((ok) => (redis.status === 'ready' ? ok(undefined) : redis.once('ready', ok))),
      new Promise((_, fail) => redis.once('error', (err: Error) => fail(err))),
      new Promise((_, fail) => redis.once('end', () => fail(new Error('connection closed')))),
      new Promise((_, fail) => (timer = setTimeout(() => fail(new Error('no answer within 2 s')), 2_000))),
    ]);
    return new SharedBudget(redis, o.id);
  } catch (err) {
    redis.disconnect();
    const reason = (err as Error).message;
    if (o.required) throw new RuntimeError('redis_unreachable', `Redis at ${where(o.redisUrl)} is unreachable (${reason})`, 'start it, fix --redis-url, or drop --require-redis to pace this process alone');
    o.log.warn(`Redis at ${where(o.redisUrl)} is unreachable (${reason}); pacing this process alone`);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
