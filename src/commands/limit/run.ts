/**
 * `callctl limit [forget]`: what callctl knows of the service's rate limit for this base URL and key
 * (docs/pacing.md, "The memory"), or — `forget` — drops it. Nothing is sent.
 */
import { dirname } from 'node:path';
import type { Context } from '../../context.js';
import { EXIT } from '../../errors.js';
import { checkBaseUrl, checkSecretKey, maskKey } from '../../http/safety.js';
import { requireFormat } from '../../output/format-check.js';
import { knownLimit, limitJson, limitLines, openMemory } from '../../pace/index.js';
import type { LimitOptions } from './options.js';

export async function run(ctx: Context, o: LimitOptions): Promise<number> {
  requireFormat(`callctl limit${o.forget ? ' forget' : ''}`, ctx.globals, o.forget ? [] : ['table', 'json'], o.forget ? 'nothing on stdout' : 'the limit, or JSON with --json');
  const settings = await ctx.settings();
  const apiKey = checkSecretKey(await ctx.apiKey());
  const baseUrl = checkBaseUrl(settings.baseUrl).href;
  const memory = openMemory({ dir: dirname((await ctx.config()).path), baseUrl, apiKey, warn: (l) => ctx.log.warn(l), debug: (l) => ctx.log.debug(l) });
  const where = `${baseUrl} with the key ${maskKey(apiKey)}`;
  if (o.forget) {
    ctx.log.info(memory.forget() ? `forgot the rate limit remembered for ${where}` : `nothing was remembered for ${where}`);
    return EXIT.ok;
  }
  const known = knownLimit(memory.load(), settings.rate);
  if (known === undefined) {
    ctx.log.error(`callctl: nothing is known of the rate limit for ${where} yet (the next job learns it; --rate sets a ceiling)`);
    return EXIT.notFound;
  }
  if (ctx.format === 'json') ctx.deps.io.stdout.write(`${JSON.stringify(limitJson(baseUrl, known))}\n`);
  else ctx.deps.io.stdout.write(`${[`${where}:`, ...limitLines(known).map((l) => `  ${l}`)].join('\n')}\n`);
  return EXIT.ok;
}
