/**
 * The one way callctl talks to the API: one undici Agent (keep-alive) for the process — through
 * the proxy of the environment when one is set (proxy.ts) — bearer auth, JSON in and out, every
 * attempt through the limiter, retries by the rules of retry.ts, and one typed error when it gives
 * up. Only the API's answers count (answer.ts): a 2xx that is a page or JSON of another shape is
 * a fault, and a few in a row stop everything. A one-shot command gives up on a request after
 * --timeout in all; a bulk job (`forBulkJob`) retries patiently, and its progress tells an outage
 * (outage.ts). Every wait — a pause, a back-off, a place in the queue — ends on Ctrl-C.
 */
import { setMaxListeners } from 'node:events';
import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
// undici's index loads fetch, WebSocket, caches, mocks and proxies (~1.1 MB): only these two
// files are used (BENCHMARKS.md §4, start-up), and the proxy agent only when a proxy is set.
// Types: undici-parts.d.ts.
import Agent from 'undici/lib/dispatcher/agent.js';
import request from 'undici/lib/api/api-request.js';
import type { Deps } from '../deps.js';
import { ApiError, InterruptedError } from '../errors.js';
import { DEFAULTS, type Settings } from '../config/settings.js';
import { MAX_TIMER_MS } from '../deps.js';
import type { Logger } from '../output/log.js';
import { createPace, openMemory, parseRateLimit, parseRetryAfter, type HeaderBag, type Memory, type Pace, type PaceStats, type SharedBudget } from '../pace/index.js';
import type { AnswerSeen, PauseSeen } from './answer.js';
import { AnswerRefused, type AnswerShape, notTheApi, readBody, readCapped } from './answer.js';
import { notApiError, outageError, refusedError, serverMessage, statusError, transportError, type Failing } from './client-errors.js';
import { OUTAGE_PATIENCE_MS, OutageWatch, type OutageView } from './outage.js';
import { DEFAULT_MAX_PAUSE_S, pauseCause, PauseWatch } from './pauses.js';
import { agentOptions } from './agent-options.js';
import { urlUnder } from './paths.js';
import { type ProxyChoice, proxyEnv, proxyFor } from './proxy.js';
import { AttemptDeadline, backoffMs, MAX_ATTEMPTS, mayRetry, transportFailure, type TransportFailure } from './retry.js';
import { checkBaseUrl, checkSecretKey, isLoopbackHost, maskKey } from './safety.js';

export { serverMessage } from './client-errors.js';
export { DEFAULT_MAX_PAUSE_S } from './pauses.js';
export { pathOf, segment } from './paths.js';
export type { AnswerShape } from './answer.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface ApiRequest {
  method: Method;
  /** Path under the base URL, starting with `/`; build it with `pathOf` so ids are encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** POST only: a repeat cannot duplicate (the body carries an E.164 phone the service matches). */
  safeToRetry?: boolean;
  /** Aborts the request, on the wire too (a second Ctrl-C). */
  signal?: AbortSignal;
  /** What a 2xx must be to count as the API's (src/api/shapes.ts); without one, any JSON or nothing. */
  shape?: AnswerShape;
  /**
   * Called once, as the first attempt goes on the wire (past the limiter): what must be on record
   * before the service can act on the request (an import's intent). If it throws, nothing is sent.
   */
  beforeSend?: () => void;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: HeaderBag;
  /** Parsed JSON; undefined when empty (a 2xx that is not JSON never returns). */
  body: T;
  /** Attempts made, the successful one included. */
  attempts: number;
  /** True when an earlier attempt failed ambiguously (it may have been applied already). */
  ambiguousBefore: boolean;
}

/** Most 429s one request waits through before giving up (a guard against a server that never lets up). */
const MAX_THROTTLED_WAITS = 200;
/** Answers in a row that are not the API's after which nothing more is tried: whatever is in the way answers all alike. */
export const NOT_API_LIMIT = 3;

