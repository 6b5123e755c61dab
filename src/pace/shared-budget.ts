/**
 * One rate-limit budget for every callctl process using the same key and base URL, on Redis
 * (docs/pacing.md, rules S1–S4): the leader, whoever holds a lock, runs the one gate
 * (shared-gate.ts). A process asks for each start with a want (a line in the inbox list) and waits
 * for a grant on its own list; every answer goes back through the inbox under its grant's number.
 * A new leader takes up the pace the last one wrote, and every process asks again for what it
 * waits for; what was granted to a process whose alive mark lapsed is given up. On any Redis error
 * the process paces alone, from the shared pace, after one warning; no request is dropped or run
 * twice. (Not bottleneck's clustering: its keys vanishing with a Redis restart failed every call,
 * and a shared spacing cannot carry a window's log or a cap.) Loaded only with a URL.
 */
import { randomUUID } from 'node:crypto';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { MAX_TIMER_MS } from '../deps.js';
import { RuntimeError, UsageError } from '../errors.js';
import type { Logger } from '../output/log.js';
import type { Limit } from './types.js';
import { CentralGate, decodeAnswer, encodeAnswer, type SharedAnswer } from './shared-gate.js';
import * as tune from './tuning.js';

const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/** What the shared budget needs of the limiter. */
export interface SharedHooks {
  now(): number;
  /** The pace of every process together (ms between starts): where this process goes on alone from. */
  follow(gapMs: number): void;
  /** Redis failed: the limiter goes on alone. */
  lost(err: unknown): void;
  /** --rate of this process (the gate's ceiling while this process leads). */
  ceiling?: number | undefined;
  /** The limit remembered from an earlier run: a first leader starts from it. */
  remembered?: Limit | undefined;
  /** Told when this process takes the lead (for --verbose). */
  leading?: () => void;
}

interface Waiter {
  resolve(grant: string): void;
  reject(err: unknown): void;
  /** The leader when its want was sent: a new one never saw it, so it is sent again. */
  leader: string | null;
}

/** The shared budget: wants, grants and answers, and — while this process leads — the one gate. */
export class SharedBudget {
  private readonly prefix: string;
  private readonly keys: { leader: string; inbox: string; state: string };
  /** This process's name in the budget (its grants' list). */
  private readonly proc = randomUUID().slice(0, 12);
  private readonly grantsKey: string;
  private hooks: SharedHooks | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private closed = false;
  /** Closing: a leader hands the lead on once what it granted is answered (close). */
  private closing = false;
  /** A connection of its own for the blocking pop of this process's grants. */
  private grantConn: RedisClient | undefined;
  /** Every connection opened beside the first: each is closed with the budget. */
  private readonly conns = new Set<RedisClient>();
  private waiters: Waiter[] = [];
  /** Grants that came with nobody waiting (a want sent twice around a change of leader). */
  private spare: string[] = [];
  /** Grants handed to a request and not yet answered, and the follow-on granted in the place of each. */
  private readonly held = new Set<string>();
  private readonly follows = new Map<string, string>();
  /** When this process last marked itself alive. */
  private markedAt = 0;
  /** The leader as last seen. */
  private leaderSeen: string | null = null;
  /** While this process leads: its lock's token, its gate, and the connection it pops the inbox on. */
  private lead: { token: string; gate: CentralGate; conn: RedisClient; timer?: NodeJS.Timeout } | undefined;

  constructor(
    private readonly redis: RedisClient,
    id: string,
  ) {
    this.prefix = `${id}:pace:`;
    this.keys = { leader: `${this.prefix}leader`, inbox: `${this.prefix}inbox`, state: `${this.prefix}state` };
    this.grantsKey = `${this.prefix}grants:${this.proc}`;
  }

  /** Whether close() was called: what fails after it is the closed connection, not Redis. */
  get isClosed(): boolean {
    return this.closed || this.closing;
  }

