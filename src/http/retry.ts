/**
 * What may be tried again, and when. A failure is *ambiguous* when the request may have reached
 * the server (a timeout, a dropped connection, a 5xx): repeating it is only safe when repeating
 * cannot change the outcome — an idempotent method, or a POST the caller vouches for (an import
 * row with an E.164 phone, which the service matches instead of duplicating).
 */
import { backoffMs as backoff } from '../pace/index.js';

/** Attempts for one request, the first included (the contract asks for at least 5). */
export const MAX_ATTEMPTS = 6;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;

/** Methods whose repeat leaves the server as one request would. PATCH here sets absolute values. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH']);

export interface TransportFailure {
  /** Stable code: `network` or `timeout`. */
  code: 'network' | 'timeout';
  /** True when the request may have been processed. */
  ambiguous: boolean;
  /** What happened, for a person. */
  reason: string;
}

/** Connection never made: the server cannot have seen the request. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** Describes an error thrown by the transport; undefined for errors that are not transport failures. */
export function transportFailure(err: unknown): TransportFailure | undefined {
  const e = err as { code?: string; cause?: { code?: string }; message?: string; name?: string };
  const code = e?.code ?? e?.cause?.code;
  if (code === undefined) return undefined;
  if (NEVER_SENT.has(code)) {
    const reason = code === 'ECONNREFUSED' ? 'connection refused' : code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect timed out' : code === 'ENOTFOUND' ? 'host not found' : code;
    return { code: 'network', ambiguous: false, reason };
  }
  if (TIMEOUTS.has(code)) return { code: 'timeout', ambiguous: true, reason: 'timed out' };
  if (code.startsWith('UND_ERR') || code.startsWith('E')) {
    const reason = code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' ? 'connection dropped' : code;
    return { code: 'network', ambiguous: true, reason };
  }
  return undefined;
}

/** Whether a failed attempt may be repeated. */
export function mayRetry(method: string, safePost: boolean, ambiguous: boolean): boolean {
  if (!ambiguous) return true;
  return IDEMPOTENT.has(method.toUpperCase()) || safePost;
}

/** Wait before attempt `attempt + 1` (1-based): the one back-off (src/pace/backoff.ts). */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  return backoff(attempt, BACKOFF_BASE_MS, BACKOFF_CAP_MS, random);
}
