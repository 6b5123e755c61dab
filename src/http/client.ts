/**
 * The one way callctl talks to the API: one undici Agent (keep-alive) for the process, bearer
 * auth, JSON in and out, a per-attempt timeout, every attempt through the limiter, retries by the
 * rules of retry.ts, and one typed error when it gives up.
 */
import type { Agent as UndiciAgent } from 'undici';
// undici's index loads fetch, WebSocket, caches, mocks and proxies (~1.1 MB): only these two
// files are used (BENCHMARKS.md §4, start-up). Types: undici-parts.d.ts.
import Agent from 'undici/lib/dispatcher/agent.js';
import request from 'undici/lib/api/api-request.js';
import type { Deps } from '../deps.js';
import { ApiError, codeForStatus, InterruptedError, UsageError } from '../errors.js';
import type { Settings } from '../config/settings.js';
import type { Logger } from '../output/log.js';
import type { AnswerSeen } from '../jobs/timeline.js';
import { RequestLimiter, type LimiterStats } from './limiter.js';
import { parseRateLimit, parseRetryAfter, type HeaderBag } from './ratelimit-headers.js';
import { backoffMs, MAX_ATTEMPTS, mayRetry, transportFailure } from './retry.js';
import { checkBaseUrl, checkSecretKey, isLoopbackHost, maskKey } from './safety.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface ApiRequest {
  method: Method;
  /** Path under the base URL, starting with `/`; build it with `pathOf` so ids are encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** POST only: a repeat cannot duplicate (the body carries an E.164 phone the service matches). */
  safeToRetry?: boolean;
  signal?: AbortSignal;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: HeaderBag;
  /** Parsed JSON; the raw text when the body is not JSON; undefined when empty. */
  body: T;
  /** Attempts made, the successful one included. */
  attempts: number;
  /** True when an earlier attempt failed ambiguously (it may have been applied already). */
  ambiguousBefore: boolean;
}

/** Most 429s one request waits through before giving up (a guard against a server that never lets up). */
const MAX_THROTTLED_WAITS = 200;

/** Encodes one id as a single path segment: `../calls` can never reach another endpoint. */
export function segment(id: string): string {
  if (id.trim() === '') throw new UsageError('the id is empty', 'give the id of an existing record');
  // URLs resolve `.` and `..` (even as %2E%2E) as directory steps: such an id would reach another
  // endpoint, so it is refused rather than sent.
  if (id === '.' || id === '..') throw new UsageError(`the id "${id}" cannot be sent as a path segment`, 'give the id of an existing record');
  return encodeURIComponent(id);
}

/** Tagged template for paths: every interpolated value is an encoded segment. */
export function pathOf(strings: TemplateStringsArray, ...ids: Array<string | number>): string {
  return strings.reduce((out, s, i) => out + s + (i < ids.length ? segment(String(ids[i])) : ''), '');
}

