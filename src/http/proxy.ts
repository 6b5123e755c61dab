/**
 * The proxy a request to the API goes through, read from the environment as curl, gh and npm read
 * it: `HTTPS_PROXY` for an https base URL (else `HTTP_PROXY`, as undici does), lower case before
 * upper, `NO_PROXY` naming hosts (and `host:port`, `.domain`, `*`) that go direct. A loopback base
 * URL never goes through a proxy: the key may travel over plain http only to this machine.
 * The request itself goes through undici's own EnvHttpProxyAgent (client.ts), given the same
 * values; this file decides what `-v` and `config list` show, by undici's rules.
 */
import type { Env } from '../deps.js';
import { envValue } from '../deps.js';
import { UsageError } from '../errors.js';
import { isLoopbackHost } from './safety.js';

/** The proxy variables in effect (empty counts as unset), each with the name it was read from. */
export interface ProxyEnv {
  http?: { url: string; variable: string };
  https?: { url: string; variable: string };
  noProxy: string;
}

/** The proxy chosen for a base URL: its URL, the variable that named it, and how it is shown. */
export interface ProxyChoice {
  url: string;
  variable: string;
  /** The URL with any password masked: for -v and `config list`. */
  shown: string;
}

function variable(env: Env, name: string): { url: string; variable: string } | undefined {
  for (const v of [name.toLowerCase(), name.toUpperCase()]) {
    const value = envValue(env, v);
    if (value !== undefined) return { url: normalise(value.trim(), v), variable: v };
  }
  return undefined;
}

/** `proxy:3128` means http://proxy:3128 (as curl reads it); only http(s) proxies are taken. */
function normalise(raw: string, name: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(`${name} is not a URL: ${mask(raw)}`, 'it looks like http://proxy.example:3128');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${name} must be an http:// or https:// proxy, not ${url.protocol}`, 'it looks like http://proxy.example:3128');
  return url.href;
}

/** A URL with its password (or a lone user token) masked. */
function mask(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '****';
    else if (url.username) url.username = '****';
    return url.href.replace(/\/$/, '');
  } catch {
    return raw.replace(/\/\/[^@/]*@/, '//****@');
  }
}

/** The proxy variables of the environment. */
export function proxyEnv(env: Env): ProxyEnv {
  const out: ProxyEnv = { noProxy: envValue(env, 'no_proxy') ?? envValue(env, 'NO_PROXY') ?? '' };
  const http = variable(env, 'HTTP_PROXY');
  const https = variable(env, 'HTTPS_PROXY');
  if (http) out.http = http;
  if (https) out.https = https;
  return out;
}

/** NO_PROXY as undici reads it: `*` for every host, else host names (a leading `.`/`*.` for a domain), each maybe with a port. */
function bypassed(noProxy: string, hostname: string, port: number): boolean {
  const entries = noProxy.split(/[,\s]/).filter((e) => e !== '');
  if (noProxy.trim() === '*') return true;
  const host = hostname.toLowerCase();
  return entries.some((entry) => {
    const m = /^(.+):(\d+)$/.exec(entry);
    const name = (m ? (m[1] as string) : entry).replace(/^\*?\./, '').toLowerCase();
    if (m && Number(m[2]) !== port) return false;
    return host === name || host.endsWith(`.${name}`);
  });
}

/** The proxy requests to `base` go through, or undefined: none set, NO_PROXY, or a loopback host. */
export function proxyFor(base: URL, env: Env): ProxyChoice | undefined {
  if (isLoopbackHost(base.hostname)) return undefined;
  const vars = proxyEnv(env);
  const chosen = base.protocol === 'https:' ? (vars.https ?? vars.http) : vars.http;
  if (!chosen) return undefined;
  const host = base.host.replace(/:\d*$/, '');
  const port = Number(base.port) || (base.protocol === 'https:' ? 443 : 80);
  if (bypassed(vars.noProxy, host, port)) return undefined;
  return { ...chosen, shown: mask(chosen.url) };
}
