/**
 * The dispatcher of a proxied client: undici's own EnvHttpProxyAgent, loaded only when a proxy
 * is set (start-up pays nothing otherwise), given the variables from the command's environment
 * (proxy.ts: lower case first, empty unset) rather than reading process.env behind them.
 */
import type { Agent, Dispatcher } from 'undici';
import type { ProxyEnv } from './proxy.js';

export async function proxyAgent(vars: ProxyEnv, options: Agent.Options): Promise<Dispatcher> {
  const [{ default: EnvHttpProxyAgent }, { default: DispatcherBase }, { default: connect }] = await Promise.all([
    import('undici/lib/dispatcher/env-http-proxy-agent.js'),
    import('undici/lib/dispatcher/dispatcher.js'),
    import('undici/lib/api/api-connect.js'),
  ]);
  // undici's index gives every dispatcher its API methods, and the proxy opens its tunnel with
  // `connect`; callctl loads undici's files one by one (client.ts), so that one is given here.
  const proto = DispatcherBase.prototype as { connect?: unknown };
  proto.connect ??= connect;
  return new EnvHttpProxyAgent({ ...options, httpProxy: vars.http?.url ?? '', httpsProxy: vars.https?.url ?? '', noProxy: vars.noProxy });
}
