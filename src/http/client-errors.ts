/**
 * The one error a request ends with when it does not succeed, worded for the operator: what
 * happened on which request, and a hint that fits the case — a 404 on a list is a wrong path or
 * base URL, on a record a wrong id; a refused certificate names NODE_EXTRA_CA_CERTS; an answer
 * that is not the API's says what stood in the way.
 */
import { ApiError, codeForStatus } from '../errors.js';
import type { AnswerShape } from './answer.js';
import type { TransportFailure } from './retry.js';

/** The request that failed, as errors name it. */
export interface Failing {
  method: string;
  path: string;
  shape?: AnswerShape | undefined;
}

/** The message a server put in its error body: `error.message`, `message`, or a string `error`. */
export function serverMessage(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return typeof body === 'string' && body.trim() && body.length < 300 && !body.trimStart().startsWith('<') ? body.trim() : undefined;
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

const where = (req: Failing) => `${req.method} ${req.path.split('?')[0]}`;
const times = (n: number) => `${n} time${n === 1 ? '' : 's'}`;

/** The error of an HTTP status that ends a request; `maxWaits` names the 429 guard. */
export function statusError(req: Failing, answer: { status: number; body: unknown }, o: { attempts: number; ambiguousBefore?: boolean; maxWaits: number }): ApiError {
  const status = answer.status;
  const message = serverMessage(answer.body) ?? `${status} ${STATUS_TEXT[status] ?? ''}`.trim();
  const details = { method: req.method, path: req.path, status, serverMessage: serverMessage(answer.body), body: answer.body, attempts: o.attempts };
  const code = codeForStatus(status);
  switch (code) {
    case 'unauthorized':
      return new ApiError(code, `the API refused the key (401): ${message}`, details, 'check the key: CALLCTL_API_KEY or callctl login');
    case 'forbidden':
      return new ApiError(code, `the key is not allowed to do this (403): ${message}`, details, 'use a key with the scope named above');
    case 'not_found':
      return new ApiError(code, `not found (404) on ${where(req)}: ${message}`, details, notFoundHint(req, o.ambiguousBefore === true));
    case 'rate_limited':
      return new ApiError(code, `still rate limited after ${o.maxWaits} waits on ${where(req)}`, details, 'lower --rate or try again later');
    case 'server_error':
      return new ApiError(code, `server error (${status}) on ${where(req)}: ${message}`, details, `tried ${times(o.attempts)}; try again later`);
    default:
      return new ApiError(code, `rejected by the server (${status}) on ${where(req)}: ${message}`, details, status >= 300 && status < 400 ? 'the API does not redirect: check --base-url (a proxy or a login page in the way?)' : 'fix the value named above');
  }
}

/** A 404 of a record is a wrong id; of a list (or a path the CLI does not know), a wrong path or base URL. */
function notFoundHint(req: Failing, ambiguousBefore: boolean): string {
  if (ambiguousBefore) return 'an earlier attempt may already have done it';
  if (req.shape?.names === 'record') return 'check the id';
  const base = '--base-url or CALLCTL_BASE_URL, which ends in /api/v1';
  return req.shape?.names === 'collection' ? `nothing answers at this path: check ${base}` : `check the path, which is under the base URL, and ${base}`;
}

/** The error of a transport failure: no connection, a dropped one, a timeout, a refused certificate. */
export function transportError(req: Failing, f: TransportFailure, o: { host: string; timeoutMs: number; attempts: number; notRetried: boolean; final: boolean; proxy?: string | undefined }): ApiError {
  const details = { method: req.method, path: req.path, attempts: o.attempts, final: o.final };
  const at = `(${where(req)})`;
  if (f.kind === 'tls') {
    const hint = f.untrusted
      ? 'a network that inspects TLS has a CA of its own: put its certificate (PEM) in NODE_EXTRA_CA_CERTS'
      : 'check --base-url (the certificate is for another name, or out of date); a CA of your own goes in NODE_EXTRA_CA_CERTS';
    return new ApiError('tls', `the TLS certificate of ${o.host} was refused: ${f.reason} ${at}`, details, hint);
  }
  if (f.kind === 'proxy') {
    return new ApiError('network', `cannot reach ${o.host} through the proxy ${o.proxy ?? ''}: ${f.reason} ${at}`.replace('  ', ' '), details, 'check the proxy (HTTPS_PROXY, HTTP_PROXY), its credentials, and NO_PROXY');
  }
  if (f.kind === 'host_not_found') {
    return new ApiError('network', `cannot reach ${o.host}: no such host ${at}`, details, 'the name does not resolve: check --base-url or CALLCTL_BASE_URL, and the network');
  }
  if (f.kind === 'refused' && o.proxy !== undefined) {
    return new ApiError('network', `cannot reach the proxy ${o.proxy}: connection refused ${at}`, details, 'check HTTPS_PROXY / HTTP_PROXY (or NO_PROXY for this host)');
  }
  if (f.kind === 'refused') {
    return new ApiError('network', `cannot reach ${o.host}: connection refused ${at}`, details, 'nothing listens on that port of this machine: check --base-url or CALLCTL_BASE_URL, and that the server (callctl sandbox?) is running');
  }
  const what = f.code === 'timeout' ? `no answer from ${o.host} within ${o.timeoutMs} ms` : `cannot reach ${o.host}: ${f.reason}`;
  const hint = o.notRetried ? 'not retried: the request may have been applied, and repeating it could duplicate it' : `tried ${times(o.attempts)}; check the network and --base-url`;
  return new ApiError(f.code, `${what} ${at}`, details, hint);
}

/**
 * An answer that is not the API's: once alone (a row fails, retried as a fault), `final` after a
 * few in a row (the job stops: whatever stands in the way answers every request alike).
 */
export function notApiError(req: Failing, answer: { status: number; body: unknown; contentType: string | undefined }, why: string, o: { attempts: number; final: boolean }): ApiError {
  // No status: a page's 404 is not the API's "not found", and its 200 no success.
  const details = { method: req.method, path: req.path, body: answer.body, attempts: o.attempts, final: o.final };
  const seen = `${where(req)} answered ${answer.status}${answer.contentType ? ` ${answer.contentType.split(';')[0]}` : ''}`;
  return new ApiError('not_api', 'the service answered with something that is not the API', details, `${why} ${seen}`);
}

/**
 * An answer refused before it is read whole or parsed (docs/network.md, "Bounds"): larger than
 * --max-answer, or nested deeper than any API answer. Not retried — the next answer would be the
 * same — and `final`: a bulk job stops rather than meet it row after row.
 */
export function refusedError(req: Failing, refusal: { why: 'too_large' | 'too_deep'; message: string }, o: { attempts: number }): ApiError {
  const details = { method: req.method, path: req.path, attempts: o.attempts, final: true };
  if (refusal.why === 'too_large') {
    return new ApiError('answer_too_large', `the answer to ${where(req)} is ${refusal.message}: refused`, details, 'raise --max-answer (in MB) if the service\'s answers are that large; else check --base-url');
  }
  return new ApiError('answer_too_deep', `the answer to ${where(req)} is ${refusal.message}: refused`, details, 'no answer of the API nests so deep: is --base-url the API\'s?');
}

/**
 * A bulk job's outage past its patience (outage.ts): nothing but failures for that long — a
 * service that accepts connections and never answers, or answers only 5xx. `final`: the job
 * stops, every row not done is left to --resume.
 */
export function outageError(req: Failing, reason: string, downMs: number, attempts: number): ApiError {
  const details = { method: req.method, path: req.path, attempts, final: true };
  const minutes = Math.round(downMs / 6_000) / 10;
  return new ApiError('service_down', `the service has answered nothing but failures for ${minutes} min (last: ${reason} on ${where(req)})`, details, 'stopped: run the same command with --resume once it answers again');
}
