/** Starts the sandbox in the test's process on a free loopback port, closed when the test ends. */
import type { Readable } from 'node:stream';
import { request } from 'undici';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { tempDir } from './cli.js';

type After = { after(fn: () => unknown): void };

export async function startTestSandbox(t: After, opts: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await startSandbox({ port: 0, ...opts });
  t.after(() => sb.close());
  return sb;
}

/** The environment that points the CLI at a sandbox with its full-scope key and a fresh config dir. */
export function envFor(sb: Sandbox, t: After, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey, CALLCTL_CONFIG_DIR: tempDir(t), ...extra };
}

export interface SandboxAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export interface SandboxRequest {
  /** Bearer key: the secret key unless given; null sends none. */
  key?: string | null;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (with `type`, default application/json). */
  raw?: string | Buffer | Readable;
  type?: string;
  widget?: string;
}

/**
 * One request to a sandbox over loopback, the way a client sends it. `path` is under /api/v1
 * unless it starts with /api/public or /_sandbox.
 */
export async function sandboxRequest(sb: Sandbox, method: string, path: string, opts: SandboxRequest = {}): Promise<SandboxAnswer> {
  const headers: Record<string, string> = {};
  const key = opts.key === undefined ? sb.secretKey : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (opts.widget) headers['x-widget-key'] = opts.widget;
  const body = opts.body !== undefined ? JSON.stringify(opts.body) : opts.raw;
  if (body !== undefined) headers['content-type'] = opts.type ?? 'application/json';
  const url = path.startsWith('/api/public') || path.startsWith('/_sandbox') ? `${sb.origin}${path}` : `${sb.baseUrl}${path}`;
  const res = await request(url, { method: method as 'GET', headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}