export interface ClientOptions {
  baseUrl: URL;
  apiKey: string;
  concurrency: number;
  rate: number | undefined;
  /** Each attempt's deadline, its body included; for a one-shot command, per request with its retries. */
  timeoutMs: number;
  /** The largest answer read (--max-answer), in bytes; a larger one is refused. */
  maxAnswerBytes?: number;
  log: Logger;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** A rate-limit budget shared through Redis (src/pace/shared-budget.ts). */
  shared?: SharedBudget | undefined;
  /** The limit remembered between runs (src/pace/memory.ts). */
  memory?: Memory | undefined;
  /** --max-pause in ms: a 429 pause (or 429s without end) longer than this stops the command. */
  maxPauseMs?: number;
  /** The dispatcher to send through (the proxy agent); else an Agent of the client's own. */
  dispatcher?: Dispatcher;
  /** The proxy the dispatcher goes through, for messages. */
  proxy?: ProxyChoice | undefined;
  /** Resolves host names for the client's own Agent (tests: no DNS query leaves the machine). */
  lookup?: LookupFunction;
}

export class ApiClient {
  private readonly agent: Dispatcher;
  private readonly limiter: Pace;
  private readonly random: () => number;
  private readonly pauses: PauseWatch;
  /** Whether the server has answered once: a refusal after that is an outage, before it a wrong port. */
  private answered = false;
  /** Told of every attempt's answer, 429s included, of every failed attempt, and of every pause (a job's timeline). */
  private readonly observers = new Set<(a: AnswerSeen | PauseSeen) => void>();
  private lastNotice = { line: '', at: 0 };
  /**
   * `oneShot`: a command's request, given up after --timeout in all. `job`: a bulk job's read before
   * its rows — patient retries, each said on stderr. `rows`: its rows under way — patient, their
   * progress line tells an outage (forBulkJob).
   */
  private phase: 'oneShot' | 'job' | 'rows' = 'oneShot';
  private get bulk(): boolean {
    return this.phase !== 'oneShot';
  }
  /** Answers in a row that were not the API's. */
  private notApiStreak = 0;
  /** Aborted to end every wait at once: Ctrl-C in a job, a pause past --max-pause. */
  private readonly stopper = new AbortController();
  /** Aborted to end every attempt on the wire too: a bulk job's outage past its patience. */
  private readonly abandon = new AbortController();
  private readonly health = new OutageWatch();

  constructor(private readonly opts: ClientOptions) {
    // Each attempt in flight listens on it: more than Node's default of 10 with --concurrency 16.
    setMaxListeners(opts.concurrency + 10, this.abandon.signal);
    this.agent = opts.dispatcher ?? new Agent(agentOptions(opts));
    this.pauses = new PauseWatch({ log: opts.log, now: opts.now, maxPauseMs: opts.maxPauseMs ?? DEFAULT_MAX_PAUSE_S * 1000, bulk: () => this.bulk, halt: (err) => this.halt(err) });
    this.limiter = createPace({
      concurrency: opts.concurrency,
      rate: opts.rate,
      now: opts.now,
      sleep: (ms, signal) => opts.sleep(ms, signal),
      onPause: (ms, answer) => {
        this.pauses.paused(ms, pauseCause(answer));
        this.tell({ at: opts.now(), pauseMs: ms });
      },
      shared: opts.shared,
      onSharedLost: (err) => opts.log.warn(`the shared rate limit on Redis failed (${(err as Error)?.message ?? String(err)}); pacing this process alone`),
      onSharedLead: () => opts.log.debug('· this process leads the shared rate limit on Redis'),
      memory: opts.memory,
    });
    this.random = opts.random ?? Math.random;
  }

  /**
   * Turns this client into a bulk job's: patient retries (no one-shot deadline). `rows`: its rows
   * are under way, and their progress line tells an outage; before (the reads a job makes first,
   * src/bulk/file-job.ts jobClient) each retry is said on stderr as a one-shot command's.
   */
  forBulkJob(phase: 'job' | 'rows' = 'job'): void {
    if (this.phase !== 'rows') this.phase = phase;
  }

