/** `callctl config list`: every setting in effect, and where it comes from. */
import type { Context } from '../../context.js';
import { explainSettings, type Sourced } from '../../config/settings.js';
import { proxyEnv, proxyFor } from '../../http/proxy.js';
import { isLoopbackHost } from '../../http/safety.js';
import { KEYS, shown, whence } from './keys.js';

/**
 * The proxy requests to the base URL go through (http/proxy.ts), and where it comes from — or,
 * when a proxy variable is set but this base URL goes direct, why.
 */
function proxyInEffect(baseUrl: string | undefined, env: Parameters<typeof proxyFor>[1]): { value: string | null; source: string } | undefined {
  const vars = proxyEnv(env);
  if (!vars.http && !vars.https) return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl ?? '');
  } catch {
    return undefined;
  }
  const chosen = proxyFor(url, env);
  if (chosen) return { value: chosen.shown, source: `env ${chosen.variable}` };
  return { value: null, source: isLoopbackHost(url.hostname) ? 'a loopback base URL goes direct' : `NO_PROXY names ${url.hostname}` };
}

export async function run(ctx: Context): Promise<number> {
  const store = await ctx.config();
  const name = ctx.profileName;
  const out = ctx.deps.io.stdout;
  const effective = explainSettings(ctx.globals, ctx.deps.env, store.profile(name));
  const entries = KEYS.flatMap((k) => {
    const s: Sourced<unknown> | undefined = effective[k];
    return s ? [[k, shown(k, s.value), s] as const] : [];
  });
  const proxy = proxyInEffect(effective.baseUrl?.value, ctx.deps.env);
  if (ctx.format === 'json') {
    const sources = { ...Object.fromEntries(entries.map(([k, , s]) => [k, whence(s)])), ...(proxy ? { proxy: proxy.source } : {}) };
    out.write(`${JSON.stringify({ profile: name, ...Object.fromEntries(entries.map(([k, v, s]) => [k, k === 'apiKey' ? v : s.value])), ...(proxy ? { proxy: proxy.value } : {}), sources }, null, 2)}\n`);
  } else {
    const lines: Array<readonly [string, string]> = entries.map(([k, v, s]) => [`${k}=${v}`, whence(s)]);
    if (proxy) lines.push([`proxy=${proxy.value ?? 'none'}`, proxy.source]);
    const width = Math.max(0, ...lines.map(([kv]) => kv.length));
    out.write(lines.map(([kv, from]) => `${kv.padEnd(width)}  (${from})\n`).join(''));
    ctx.log.info(`profile "${name}" (${whence(effective.profile)}) — profiles: ${store.names().join(', ') || 'none yet'}`);
  }
  return 0;
}