/** The message a server put in its error body: `error.message`, `message`, or a string `error`. */
export function serverMessage(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return typeof body === 'string' && body.trim() && body.length < 300 ? body.trim() : undefined;
  const b = body as { error?: unknown; message?: unknown };
  if (b.error && typeof b.error === 'object' && typeof (b.error as { message?: unknown }).message === 'string') {
    return (b.error as { message: string }).message;
  }
  if (typeof b.message === 'string') return b.message;
  if (typeof b.error === 'string') return b.error;
  return undefined;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 413: 'Payload Too Large',
  415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error',
  502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

export interface ClientOptions {
  baseUrl: URL;
  apiKey: string;
  concurrency: number;
  rate: number | undefined;
  timeoutMs: number;
  log: Logger;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** A rate-limit budget shared through Redis (see shared-limiter.ts). */
  shared?: import('./shared-limiter.js').SharedBudget | undefined;
}

export class ApiClient {
  private readonly agent: UndiciAgent;
  private readonly limiter: RequestLimiter;
  private readonly basePath: string;
  private readonly random: () => number;
  /** Whether the server has answered once: a refusal after that is an outage, before it a wrong port. */
  private answered = false;
  /** Told of every attempt's answer, 429s included, and of every failed attempt (a job's timeline). */
  private readonly observers = new Set<(a: AnswerSeen) => void>();
  private lastNotice = { line: '', at: 0 };

  constructor(private readonly opts: ClientOptions) {
    this.agent = new Agent({
      connections: opts.concurrency,
      keepAliveTimeout: 10_000,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      connect: { timeout: Math.min(opts.timeoutMs, 10_000) },
    });
    this.limiter = new RequestLimiter({
      concurrency: opts.concurrency,
      rate: opts.rate,
      now: opts.now,
      sleep: (ms, signal) => opts.sleep(ms, signal),
      onPause: (ms) => opts.log.debug(`· rate limited: pausing all requests for ${Math.round(ms)} ms`),
      shared: opts.shared,
      onSharedLost: (err) => opts.log.warn(`the shared rate limit on Redis failed (${(err as Error)?.message ?? String(err)}); pacing this process alone`),
    });
    this.basePath = opts.baseUrl.pathname.replace(/\/+$/, '');
    this.random = opts.random ?? Math.random;
  }

  /** Sends one request (with retries) and returns the 2xx answer, or throws ApiError. */
  async request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>> {
    const url = this.urlFor(req);
    const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
    const safePost = req.method === 'POST' && req.safeToRetry === true;
    let attempt = 1;
    let throttledWaits = 0;
    let ambiguousBefore = false;

    for (;;) {
      if (req.signal?.aborted) throw new InterruptedError();
      let answer: Attempt;
      try {
        answer = await this.limiter.run(() => this.attempt(req, url, payload));
      } catch (err) {
        if (req.signal?.aborted) throw new InterruptedError();
        const failure = transportFailure(err);
        if (!failure) throw err;
        this.tell({ at: this.opts.now(), status: undefined });
        ambiguousBefore ||= failure.ambiguous;
        // Nothing listening on this machine (a wrong port, the sandbox not started) will not
        // change in the 11 s of back-off: say so at once. Once the server has answered, a refusal
        // is an outage (a restart) and is waited out like any other.
        if (failure.reason === 'connection refused' && !this.answered && isLoopbackHost(this.opts.baseUrl.hostname)) {
          throw new ApiError('network', `cannot reach ${this.opts.baseUrl.host}: connection refused (${req.method} ${req.path.split('?')[0]})`, { method: req.method, path: req.path, attempts: attempt }, 'nothing listens on that port of this machine: check --base-url or CALLCTL_BASE_URL, and that the server (callctl sandbox?) is running');
        }
        const retry = attempt < MAX_ATTEMPTS && mayRetry(req.method, safePost, failure.ambiguous);
        if (retry) this.retryNotice(req, failure.reason, attempt + 1);
        else this.opts.log.debug(`× ${req.method} ${url.pathname}: ${failure.reason}`);
        if (retry) {
          await this.wait(backoffMs(attempt, this.random), req.signal);
          attempt += 1;
          continue;
        }
        throw this.transportError(req, failure.code, failure.reason, attempt, failure.ambiguous && !mayRetry(req.method, safePost, true));
      }

      if (answer.status === 429) {
        // The limiter has paused everyone; this request simply queues again. Never a failure.
        throttledWaits += 1;
        if (throttledWaits > MAX_THROTTLED_WAITS) throw this.statusError(req, answer, attempt);
        continue;
      }
      if (answer.status >= 500) {
        ambiguousBefore = true;
        if (attempt < MAX_ATTEMPTS && mayRetry(req.method, safePost, true)) {
          this.retryNotice(req, `server error ${answer.status}`, attempt + 1);
          await this.wait(backoffMs(attempt, this.random), req.signal);
          attempt += 1;
          continue;
        }
        throw this.statusError(req, answer, attempt);
      }
      if (answer.status >= 200 && answer.status < 300) {
        return { status: answer.status, headers: answer.headers, body: answer.body as T, attempts: attempt, ambiguousBefore };
      }
      throw this.statusError(req, answer, attempt, ambiguousBefore);
    }
  }

  /**
   * "retrying (2/6)…" on stderr before each repeat, so a slow failure is never silent (hidden by
   * -q). Many rows of an import retrying alike would repeat one line: the same line is printed at
   * most once a second (--verbose still logs every attempt).
   */
  private retryNotice(req: ApiRequest, reason: string, next: number): void {
    const line = `callctl: ${reason} on ${req.method} ${req.path.split('?')[0]}; retrying (${next}/${MAX_ATTEMPTS})…`;
    const now = this.opts.now();
    if (line === this.lastNotice.line && now - this.lastNotice.at < 1_000) return this.opts.log.debug(line);
    this.lastNotice = { line, at: now };
    this.opts.log.info(line);
  }

  /** Tells `fn` the status and time of every attempt's answer (or failure); returns the way to stop. */
  observe(fn: (a: AnswerSeen) => void): () => void {
    this.observers.add(fn);
    return () => this.observers.delete(fn);
  }

  private tell(a: AnswerSeen): void {
    for (const fn of this.observers) fn(a);
  }

  /** Requests sent, 429s met and the current pace — for summaries and progress. */
  stats(): LimiterStats {
    return this.limiter.stats();
  }

  async close(): Promise<void> {
    await this.limiter.close();
    await this.agent.close().catch(() => undefined);
  }

  /** Back-off between attempts; Ctrl-C during it ends the request as interrupted, not as a failure. */
  private async wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.opts.sleep(ms, signal);
    } catch (err) {
      if (signal?.aborted) throw new InterruptedError();
      throw err;
    }
  }

  private urlFor(req: ApiRequest): URL {
    const url = new URL(this.opts.baseUrl.href);
    const [pathPart, queryPart] = req.path.split('?', 2) as [string, string | undefined];
    url.pathname = this.basePath + (pathPart.startsWith('/') ? pathPart : `/${pathPart}`);
    if (queryPart) url.search = queryPart;
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  private async attempt(req: ApiRequest, url: URL, payload: string | undefined): Promise<Attempt> {
    const started = this.opts.now();
    this.opts.log.debug(`→ ${req.method} ${url.pathname}${url.search} (Authorization: Bearer ${maskKey(this.opts.apiKey)})`);
    const res = await request.call(this.agent, {
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
      headersTimeout: this.opts.timeoutMs,
      bodyTimeout: this.opts.timeoutMs,
      ...(req.signal ? { signal: req.signal } : {}),
    });
    const text = await res.body.text();
    this.answered = true;
    const now = this.opts.now();
    const headers = res.headers as HeaderBag;
    this.opts.log.debug(`← ${res.statusCode} ${req.method} ${url.pathname} (${now - started} ms)`);
    const retryAfterMs = parseRetryAfter(headers['retry-after'], now);
    this.tell({ at: now, status: res.statusCode, retryAfterMs });
    return {
      status: res.statusCode,
      headers,
      body: parseBody(text),
      rateLimit: parseRateLimit(headers, now),
      retryAfterMs,
    };
  }

  private statusError(req: ApiRequest, answer: Attempt, attempts: number, ambiguousBefore = false): ApiError {
    const status = answer.status;
    const message = serverMessage(answer.body) ?? `${status} ${STATUS_TEXT[status] ?? ''}`.trim();
    const where = `${req.method} ${req.path.split('?')[0]}`;
    const details = { method: req.method, path: req.path, status, serverMessage: serverMessage(answer.body), body: answer.body, attempts };
    const code = codeForStatus(status);
    switch (code) {
      case 'unauthorized':
        return new ApiError(code, `the API refused the key (401): ${message}`, details, 'check the key: CALLCTL_API_KEY or callctl login');
      case 'forbidden':
        return new ApiError(code, `the key is not allowed to do this (403): ${message}`, details, 'use a key with the scope named above');
      case 'not_found': {
        const hint = ambiguousBefore ? 'an earlier attempt may already have done it' : 'check the id';
        return new ApiError(code, `not found (404) on ${where}: ${message}`, details, hint);
      }
      case 'rate_limited':
        return new ApiError(code, `still rate limited after ${MAX_THROTTLED_WAITS} waits on ${where}`, details, 'lower --rate or try again later');
      case 'server_error':
        return new ApiError(code, `server error (${status}) on ${where}: ${message}`, details, `tried ${attempts} time${attempts === 1 ? '' : 's'}; try again later`);
      default:
        return new ApiError(code, `rejected by the server (${status}) on ${where}: ${message}`, details, 'fix the value named above');
    }
  }

  private transportError(req: ApiRequest, code: 'network' | 'timeout', reason: string, attempts: number, notRetried: boolean): ApiError {
    const host = this.opts.baseUrl.host;
    const what = code === 'timeout' ? `no answer from ${host} within ${this.opts.timeoutMs} ms` : `cannot reach ${host}: ${reason}`;
    const hint = notRetried
      ? 'not retried: the request may have been applied, and repeating it could duplicate it'
      : `tried ${attempts} time${attempts === 1 ? '' : 's'}; check the network and --base-url`;
    return new ApiError(code, `${what} (${req.method} ${req.path.split('?')[0]})`, { method: req.method, path: req.path, attempts }, hint);
  }
}

interface Attempt {
  status: number;
  headers: HeaderBag;
  body: unknown;
  rateLimit: ReturnType<typeof parseRateLimit>;
  retryAfterMs: number | undefined;
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Builds the client of a command: checks the key and base URL before anything is sent. */
export async function createApiClient(input: { settings: Settings; deps: Deps; log: Logger }): Promise<ApiClient> {
  const { settings, deps, log } = input;
  const apiKey = checkSecretKey(settings.apiKey);
  log.addSecret(apiKey);
  const baseUrl = checkBaseUrl(settings.baseUrl);
  let shared: import('./shared-limiter.js').SharedBudget | undefined;
  if (settings.redisUrl !== undefined) {
    const { connectSharedLimiter, sharedLimiterId } = await import('./shared-limiter.js');
    shared = await connectSharedLimiter({ redisUrl: settings.redisUrl, id: sharedLimiterId(baseUrl.href, apiKey), log, required: settings.requireRedis });
  }
  return new ApiClient({
    shared,
    baseUrl,
    apiKey,
    concurrency: settings.concurrency,
    rate: settings.rate,
    timeoutMs: settings.timeoutMs,
    log,
    now: deps.now,
    sleep: deps.sleep,
  });
}
