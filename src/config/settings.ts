/**
 * Resolves every setting with one precedence rule: flag > environment > profile > built-in
 * default (docs/cli.md, "Invocation and global options"). An empty environment variable counts as unset. `explainSettings`
 * says where each value in effect comes from, for `callctl config list`.
 */
import type { Env } from '../deps.js';
import { envValue } from '../deps.js';
import { UsageError } from '../errors.js';
import { checkProfileName, type KeychainRef, type Profile } from './profile.js';

/** The global options as commander parsed them (strings already turned into numbers). */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  json?: boolean;
  format?: string;
  /** --csv-raw: no formula guard in CSV output (src/output/csv-guard.ts). */
  csvRaw?: boolean;
  rate?: number;
  concurrency?: number;
  timeout?: number;
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean;
  redisUrl?: string;
  requireRedis?: boolean;
  /** --max-pause, in seconds. */
  maxPause?: number;
  /** --max-answer, in MB. */
  maxAnswer?: number;
}

export interface Settings {
  profileName: string;
  baseUrl: string | undefined;
  /** The key from CALLCTL_API_KEY or the file; a key in the keychain is read by the API client's maker (context.ts). */
  apiKey: string | undefined;
  /** Where the key in effect lives; absent when there is none. */
  keyStorage?: KeyStorage | undefined;
  /** The keychain entry, when that is where the key lives. */
  keychain?: KeychainRef | undefined;
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
  /** Finished job records to keep (`config set jobsKept`); undefined: those of the last 30 days. */
  jobsKept: number | undefined;
  /** --max-pause in seconds: a 429 pause longer than this stops the command (client.ts has the default). */
  maxPause?: number | undefined;
  /** --max-answer in bytes: a larger answer is refused (docs/network.md, "Bounds"). */
  maxAnswerBytes: number;
}

/** Where a key lives (`auth status`'s words): the system keychain, the 0600 file, or CALLCTL_API_KEY. */
export type KeyStorage = 'keychain' | 'file' | 'env';

export const DEFAULTS = { profile: 'default', concurrency: 4, timeoutMs: 30_000, maxAnswerMb: 64 } as const;

/**
 * The most each option of a wait or a size may be set to (docs/network.md, "Bounds"); beyond, exit
 * 2. A pause or a timeout stays far below a timer's range (2³¹ ms, about 24 days), and an answer
 * read whole stays within memory.
 */
export const CEILINGS = { maxPauseS: 86_400, timeoutMs: 3_600_000, maxAnswerMb: 1_024 } as const;

/** Shown for a key kept in the keychain, which `config list|get` never read. */
export const IN_KEYCHAIN = '(in the system keychain)';

