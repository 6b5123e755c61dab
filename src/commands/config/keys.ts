/**
 * The settings `callctl config` knows: their names, how a value is checked before it is stored,
 * how one is shown (the key masked), and where one in effect comes from.
 */
import { UsageError } from '../../errors.js';
import { PROFILE_KEYS } from '../../config/store.js';
import { IN_KEYCHAIN, type Sourced } from '../../config/settings.js';
import { maskKey } from '../../output/mask.js';

export const KEYS = [...PROFILE_KEYS, 'apiKey'] as const;
export type Key = (typeof KEYS)[number];

export function checkKey(key: string | undefined): Key {
  if (key === undefined) throw new UsageError('which setting?', `one of ${KEYS.join(', ')}`);
  const known = KEYS.find((k) => k === key);
  if (known === undefined) throw new UsageError(`unknown setting "${key}"`, `one of ${KEYS.join(', ')}`);
  return known;
}

export async function parseValue(key: Key, value: string): Promise<string | number> {
  switch (key) {
    case 'apiKey':
      throw new UsageError('the key is set with callctl login, never on the command line', 'echo "$KEY" | callctl login');
    case 'baseUrl': {
      const { checkBaseUrl } = await import('../../http/safety.js');
      return checkBaseUrl(value).href.replace(/\/+$/, '');
    }
    case 'country': {
      const { regionOf } = await import('../../phone/e164.js');
      return regionOf(value, undefined, 'country') as string;
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
    case 'jobsKept': {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new UsageError('jobsKept must be a whole number of finished jobs to keep, 1 or more', 'unset it to keep those of the last 30 days');
      return n;
    }
  }
}

export function shown(key: Key, value: unknown): string {
  if (value === undefined) return '';
  return key === 'apiKey' && value !== IN_KEYCHAIN ? maskKey(String(value)) : String(value);
}

/** `flag --base-url`, `env CALLCTL_BASE_URL`, `profile "default"`, `default`. */
export function whence(s: Sourced<unknown>): string {
  return s.source === 'profile' || s.source === 'default' ? s.origin : `${s.source} ${s.origin}`;
}

/** Where a setting could come from, for "not set" messages. */
export const SET_BY: Record<Key, string> = {
  baseUrl: '--base-url, CALLCTL_BASE_URL or callctl config set baseUrl',
  apiKey: 'CALLCTL_API_KEY or callctl login',
  country: 'callctl config set country',
  currency: 'callctl config set currency',
  outcomes: 'callctl config set outcomes booked_job,no_answer,…',
  rate: '--rate, CALLCTL_RATE or callctl config set rate; unset means adaptive',
  concurrency: '--concurrency or callctl config set concurrency',
  jobsKept: 'callctl config set jobsKept N; unset means every finished job of the last 30 days',
};