  start(hooks: SharedHooks): void {
    this.hooks = hooks;
    // Marked alive before any want: commands on one connection run in order.
    this.markedAt = hooks.now();
    this.redis.set(this.aliveKey(this.proc), '1', 'PX', tune.LOCK_MS).catch((err: unknown) => this.fail(err));
    this.grantConn = this.connection();
    void this.readGrants(this.grantConn);
    this.timer = setInterval(() => this.tick(), tune.TICK_MS);
    this.timer.unref();
    this.tick();
  }

  /** Waits for a start granted by the leader's gate; rejects when Redis fails or the budget closes. */
  async acquire(): Promise<string> {
    const spare = this.spare.shift();
    if (spare !== undefined) {
      this.held.add(spare);
      return spare;
    }
    if (this.isClosed) throw new Error('the shared budget is closed');
    const granted = new Promise<string>((resolve, reject) => this.waiters.push({ resolve, reject, leader: this.leaderSeen }));
    // Refused while its want is still on its way, it must not count as unhandled meanwhile (a crash
    // on a hung Redis): the caller gets the refusal from the return below.
    granted.catch(() => undefined);
    try {
      await this.redis.rpush(this.keys.inbox, `w|${this.proc}`);
    } catch (err) {
      this.fail(err);
      throw err;
    }
    return granted;
  }

  /**
   * The answer to a granted start (status 0: it failed or was never sent), for the leader's gate.
   * A follow-on granted in its place goes at once to the next request waiting, if this one was
   * admitted, and the answer says so (`@+`): otherwise the leader puts its want back in line.
   */
  record(grant: string, answer: SharedAnswer): void {
    this.held.delete(grant);
    const next = this.follows.get(grant);
    this.follows.delete(grant);
    if (this.closed) return;
    let followed = false;
    if (next !== undefined && answer.status !== 429 && answer.status !== 0) {
      const waiter = this.waiters.shift();
      if (waiter) {
        followed = true;
        this.held.add(next);
        waiter.resolve(next);
      }
    }
    this.redis.rpush(this.keys.inbox, `a|${grant}${followed ? '@+' : ''}|${encodeAnswer(answer)}`).catch((err: unknown) => this.fail(err));
  }

  private async readGrants(conn: RedisClient): Promise<void> {
    try {
      await ready(conn);
    } catch (err) {
      return this.fail(err);
    }
    while (!this.closed) {
      try {
        const got = await conn.blpop(this.grantsKey, tune.POP_S);
        if (!got) continue;
        const line = got[1];
        // `f|grant|after`: a follow-on, for as long as `after` is unanswered (a late one is void:
        // the answer went without it, and the leader put its want back in line). `v|grant`: one
        // taken back.
        if (line.startsWith('f|')) {
          const [, grant, after] = line.split('|') as [string, string, string];
          if (this.held.has(after)) this.follows.set(after, grant);
          continue;
        }
        if (line.startsWith('v|')) {
          for (const [after, grant] of this.follows) if (grant === line.slice(2)) this.follows.delete(after);
          continue;
        }
        const waiter = this.waiters.shift();
        if (waiter) {
          this.held.add(line);
          waiter.resolve(line);
        } else this.spare.push(line);
      } catch (err) {
        return this.fail(err);
      }
    }
  }

  private fail(err: unknown): void {
    if (this.closed) return;
    for (const w of this.waiters.splice(0)) w.reject(err);
    this.hooks?.lost(err);
  }

  /** One tick at a time; close() waits for the one under way (see close). */
  private tick(): void {
    if (this.ticking || this.closed || !this.hooks) return;
    this.ticking = true;
    this.tickRun = this.tickOnce(this.hooks).finally(() => (this.ticking = false));
  }
  private tickRun: Promise<void> | undefined;