/** The profile name alone, checked (a plain word): needed before the config file is read. */
export function profileName(globals: GlobalOptions, env: Env): string {
  if (globals.profile !== undefined) return checkProfileName(globals.profile, '--profile');
  const fromEnv = envValue(env, 'CALLCTL_PROFILE');
  return fromEnv !== undefined ? checkProfileName(fromEnv, 'CALLCTL_PROFILE') : DEFAULTS.profile;
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

export type SettingSource = 'flag' | 'env' | 'profile' | 'default';

/** A value in effect and where it came from: `origin` names the flag, variable or profile. */
export interface Sourced<T> {
  value: T;
  source: SettingSource;
  origin: string;
}

/** The first candidate that has a value, in precedence order. */
function first<T>(...candidates: Array<[T | undefined, SettingSource, string]>): Sourced<T> | undefined {
  for (const [value, source, origin] of candidates) if (value !== undefined) return { value, source, origin };
  return undefined;
}

/** The settings `config list` shows, each with its source; absent when nothing sets it. */
export interface ExplainedSettings {
  profile: Sourced<string>;
  baseUrl?: Sourced<string>;
  apiKey?: Sourced<string>;
  country?: Sourced<string>;
  currency?: Sourced<string>;
  outcomes?: Sourced<string>;
  rate?: Sourced<number>;
  concurrency?: Sourced<number>;
  jobsKept?: Sourced<number>;
}

/** Where each setting in effect comes from: flag > environment > profile > default. */
export function explainSettings(globals: GlobalOptions, env: Env, profile: Profile): ExplainedSettings {
  const name = profileName(globals, env);
  const inProfile = `profile "${name}"`;
  const out: ExplainedSettings = {
    profile: first<string>([globals.profile, 'flag', '--profile'], [envValue(env, 'CALLCTL_PROFILE'), 'env', 'CALLCTL_PROFILE'], [DEFAULTS.profile, 'default', 'default'])!,
  };
  const baseUrl = first<string>([globals.baseUrl, 'flag', '--base-url'], [envValue(env, 'CALLCTL_BASE_URL'), 'env', 'CALLCTL_BASE_URL'], [profile.baseUrl, 'profile', inProfile]);
  const apiKey = first<string>(
    [envValue(env, 'CALLCTL_API_KEY'), 'env', 'CALLCTL_API_KEY'],
    [profile.apiKey, 'profile', inProfile],
    [profile.keychain ? IN_KEYCHAIN : undefined, 'profile', inProfile],
  );
  const country = first<string>([profile.country, 'profile', inProfile]);
  const currency = first<string>([profile.currency, 'profile', inProfile]);
  const outcomes = first<string>([profile.outcomes, 'profile', inProfile]);
  const rate = first<number>([globals.rate, 'flag', '--rate'], [envNumber(env, 'CALLCTL_RATE', false), 'env', 'CALLCTL_RATE'], [profile.rate, 'profile', inProfile]);
  const concurrency = first<number>([globals.concurrency, 'flag', '--concurrency'], [profile.concurrency, 'profile', inProfile], [DEFAULTS.concurrency, 'default', 'default']);
  if (baseUrl) out.baseUrl = baseUrl;
  if (apiKey) out.apiKey = apiKey;
  if (country) out.country = country;
  if (currency) out.currency = currency;
  if (outcomes) out.outcomes = outcomes;
  if (rate) out.rate = rate;
  if (concurrency) out.concurrency = concurrency;
  const jobsKept = first<number>([profile.jobsKept, 'profile', inProfile]);
  if (jobsKept) out.jobsKept = jobsKept;
  return out;
}

/** Merges flags, environment and the profile into the settings a command runs with. */
export function resolveSettings(globals: GlobalOptions, env: Env, profile: Profile): Settings {
  const e = explainSettings(globals, env, profile);
  const fromEnv = e.apiKey?.source === 'env';
  const keyStorage: KeyStorage | undefined = fromEnv ? 'env' : profile.apiKey !== undefined ? 'file' : profile.keychain ? 'keychain' : undefined;
  return {
    profileName: e.profile.value,
    baseUrl: e.baseUrl?.value,
    apiKey: keyStorage === 'keychain' ? undefined : e.apiKey?.value,
    keyStorage,
    keychain: keyStorage === 'keychain' ? profile.keychain : undefined,
    rate: e.rate?.value,
    concurrency: e.concurrency?.value ?? DEFAULTS.concurrency,
    timeoutMs: globals.timeout ?? DEFAULTS.timeoutMs,
    country: profile.country,
    currency: profile.currency,
    outcomes: profile.outcomes ? profile.outcomes.split(',').filter((o) => o !== '') : undefined,
    redisUrl: globals.redisUrl ?? envValue(env, 'CALLCTL_REDIS_URL'),
    requireRedis: globals.requireRedis === true,
    jobsKept: typeof profile.jobsKept === 'number' && Number.isInteger(profile.jobsKept) && profile.jobsKept > 0 ? profile.jobsKept : undefined,
    maxPause: globals.maxPause,
    maxAnswerBytes: (globals.maxAnswer ?? DEFAULTS.maxAnswerMb) * 1024 * 1024,
  };
}
