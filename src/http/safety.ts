/**
 * The checks made before any request leaves the machine: the key is a REST secret key, and it
 * only travels over https or to this machine (docs/cli.md, "Keys and safety").
 */
import { isIP } from 'node:net';
import { AuthError, UsageError } from '../errors.js';
import { maskKey, SECRET_KEY_PREFIX } from '../output/mask.js';

export { maskKey, SECRET_KEY_PREFIX };

/** Throws AuthError (exit 3) unless `key` is a REST secret key. */
export function checkSecretKey(key: string | undefined): string {
  if (key === undefined || key.trim() === '') {
    throw new AuthError('no API key', 'set CALLCTL_API_KEY or run callctl login with a secret key (sk_live_…)', 'no_key');
  }
  const k = key.trim();
  if (k.startsWith('pk_')) {
    throw new AuthError(
      'that is a publishable widget key; the REST API needs a secret key (sk_live_…)',
      'create a secret key under API keys in the dashboard',
      'wrong_key_kind',
    );
  }
  if (!k.startsWith(SECRET_KEY_PREFIX) || k.length === SECRET_KEY_PREFIX.length) {
    throw new AuthError(
      'that is not a REST secret key; it must start with sk_live_',
      'create a secret key under API keys in the dashboard',
      'wrong_key_kind',
    );
  }
  if (/[\s\u0000-\u001f\u007f]/.test(k)) {
    throw new AuthError('the API key contains spaces or control characters', 'copy the key again without extra characters', 'wrong_key_kind');
  }
  return k;
}

/** True for localhost, 127.0.0.0/8 and ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * Parses and checks the base URL: http(s), ends in /api/v1, and — because the key goes with every
 * request — https, or http only to a loopback host. Returns it without a trailing slash.
 */
export function checkBaseUrl(raw: string | undefined): URL {
  if (raw === undefined || raw.trim() === '') {
    throw new UsageError('no base URL', 'pass --base-url https://…/api/v1, set CALLCTL_BASE_URL, or run callctl login --base-url …', 'no_base_url');
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`base URL is not a URL: ${raw}`, 'it looks like https://host/api/v1', 'bad_base_url');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`base URL must be http(s): ${url.protocol}`, 'it looks like https://host/api/v1', 'bad_base_url');
  }
  if (url.username || url.password) {
    throw new UsageError('base URL must not carry a user or password', 'the key goes in CALLCTL_API_KEY or callctl login', 'bad_base_url');
  }
  if (url.search || url.hash) {
    throw new UsageError('base URL must not carry a query or fragment', 'it looks like https://host/api/v1', 'bad_base_url');
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/api/v1')) {
    throw new UsageError(`base URL must end in /api/v1: ${url.origin}${url.pathname}`, `try ${url.origin}${v1Path(path)}`, 'bad_base_url');
  }
  url.pathname = path;
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new AuthError(
      `refusing to send the key over plain http to ${url.host}`,
      'use https://, or http:// only to localhost/127.0.0.1/[::1]',
      'insecure_base_url',
    );
  }
  return url;
}

/**
 * The /api/v1 path an operator most likely meant: another version's (`/api/v2`, `/v2`, `/api/v1.1`)
 * becomes /api/v1, an endpoint's URL is cut at /api/v1, `/api` gains `/v1`, anything else gains
 * `/api/v1`.
 */
function v1Path(path: string): string {
  const endpoint = /^(.*?\/api\/v1)\//i.exec(path);
  if (endpoint) return endpoint[1] as string;
  const version = /^(.*?)(\/api)?\/v\d[\w.-]*$/i.exec(path);
  if (version) return `${version[1]}/api/v1`;
  if (/\/api$/i.test(path)) return `${path}/v1`;
  return `${path}/api/v1`;
}