  private async tickOnce(hooks: SharedHooks): Promise<void> {
    try {
      const k = this.keys;
      const now = hooks.now();
      if (this.lead && Number(await this.redis.eval(RENEW, 1, k.leader, this.lead.token, String(tune.LOCK_MS))) !== 1) this.endLead();
      // (Closing, no lead is taken up: it would only have to be handed on again.)
      if (!this.lead && !this.closing) {
        // A new token for each lead taken: a process that lost the lead and took it again is a new
        // leader to the others, which send again what they wait for.
        const token = randomUUID();
        if ((await this.redis.set(k.leader, token, 'PX', tune.LOCK_MS, 'NX')) === 'OK') {
          hooks.leading?.();
          this.takeLead(token, await this.freshState(now));
        }
      }
      // Alive: a leader gives up at once what it granted to a process whose mark has lapsed. A mark
      // that lapsed here (the event loop held for seconds) may have cost this process its wants:
      // it asks again for all it waits for (a grant that comes twice is kept for the next request).
      const lapsed = now - this.markedAt >= tune.LOCK_MS;
      await this.redis.set(this.aliveKey(this.proc), '1', 'PX', tune.LOCK_MS);
      this.markedAt = now;
      if (lapsed) {
        // The leader has dropped this process: what it granted ahead counts no more.
        this.follows.clear();
        if (this.waiters.length > 0) await this.redis.rpush(k.inbox, ...this.waiters.map(() => `w|${this.proc}`));
      }
      const leader = this.lead ? this.lead.token : await this.redis.get(k.leader);
      if (leader !== null && leader !== this.leaderSeen) {
        this.leaderSeen = leader;
        // What the last leader granted ahead, the new one never counted: not to be sent.
        for (const [after, grant] of this.follows) if (!grant.endsWith(`@${leader.slice(0, 8)}`)) this.follows.delete(after);
        // Wants the last leader took and did not grant went with it: ask the new one again.
        const again = this.waiters.filter((w) => w.leader !== null && w.leader !== leader);
        for (const w of this.waiters) w.leader = leader;
        if (again.length > 0) await this.redis.rpush(k.inbox, ...again.map(() => `w|${this.proc}`));
      }
      const lead = this.lead;
      if (lead) {
        const gate = lead.gate;
        const procs = gate.procs;
        if (procs.length > 0) {
          const alive = await this.redis.mget(...procs.map((p) => this.aliveKey(p)));
          const gone = procs.filter((_, i) => alive[i] === null);
          for (const p of gone) gate.drop(p, now);
          // Places they held are free: the others' wants need not wait for the gate's next moment.
          if (gone.length > 0) await this.pump(lead);
        }
        const pace = gate.pace;
        if (pace !== undefined) {
          // (The cap too: a new leader would otherwise meet a 429 to find it again.)
          const window = gate.gate.window;
          await this.redis.multi().hset(k.state, 'rate', String(pace), 'at', String(now), 'window', Number.isFinite(window) ? String(window) : '').pexpire(k.state, tune.STALE_MS).exec();
          hooks.follow(1000 / pace);
        }
      } else {
        const rate = (await this.freshState(now))?.rate;
        if (rate !== undefined) hooks.follow(1000 / rate);
      }
    } catch (err) {
      this.fail(err);
    }
  }

  private takeLead(token: string, seed: { rate: number; window?: number } | undefined): void {
    // Closed while the lock was being taken: hand it back (a connection opened now would hold the
    // process open).
    if (this.isClosed) {
      this.redis.eval(RELEASE, 1, this.keys.leader, token).catch(() => undefined);
      return;
    }
    const conn = this.connection();
    const now = this.hooks?.now() ?? Date.now();
    const gate = new CentralGate({ ceiling: this.hooks?.ceiling, seedRate: seed?.rate, seedWindow: seed?.window, now });
    // No leader before it wrote a pace lately: the first starts from the limit remembered.
    if (seed === undefined && this.hooks?.remembered !== undefined) gate.gate.seed(this.hooks.remembered, now);
    this.lead = { token, gate, conn };
    void this.readInbox(this.lead);
  }

