/**
 * `callctl config <get|set|unset|list|path> [key] [value]`: the settings of the current profile.
 * The key is never shown in full (masked), and is only ever set through `callctl login`. `list`
 * and `get` show the value in effect — the one commands use — and where it comes from (flag, env,
 * profile, default), so `CALLCTL_BASE_URL` set in the shell is what `config list` shows.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { PROFILE_KEYS, type Profile } from '../../config/store.js';
import { explainSettings, type ExplainedSettings, type Sourced } from '../../config/settings.js';
import { maskKey } from '../../output/mask.js';
import { requireFormat } from '../../output/format-check.js';

const KEYS = [...PROFILE_KEYS, 'apiKey'] as const;
type Key = (typeof KEYS)[number];

function checkKey(key: string | undefined): Key {
  if (key === undefined) throw new UsageError('which setting?', `one of ${KEYS.join(', ')}`);
  if (!(KEYS as readonly string[]).includes(key)) throw new UsageError(`unknown setting "${key}"`, `one of ${KEYS.join(', ')}`);
  return key as Key;
}

async function parseValue(key: Key, value: string): Promise<string | number> {
  switch (key) {
    case 'apiKey':
      throw new UsageError('the key is set with callctl login, never on the command line', 'echo "$KEY" | callctl login');
    case 'baseUrl': {
      const { checkBaseUrl } = await import('../../http/safety.js');
      return checkBaseUrl(value).href.replace(/\/+$/, '');
    }
    case 'country': {
      const { isRegion } = await import('../../phone/e164.js');
      if (!isRegion(value)) throw new UsageError(`"${value}" is not a region code`, 'use ISO 3166 alpha-2, e.g. GB or US');
      return value.toUpperCase();
    }
    case 'currency': {
      const { isCurrency } = await import('../../writeback/check.js');
      if (!isCurrency(value.toUpperCase())) throw new UsageError(`"${value}" is not an ISO 4217 currency code`, 'e.g. USD, EUR, GBP');
      return value.toUpperCase();
    }
    case 'outcomes': {
      const { snakeCase } = await import('../../writeback/check.js');
      const names = value.split(',').map((o) => o.trim()).filter((o) => o !== '');
      if (names.length === 0) throw new UsageError('give the outcome names, comma-separated', 'e.g. booked_job,no_answer,quote_sent');
      const bad = names.find((o) => snakeCase(o) !== o);
      if (bad !== undefined) throw new UsageError(`outcome "${bad}" is not snake_case`, `use ${snakeCase(bad) || 'e.g. booked_job'}`);
      return [...new Set(names)].join(',');
    }
    case 'rate': {
      const n = Number(value);
      if (!Number.isFinite(n) || n <= 0) throw new UsageError('rate must be a number of requests per second above 0');
      return n;
    }
    case 'concurrency': {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError('concurrency must be an integer from 1 to 64');
      return n;
    }
  }
}

function shown(key: Key, value: unknown): string {
  if (value === undefined) return '';
  return key === 'apiKey' ? maskKey(String(value)) : String(value);
}

/** `flag --base-url`, `env CALLCTL_BASE_URL`, `profile "default"`, `default`. */
function whence(s: Sourced<unknown>): string {
  return s.source === 'profile' || s.source === 'default' ? s.origin : `${s.source} ${s.origin}`;
}

/** Where a setting could come from, for "not set" messages. */
const SET_BY: Record<Key, string> = {
  baseUrl: '--base-url, CALLCTL_BASE_URL or callctl config set baseUrl',
  apiKey: 'CALLCTL_API_KEY or callctl login',
  country: 'callctl config set country',
  currency: 'callctl config set currency',
  outcomes: 'callctl config set outcomes booked_job,no_answer,…',
  rate: '--rate, CALLCTL_RATE or callctl config set rate; unset means adaptive',
  concurrency: '--concurrency or callctl config set concurrency',
};

export async function run(ctx: Context, args: string[]): Promise<number> {
  const [action, rawKey, value] = args as [string, string | undefined, string | undefined];
  if (action === 'list' || action === 'get') requireFormat(`callctl config ${action}`, ctx.globals, ['table', 'json'], 'settings as key=value lines, or JSON with --json');
  else requireFormat(`callctl config ${action}`, ctx.globals, [], action === 'path' ? 'a path' : 'nothing on stdout');
  const store = await ctx.config();
  const name = ctx.profileName;
  const out = ctx.deps.io.stdout;
  const profile: Profile = store.profile(name);

  switch (action) {
    case 'path':
      out.write(`${store.path}\n`);
      return 0;
    case 'list': {
      const effective = explainSettings(ctx.globals, ctx.deps.env, profile);
      const entries = KEYS.flatMap((k) => {
        const s = effective[k as keyof ExplainedSettings] as Sourced<unknown> | undefined;
        return s ? [[k, shown(k, s.value), s] as const] : [];
      });
      if (ctx.format === 'json') {
        const sources = Object.fromEntries(entries.map(([k, , s]) => [k, whence(s)]));
        out.write(`${JSON.stringify({ profile: name, ...Object.fromEntries(entries.map(([k, v, s]) => [k, k === 'apiKey' ? v : s.value])), sources }, null, 2)}\n`);
      } else {
        const width = Math.max(0, ...entries.map(([k, v]) => k.length + 1 + v.length));
        out.write(entries.map(([k, v, s]) => `${`${k}=${v}`.padEnd(width)}  (${whence(s)})\n`).join(''));
        ctx.log.info(`profile "${name}" (${whence(effective.profile)}) — profiles: ${Object.keys(store.profiles()).join(', ') || 'none yet'}`);
      }
      return 0;
    }
    case 'get': {
      const key = checkKey(rawKey);
      const s = explainSettings(ctx.globals, ctx.deps.env, profile)[key] as Sourced<unknown> | undefined;
      if (s === undefined) {
        ctx.log.info(`${key} is not set (set it with ${SET_BY[key]})`);
        return 0;
      }
      if (ctx.format === 'json') out.write(`${JSON.stringify({ key, value: key === 'apiKey' ? shown(key, s.value) : s.value, source: whence(s) })}\n`);
      else {
        out.write(`${shown(key, s.value)}\n`);
        ctx.log.info(`(from ${whence(s)})`);
      }
      return 0;
    }
    case 'set': {
      const key = checkKey(rawKey);
      if (value === undefined) throw new UsageError(`config set ${key} needs a value`);
      const parsed = await parseValue(key, value);
      store.writeProfile(name, { ...profile, [key]: parsed });
      ctx.log.info(`${key} set to ${String(parsed)} in profile "${name}"`);
      const hidden = explainSettings(ctx.globals, ctx.deps.env, { ...profile, [key]: parsed })[key] as Sourced<unknown> | undefined;
      if (hidden && hidden.source !== 'profile') ctx.log.warn(`${whence(hidden)} takes precedence over the profile: commands use ${shown(key, hidden.value)}`);
      return 0;
    }
    case 'unset': {
      const key = checkKey(rawKey);
      const next = { ...profile };
      delete next[key];
      store.writeProfile(name, next);
      ctx.log.info(`${key} unset in profile "${name}"`);
      return 0;
    }
  }
  throw new UsageError(`unknown action ${action}`, 'get, set, unset, list or path');
}
