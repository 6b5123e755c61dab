/**
 * The options of the dispatcher every request goes through — the client's own Agent or the proxy
 * agent (proxy-agent.ts): connections, keep-alive, and the timeouts of docs/network.md (a connect
 * timeout of a few seconds, a first-byte and an idle-body timeout of --timeout).
 */
import type { LookupFunction } from 'node:net';
import type { Agent } from 'undici';

/** A connection not open after this long is given up (and retried, if the request may be). */
const CONNECT_TIMEOUT_MS = 5_000;

/** The options of the Agent (or proxy agent) every request goes through. */
export function agentOptions(o: { concurrency: number; timeoutMs: number; lookup?: LookupFunction | undefined }): Agent.Options {
  return {
    connections: o.concurrency,
    keepAliveTimeout: 10_000,
    headersTimeout: o.timeoutMs,
    bodyTimeout: o.timeoutMs,
    connect: { timeout: Math.min(o.timeoutMs, CONNECT_TIMEOUT_MS), ...(o.lookup ? { lookup: o.lookup } : {}) },
  };
}
