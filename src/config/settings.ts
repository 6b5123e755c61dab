/**
 * Resolves every setting with one precedence rule: flag > environment > profile > built-in
 * default (cli.md). An empty environment variable counts as unset.
 */
import type { Env } from '../deps.js';
import { envValue } from '../deps.js';
import { UsageError } from '../errors.js';
import type { Profile } from './store.js';

/** The global options as commander parsed them (strings already turned into numbers). */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  json?: boolean;
  format?: string;
  rate?: number;
  concurrency?: number;
  timeout?: number;
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean;
  redisUrl?: string;
  requireRedis?: boolean;
}

export interface Settings {
  profileName: string;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  /** Requests-per-second ceiling; undefined means adaptive. */
  rate: number | undefined;
  concurrency: number;
  timeoutMs: number;
  country: string | undefined;
  currency: string | undefined;
  /** The outcome vocabulary (`config set outcomes`), when set: outcomes outside it are refused. */
  outcomes: string[] | undefined;
  redisUrl: string | undefined;
  /** --require-redis: without the shared budget, stop (exit 1) instead of pacing alone. */
  requireRedis: boolean;
}

export const DEFAULTS = { profile: 'default', concurrency: 4, timeoutMs: 30_000 } as const;

/** The profile name alone: needed before the config file is read. */
export function profileName(globals: GlobalOptions, env: Env): string {
  return globals.profile ?? envValue(env, 'CALLCTL_PROFILE') ?? DEFAULTS.profile;
}

/** A positive number from an environment variable, or a usage error naming the variable. */
function envNumber(env: Env, name: string, integer: boolean): number | undefined {
  const raw = envValue(env, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${name} must be a positive ${integer ? 'integer' : 'number'}: ${raw}`, `unset it or set e.g. ${name}=10`);
  }
  return n;
}

/** Merges flags, environment and the profile into the settings a command runs with. */
export function resolveSettings(globals: GlobalOptions, env: Env, profile: Profile): Settings {
  return {
    profileName: profileName(globals, env),
    baseUrl: globals.baseUrl ?? envValue(env, 'CALLCTL_BASE_URL') ?? profile.baseUrl,
    apiKey: envValue(env, 'CALLCTL_API_KEY') ?? profile.apiKey,
    rate: globals.rate ?? envNumber(env, 'CALLCTL_RATE', false) ?? profile.rate,
    concurrency: globals.concurrency ?? profile.concurrency ?? DEFAULTS.concurrency,
    timeoutMs: globals.timeout ?? DEFAULTS.timeoutMs,
    country: profile.country,
    currency: profile.currency,
    outcomes: profile.outcomes ? profile.outcomes.split(',').filter((o) => o !== '') : undefined,
    redisUrl: globals.redisUrl ?? envValue(env, 'CALLCTL_REDIS_URL'),
    requireRedis: globals.requireRedis === true,
  };
}
