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
  /**
   * What no retry can heal (docs/network.md): a name that does not resolve,
   * a certificate refused, a proxy refusing the tunnel. `refused`: a refused connection, which
   * cannot heal only when nothing on this machine ever answered (the client decides).
   */
  kind?: 'host_not_found' | 'tls' | 'proxy' | 'refused';
  /** A certificate not trusted (as opposed to a TLS failure of another kind): names NODE_EXTRA_CA_CERTS. */
  untrusted?: boolean;
}

/** Connection never made: the server cannot have seen the request. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT', 'CALLCTL_DEADLINE']);

/**
 * An attempt past its deadline, body included (--timeout): undici's bodyTimeout is per gap between
 * chunks, and a body trickled a byte a second never met it.
 */
export class AttemptDeadline extends Error {
  readonly code = 'CALLCTL_DEADLINE';
  constructor(ms: number) {
    super(`no whole answer within ${ms} ms`);
  }
}
/** OpenSSL's verdicts on a certificate chain that is not trusted here (a private or inspecting CA). */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_UNTRUSTED', 'CERT_REJECTED', 'CERT_SIGNATURE_FAILURE', 'CERT_CHAIN_TOO_LONG', 'INVALID_CA',
]);
/** Other certificate verdicts: the right CA, the wrong certificate (another name, out of date). */
const CERT_OTHER = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_FORMAT', 'HOSTNAME_MISMATCH']);

/** The codes of an error and of its causes (undici wraps a tunnel's TLS error in one of its own). */
function codesOf(err: unknown): string[] {
  const codes: string[] = [];
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string') codes.push(e.code);
  }
  return codes;
}

/** Describes an error thrown by the transport; undefined for errors that are not transport failures. */
export function transportFailure(err: unknown): TransportFailure | undefined {
  const codes = codesOf(err);
  const code = codes[0];
  if (code === undefined) return undefined;
  const tls = codes.find((c) => UNTRUSTED.has(c) || CERT_OTHER.has(c) || c.startsWith('ERR_SSL_') || (c.startsWith('ERR_TLS_') && c !== 'ERR_TLS_HANDSHAKE_TIMEOUT'));
  if (tls !== undefined) {
    // Node 24 appends its own advice ("; if the root CA is installed locally, try running Node.js
    // with --use-system-ca"): the hint says what to do, in one line, on every Node.
    const message = (deepestMessage(err) ?? tls).replace(/; if the root CA is installed locally.*$/s, '');
    return { code: 'network', ambiguous: false, reason: `${message} (${tls})`, kind: 'tls', untrusted: UNTRUSTED.has(tls) };
  }
  const proxy = /Proxy response \((\d+)\)/.exec((err as Error)?.message ?? '');
  if (proxy) return { code: 'network', ambiguous: false, reason: `the proxy refused the tunnel (${proxy[1]})`, kind: 'proxy' };
  if (NEVER_SENT.has(code)) {
    if (code === 'ENOTFOUND') return { code: 'network', ambiguous: false, reason: 'no such host', kind: 'host_not_found' };
    if (code === 'ECONNREFUSED') return { code: 'network', ambiguous: false, reason: 'connection refused', kind: 'refused' };
    return { code: 'network', ambiguous: false, reason: code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect timed out' : code };
  }
  if (TIMEOUTS.has(code)) return { code: 'timeout', ambiguous: true, reason: 'timed out' };
  if (code.startsWith('UND_ERR') || code.startsWith('E')) {
    const reason = code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' ? 'connection dropped' : code;
    return { code: 'network', ambiguous: true, reason };
  }
  return undefined;
}

function deepestMessage(err: unknown): string | undefined {
  let message: string | undefined;
  for (let e = err as { message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.message === 'string' && e.message.trim() !== '') message = e.message.trim().replace(/[:\s]+$/, '');
  }
  return message;
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