  /** Ends every wait now and every later one at once (Ctrl-C): requests on the wire still finish. */
  stopWaiting(): void {
    if (!this.stopper.signal.aborted) this.stopper.abort(new InterruptedError());
  }

  /** Stops the client now (a signal before a bulk job's rows): every wait and every attempt on the wire ends with `err`. */
  interrupt(err: Error): void {
    this.halt(err, true);
  }

  /** The outage under way, if any, for a progress line. */
  outage(): OutageView {
    return this.health.view(this.opts.now());
  }

  /** Sends one request (with retries) and returns the 2xx answer, or throws ApiError. */
  async request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>> {
    const url = urlUnder(this.opts.baseUrl, req.path, req.query);
    const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
    const safePost = req.method === 'POST' && req.safeToRetry === true;
    // A one-shot command gives up on a request once its attempts and back-offs have taken
    // --timeout in all (docs/network.md); the time a 429 pause or the pace holds it is not counted.
    let budget = this.bulk ? Infinity : this.opts.timeoutMs;
    let timeout = this.opts.timeoutMs;
    const waits = req.signal ? AbortSignal.any([req.signal, this.stopper.signal]) : this.stopper.signal;
    let attempt = 1;
    let throttledWaits = 0;
    let ambiguousBefore = false;
    let told = false;
    let refused: { err: unknown } | undefined;
    /** A failed attempt: waits its back-off and goes on, or returns false when no retry is left. */
    const retried = async (reason: string, ambiguous: boolean, most = MAX_ATTEMPTS): Promise<boolean> => {
      const backoff = backoffMs(attempt, this.random);
      const now = this.opts.now();
      this.health.failed(now, reason);
      // A bulk job's row waits out an outage (no answer from the service at all) past its attempts,
      // up to OUTAGE_PATIENCE_MS: a restart or a deploy heals in that. Past it, the job stops —
      // every row, those on the wire too — with --resume advice, rather than wait for ever on a
      // service that accepts connections and never answers.
      const down = this.bulk && most === MAX_ATTEMPTS ? this.health.downForMs(now) : undefined;
      if (down !== undefined && down >= OUTAGE_PATIENCE_MS) {
        const err = outageError(req, reason, down, attempt);
        this.halt(err, true);
        throw err;
      }
      // The last wait of an outage ends with the patience: one more attempt then, and the job goes on or stops.
      const wait = down === undefined ? backoff : Math.min(backoff, OUTAGE_PATIENCE_MS - down);
      if ((attempt >= most && down === undefined) || !mayRetry(req.method, safePost, ambiguous) || wait >= budget) {
        this.opts.log.debug(`× ${req.method} ${url.pathname}: ${reason}`);
        return false;
      }
      this.retryNotice(req, reason, attempt + 1, most);
      const left = this.health.retrying(now + wait);
      try {
        await this.wait(wait, req, waits);
      } finally {
        left();
      }
      budget -= this.opts.now() - now;
      attempt += 1;
      return true;
    };

    for (;;) {
      this.checkStopped(req);
      let answer: Attempt;
      let sentAt: number | undefined;
      // A one-shot command's last attempt has what is left of its budget.
      timeout = Math.max(1, Math.min(this.opts.timeoutMs, budget));
      const spent = () => (sentAt === undefined ? 0 : this.opts.now() - sentAt);
      try {
        answer = await this.limited(() => {
          sentAt = this.opts.now();
          if (!told) {
            told = true;
            try {
              req.beforeSend?.();
            } catch (err) {
              refused = { err };
              throw err;
            }
          }
          return this.attempt(req, url, payload, timeout);
        }, waits);
        budget -= spent();
      } catch (err) {
        // What had to be on record first could not be written (a full disk): nothing was sent, and nothing is retried.
        if (refused !== undefined) throw refused.err;
        budget -= spent();
        this.checkStopped(req);
        if (err instanceof AnswerRefused) throw refusedError(req, err, { attempts: attempt });
        const failure = transportFailure(err);
        if (!failure) throw err;
        this.tell({ at: this.opts.now(), status: undefined });
        ambiguousBefore ||= failure.ambiguous;
        const final = this.cannotHeal(failure);
        if (!final && (await retried(failure.reason, failure.ambiguous))) continue;
        throw transportError(req, failure, {
          host: this.opts.baseUrl.host,
          timeoutMs: timeout,
          attempts: attempt,
          notRetried: failure.ambiguous && !mayRetry(req.method, safePost, true),
          final,
          proxy: this.opts.proxy?.shown,
        });
      }

      if (answer.status === 429) {
        // The limiter has paused everyone; this request simply queues again. Never a failure.
        this.pauses.throttled();
        throttledWaits += 1;
        if (throttledWaits > MAX_THROTTLED_WAITS) throw statusError(req, answer, { attempts: attempt, maxWaits: MAX_THROTTLED_WAITS });
        continue;
      }
      this.pauses.answered();
      if (answer.notApi !== undefined) {
        // Not the API's answer (a page, text, JSON of another shape): a fault of this attempt.
        this.notApiStreak += 1;
        ambiguousBefore = true;
        const final = this.notApiStreak >= NOT_API_LIMIT;
        if (!final && (await retried('an answer that is not the API\'s', true, NOT_API_LIMIT))) continue;
        throw notApiError(req, answer, answer.notApi, { attempts: attempt, final });
      }
      if (answer.status >= 500) {
        ambiguousBefore = true;
        if (await retried(`server error ${answer.status}`, true)) continue;
        throw statusError(req, answer, { attempts: attempt, maxWaits: MAX_THROTTLED_WAITS });
      }
      this.notApiStreak = 0;
      this.health.answered(this.opts.now());
      if (answer.status >= 200 && answer.status < 300) {
        return { status: answer.status, headers: answer.headers, body: answer.body as T, attempts: attempt, ambiguousBefore };
      }
      throw statusError(req, answer, { attempts: attempt, ambiguousBefore, maxWaits: MAX_THROTTLED_WAITS });
    }
  }

