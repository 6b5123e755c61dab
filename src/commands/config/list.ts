/** `callctl config list`: every setting in effect, and where it comes from. */
import type { Context } from '../../context.js';
import { explainSettings, type Sourced } from '../../config/settings.js';
import { KEYS, shown, whence } from './keys.js';

export async function run(ctx: Context): Promise<number> {
  const store = await ctx.config();
  const name = ctx.profileName;
  const out = ctx.deps.io.stdout;
  const effective = explainSettings(ctx.globals, ctx.deps.env, store.profile(name));
  const entries = KEYS.flatMap((k) => {
    const s: Sourced<unknown> | undefined = effective[k];
    return s ? [[k, shown(k, s.value), s] as const] : [];
  });
  if (ctx.format === 'json') {
    const sources = Object.fromEntries(entries.map(([k, , s]) => [k, whence(s)]));
    out.write(`${JSON.stringify({ profile: name, ...Object.fromEntries(entries.map(([k, v, s]) => [k, k === 'apiKey' ? v : s.value])), sources }, null, 2)}\n`);
  } else {
    const width = Math.max(0, ...entries.map(([k, v]) => k.length + 1 + v.length));
    out.write(entries.map(([k, v, s]) => `${`${k}=${v}`.padEnd(width)}  (${whence(s)})\n`).join(''));
    ctx.log.info(`profile "${name}" (${whence(effective.profile)}) — profiles: ${store.names().join(', ') || 'none yet'}`);
  }
  return 0;
}