  private endLead(): void {
    const lead = this.lead;
    if (!lead) return;
    this.lead = undefined;
    clearTimeout(lead.timer);
    lead.conn.disconnect();
  }

  /** The leader: every want and answer into the one gate as it comes, and the grants out. */
  private async readInbox(lead: NonNullable<SharedBudget['lead']>): Promise<void> {
    const k = this.keys;
    try {
      await ready(lead.conn);
    } catch (err) {
      if (this.lead === lead) this.fail(err);
      return;
    }
    while (this.lead === lead && !this.closed) {
      try {
        const got = await lead.conn.blpop(k.inbox, tune.POP_S);
        if (this.lead !== lead) return;
        if (!got) continue;
        // The line first, at once (a want granted or an answer taken a round trip sooner), then
        // whatever came meanwhile.
        this.take(lead, got[1], this.hooks?.now() ?? Date.now());
        await this.pump(lead);
        const res = await this.redis.multi().lrange(k.inbox, 0, tune.DRAIN - 1).ltrim(k.inbox, tune.DRAIN, -1).exec();
        const lines = (res?.[0]?.[1] ?? []) as string[];
        if (lines.length === 0 || this.lead !== lead) continue;
        const now = this.hooks?.now() ?? Date.now();
        for (const line of lines) this.take(lead, line, now);
        await this.pump(lead);
      } catch (err) {
        if (this.lead === lead) this.fail(err);
        return;
      }
    }
  }

  /** One line of the inbox: `w|proc` (a want), `c|proc|n` (wants given up), `a|n@token|answer`. */
  private take(lead: NonNullable<SharedBudget['lead']>, line: string, now: number): void {
    const [kind, a, b] = splitLine(line);
    if (kind === 'w') lead.gate.want(a);
    else if (kind === 'c') lead.gate.cancel(a, Number(b) || 0);
    else if (kind === 'a') {
      const [n, token, followed] = a.split('@');
      const answer = decodeAnswer(b);
      // Another leader's grant: its gate is gone, and this one never counted it.
      if (token === lead.token.slice(0, 8) && answer) lead.gate.answer(Number(n), answer, now, { sentAt: answer.sentAt, at: answer.at }, followed === '+');
    }
  }

  /** Grants what the gate lets go now, and wakes itself at the gate's next moment. */
  private async pump(lead: NonNullable<SharedBudget['lead']>): Promise<void> {
    if (this.lead !== lead || this.closed) return;
    const now = this.hooks?.now() ?? Date.now();
    const r = lead.gate.pump(now);
    clearTimeout(lead.timer);
    if (r.wakeAt !== undefined) {
      // A wake past a timer's range wakes early and sets the next one: never one timer past it.
      lead.timer = setTimeout(() => void this.pump(lead).catch((err: unknown) => this.fail(err)), Math.min(MAX_TIMER_MS, Math.max(0, r.wakeAt - now)));
      lead.timer.unref();
    }
    const lines: Array<[string, string]> = [];
    const tag = lead.token.slice(0, 8);
    for (const v of r.revokes ?? []) lines.push([v.proc, `v|${v.id}@${tag}`]);
    for (const g of r.grants) lines.push([g.proc, `${g.id}@${tag}`]);
    for (const f of r.follows ?? []) lines.push([f.proc, `f|${f.id}@${tag}|${f.after}@${tag}`]);
    if (lines.length === 0) return;
    const m = this.redis.multi();
    for (const [proc, line] of lines) {
      const key = `${this.prefix}grants:${proc}`;
      m.rpush(key, line).pexpire(key, tune.STALE_MS);
    }
    await m.exec();
  }

  /** A connection of its own (a blocking pop holds one), closed with the budget at the latest. */
  private connection(): RedisClient {
    const conn = this.redis.duplicate();
    conn.on('error', () => undefined); // reported through the failing calls
    this.conns.add(conn);
    conn.once('end', () => this.conns.delete(conn));
    return conn;
  }