  /**
   * Whether a failure cannot heal (docs/network.md): a refused certificate or proxy tunnel always; a
   * name that does not resolve, or a connection refused on this machine, until the server has
   * answered once — after that, it is an outage (a restart, a flaky resolver) and is waited out.
   */
  private cannotHeal(f: TransportFailure): boolean {
    if (f.kind === 'tls' || f.kind === 'proxy') return true;
    if (this.answered) return false;
    if (f.kind === 'host_not_found') return true;
    const host = this.opts.proxy ? new URL(this.opts.proxy.url).hostname : this.opts.baseUrl.hostname;
    return f.kind === 'refused' && isLoopbackHost(host);
  }

  /** Throws what stopped the client (Ctrl-C, a pause too long), or InterruptedError when this request was aborted. */
  private checkStopped(req: ApiRequest): void {
    if (req.signal?.aborted) throw new InterruptedError();
    if (this.stopper.signal.aborted) throw this.stopper.signal.reason;
  }

  /**
   * Runs an attempt through the limiter. While it waits there (the queue, a pause, the pace), an
   * abort of `waits` ends it at once; once sent, it finishes (a second Ctrl-C aborts the request).
   */
  private limited(send: () => Promise<Attempt>, waits: AbortSignal): Promise<Attempt> {
    let sending = false;
    const run = this.limiter.run(() => {
      sending = true;
      return send();
    }, waits);
    run.catch(() => undefined);
    return new Promise<Attempt>((resolve, reject) => {
      const onAbort = () => {
        if (!sending) reject(waits.reason);
      };
      if (waits.aborted) return onAbort();
      waits.addEventListener('abort', onAbort, { once: true });
      run.then(
        (v) => (waits.removeEventListener('abort', onAbort), resolve(v)),
        (e: unknown) => (waits.removeEventListener('abort', onAbort), reject(e)),
      );
    });
  }

  /** Stops the client: every wait ends with `err`, and so does every later request; with `onTheWire`, every attempt under way too. */
  private halt(err: Error, onTheWire = false): void {
    if (!this.stopper.signal.aborted) this.stopper.abort(err);
    if (onTheWire && !this.abandon.signal.aborted) this.abandon.abort(err);
  }

  private get maxAnswerBytes(): number {
    return this.opts.maxAnswerBytes ?? DEFAULTS.maxAnswerMb * 1024 * 1024;
  }

  /**
   * "retrying (2/6)…" on stderr before each repeat of a one-shot command, so a slow failure is
   * never silent (hidden by -q); the same line at most once a second. A bulk job tells an outage in
   * its progress line instead (outage.ts): each retry only under --verbose.
   */
  private retryNotice(req: ApiRequest, reason: string, next: number, most: number): void {
    const line = `callctl: ${reason} on ${req.method} ${req.path.split('?')[0]}; retrying (${next > most ? `attempt ${next}, waiting out the outage` : `${next}/${most}`})…`;
    const now = this.opts.now();
    if (this.phase === 'rows' || (line === this.lastNotice.line && now - this.lastNotice.at < 1_000)) return this.opts.log.debug(line);
    this.lastNotice = { line, at: now };
    this.opts.log.info(line);
  }

  /** Tells `fn` the status and time of every attempt's answer (or failure); returns the way to stop. */
  observe(fn: (a: AnswerSeen | PauseSeen) => void): () => void {
    this.observers.add(fn);
    return () => this.observers.delete(fn);
  }

  private tell(a: AnswerSeen | PauseSeen): void {
    for (const fn of this.observers) fn(a);
  }

  /** Requests sent, 429s met, the current pace and the limit known — for summaries and progress. */
  stats(): PaceStats {
    return this.limiter.stats();
  }

  async close(): Promise<void> {
    // A wait still under way (a pause) must not hold the process open.
    this.halt(new InterruptedError('closed'));
    await this.limiter.close();
    await this.agent.close().catch(() => undefined);
  }

  /** Back-off between attempts; Ctrl-C during it ends the request as interrupted, not as a failure. */
  private async wait(ms: number, req: ApiRequest, waits: AbortSignal): Promise<void> {
    try {
      await this.opts.sleep(ms, waits);
    } catch (err) {
      if (waits.aborted) this.checkStopped(req);
      throw err;
    }
  }