  private aliveKey(proc: string): string {
    return `${this.prefix}alive:${proc}`;
  }

  /** The shared pace (and cap on requests in flight, if one was found), if written lately. */
  private async freshState(now: number): Promise<{ rate: number; window?: number } | undefined> {
    const [rate, at, window] = await this.redis.hmget(this.keys.state, 'rate', 'at', 'window');
    const r = Number(rate);
    const w = Number(window || NaN);
    if (!(Number.isFinite(r) && r > 0 && now - Number(at) < tune.STALE_MS)) return undefined;
    return { rate: r, ...(Number.isInteger(w) && w > 0 ? { window: w } : {}) };
  }

  /** The one gate, while this process leads (its state, for the memory and for tests). */
  get leadGate(): CentralGate | undefined {
    return this.lead?.gate;
  }

  /** What the one gate knows of the limit, while this process leads it (for the memory). */
  snapshot(now: number): Limit | undefined {
    return this.lead?.gate.gate.snapshot(now);
  }

  /**
   * Stops: the wants still waiting are given up, spare grants answered as never sent, and a leader
   * hands the lead on (the next takes up the pace it wrote).
   */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.closing = true;
    const lines = [...(this.waiters.length > 0 ? [`c|${this.proc}|${this.waiters.length}`] : []), ...this.spare.splice(0).map((g) => `a|${g}|${encodeAnswer({ at: 0, sentAt: 0, status: 0 })}`)];
    for (const w of this.waiters.splice(0)) w.reject(new Error('the shared budget is closed'));
    const pushed = lines.length > 0 ? this.redis.rpush(this.keys.inbox, ...lines).catch(() => undefined) : undefined;
    const lead = this.lead;
    if (lead) {
      // The lead is handed on with nothing in flight: a new leader's gate counts only what it
      // granted itself, and would grant a cap's places again over requests still at the server.
      lead.gate.drain();
      await pushed;
      await this.pump(lead).catch(() => undefined);
      const until = Date.now() + tune.HANDOVER_MS;
      while (this.lead === lead && lead.gate.inflight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    }
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    // A tick under way may still renew or take the lock, or mark this process alive: it ends first,
    // so that what follows is the last word.
    await this.tickRun?.catch(() => undefined);
    const leading = this.lead;
    this.endLead();
    await Promise.all([
      pushed,
      this.redis.del(this.aliveKey(this.proc)).catch(() => undefined),
      leading ? this.redis.eval(RELEASE, 1, this.keys.leader, leading.token).catch(() => undefined) : undefined,
    ]);
    for (const conn of this.conns) conn.disconnect();
    this.redis.disconnect();
  }
}

/** A new connection (a duplicate) takes no command before it is ready: the offline queue is off. */
async function ready(conn: RedisClient): Promise<void> {
  if (conn.status === 'ready') return;
  await new Promise<void>((ok, fail) => {
    conn.once('ready', () => ok());
    conn.once('error', fail);
    conn.once('end', () => fail(new Error('connection closed')));
  });
}

/** `kind|a|rest`: the rest may hold `|` itself (an encoded answer). */
function splitLine(line: string): [string, string, string] {
  const i = line.indexOf('|');
  const j = line.indexOf('|', i + 1);
  if (i < 0) return [line, '', ''];
  if (j < 0) return [line.slice(0, i), line.slice(i + 1), ''];
  return [line.slice(0, i), line.slice(i + 1, j), line.slice(j + 1)];
}

/** Where Redis is, for messages (no password). */
const where = (url: string): string => (URL.canParse(url) && new URL(url).host) || url;

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
    // A malformed value is the operator's argument (exit 2, docs/cli.md "Streams and exit codes"); Redis away is not (below).
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
    // Every request waits for its grant through Redis: a Redis that stops answering (a network cut
    // with no reset) must fail as surely as one that refuses, or the import would wait for good.
    // (The blocking pops give up after tune.POP_S, well within it.)
    commandTimeout: 2_000,
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