  private async attempt(req: ApiRequest, url: URL, payload: string | undefined, timeout: number): Promise<Attempt> {
    const started = this.opts.now();
    this.opts.log.debug(`→ ${req.method} ${url.pathname}${url.search} (Authorization: Bearer ${maskKey(this.opts.apiKey)})`);
    // The attempt's deadline, its body included (docs/network.md, "Bounds"): undici's timeouts are
    // for the first byte and for each gap in the body, and a body trickled a byte a second never
    // meets them.
    const ended = new AbortController();
    const timer = setTimeout(() => ended.abort(new AttemptDeadline(timeout)), Math.min(timeout, MAX_TIMER_MS));
    const unrelay = relayAbort(ended, [this.abandon.signal, req.signal]);
    let res: Awaited<ReturnType<typeof request>>;
    let text: string;
    try {
      res = await request.call(this.agent, {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        headers: {
          authorization: `Bearer ${this.opts.apiKey}`,
          accept: 'application/json',
          'user-agent': 'callctl',
          ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(payload !== undefined ? { body: payload } : {}),
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: ended.signal,
      });
      text = await readCapped(res.body, this.maxAnswerBytes, res.headers['content-length']);
    } catch (err) {
      // undici ends with the abort's reason, whichever way it came: the deadline's is a timeout.
      if (ended.signal.reason instanceof AttemptDeadline) throw ended.signal.reason;
      throw err;
    } finally {
      clearTimeout(timer);
      unrelay();
    }
    this.answered = true;
    const now = this.opts.now();
    const headers = res.headers as HeaderBag;
    const contentType = typeof headers['content-type'] === 'string' ? headers['content-type'] : undefined;
    const read = readBody(text);
    this.opts.log.debug(`← ${res.statusCode} ${req.method} ${url.pathname} (${now - started} ms)`);
    const retryAfterMs = parseRetryAfter(headers['retry-after'], now);
    this.tell({ at: now, status: res.statusCode, retryAfterMs });
    return {
      status: res.statusCode,
      headers,
      body: read.body,
      contentType,
      notApi: notTheApi(res.statusCode, contentType, text, read, req.shape),
      rateLimit: parseRateLimit(headers, now),
      retryAfterMs,
    };
  }
}

/** Aborts `target` when any of `sources` aborts, with its reason; returns the way to stop listening. */
function relayAbort(target: AbortController, sources: Array<AbortSignal | undefined>): () => void {
  const offs: Array<() => void> = [];
  for (const source of sources) {
    if (source === undefined) continue;
    if (source.aborted) {
      target.abort(source.reason);
      continue;
    }
    const relay = () => target.abort(source.reason);
    source.addEventListener('abort', relay, { once: true });
    offs.push(() => source.removeEventListener('abort', relay));
  }
  return () => offs.forEach((off) => off());
}

interface Attempt {
  status: number;
  headers: HeaderBag;
  body: unknown;
  contentType: string | undefined;
  /** Why the answer is not the API's; undefined when it is. */
  notApi: string | undefined;
  rateLimit: ReturnType<typeof parseRateLimit>;
  retryAfterMs: number | undefined;
}

/** Builds the client of a command: checks the key and base URL before anything is sent. */
export async function createApiClient(input: { settings: Settings; deps: Deps; log: Logger; configDir?: string }): Promise<ApiClient> {
  const { settings, deps, log } = input;
  const apiKey = checkSecretKey(settings.apiKey);
  log.addSecret(apiKey);
  const baseUrl = checkBaseUrl(settings.baseUrl);
  let shared: SharedBudget | undefined;
  if (settings.redisUrl !== undefined) {
    const { connectShared, sharedLimiterId } = await import('../pace/index.js');
    shared = await connectShared({ redisUrl: settings.redisUrl, id: sharedLimiterId(baseUrl.href, apiKey), log, required: settings.requireRedis });
  }
  const memory = input.configDir === undefined ? undefined : openMemory({ dir: input.configDir, baseUrl: baseUrl.href, apiKey, warn: (l) => log.warn(l), debug: (l) => log.debug(l) });
  const proxy = proxyFor(baseUrl, deps.env);
  let dispatcher: Dispatcher | undefined;
  if (proxy) {
    const { proxyAgent } = await import('./proxy-agent.js');
    dispatcher = await proxyAgent(proxyEnv(deps.env), agentOptions({ concurrency: settings.concurrency, timeoutMs: settings.timeoutMs }));
    log.debug(`· proxy ${proxy.shown} (${proxy.variable}) for ${baseUrl.host}`);
  }
  return new ApiClient({
    shared,
    memory,
    baseUrl,
    apiKey,
    concurrency: settings.concurrency,
    rate: settings.rate,
    timeoutMs: settings.timeoutMs,
    maxAnswerBytes: settings.maxAnswerBytes,
    maxPauseMs: (settings.maxPause ?? DEFAULT_MAX_PAUSE_S) * 1000,
    log,
    now: deps.now,
    sleep: deps.sleep,
    ...(dispatcher ? { dispatcher, proxy } : {}),
  });
}
