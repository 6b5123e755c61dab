/**
 * What a profile may hold, and the checks made when one is read (docs/commands/auth.md,
 * "Profiles: names and values"): a name is a plain word, never a property every object has or a
 * piece of a path; a value of the wrong type or out of range is named with its profile and file, so a hand-edited
 * file gives one clear line instead of an error deep inside a library.
 */
import { RuntimeError, UsageError } from '../errors.js';

/** Where the key of a profile is kept in the system keychain: the entry's service and account. */
export interface KeychainRef {
  service: string;
  account: string;
}

/** What one profile stores. Every field is optional: flags and environment can supply them. */
export interface Profile {
  /** The key itself, in the 0600 file (`--insecure-storage`, no keychain reachable, or an earlier version). */
  apiKey?: string;
  /** Where the key is when it is in the system keychain (then `apiKey` is absent). */
  keychain?: KeychainRef;
  baseUrl?: string;
  country?: string;
  currency?: string;
  /** The outcome vocabulary: comma-separated snake_case names. */
  outcomes?: string;
  rate?: number;
  concurrency?: number;
  /** Finished job records kept (the newest); unset: every one of the last 30 days. */
  jobsKept?: number;
}

/** Letters, digits, `_` and `-` (a `.` inside), up to 64: nothing a path or an object could read otherwise. */
const PLAIN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Names every JavaScript object answers to: a profile called so would read or replace them. */
const RESERVED = new Set(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString']);

/** True for a name a profile may have. */
export function isProfileName(name: string): boolean {
  return PLAIN.test(name) && !RESERVED.has(name) && !name.includes('..');
}

/** The name, or a usage error (exit 2) saying where it came from and what a name may be. */
export function checkProfileName(name: string, from: string): string {
  if (isProfileName(name)) return name;
  const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
  const why = RESERVED.has(name) ? 'a name every object has' : 'not a plain word';
  throw new UsageError(`profile name ${shown} (${from}) is ${why}`, 'use letters, digits, "-" and "_", e.g. --profile staging', 'bad_profile_name');
}

/** One check per stored setting: undefined when the value is right, else what it should be. */
const CHECKS: Record<keyof Profile, (v: unknown) => string | undefined> = {
  apiKey: (v) => (typeof v === 'string' && v.trim() !== '' ? undefined : 'a secret key (sk_live_…) as a string'),
  keychain: (v) =>
    v !== null && typeof v === 'object' && typeof (v as KeychainRef).service === 'string' && typeof (v as KeychainRef).account === 'string'
      ? undefined
      : 'an object {"service", "account"} naming the keychain entry',
  baseUrl: (v) => (typeof v === 'string' && v.trim() !== '' ? undefined : 'a URL as a string, e.g. "https://api.example.com/api/v1"'),
  country: (v) => (typeof v === 'string' && /^[A-Za-z]{2}$/.test(v) ? undefined : 'a two-letter region code as a string, e.g. "GB"'),
  currency: (v) => (typeof v === 'string' && /^[A-Za-z]{3}$/.test(v) ? undefined : 'a three-letter currency code as a string, e.g. "EUR"'),
  outcomes: (v) => (typeof v === 'string' ? undefined : 'outcome names as one comma-separated string'),
  rate: (v) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? undefined : 'a number of requests per second above 0'),
  concurrency: (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 64 ? undefined : 'an integer from 1 to 64'),
  jobsKept: (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 ? undefined : 'a whole number of finished jobs to keep, 1 or more'),
};

/** How to set a value right again, by setting. */
const FIX: Record<keyof Profile, string> = {
  apiKey: 'run callctl login again',
  keychain: 'run callctl login again',
  baseUrl: 'fix it with callctl config set baseUrl <url>',
  country: 'fix it with callctl config set country <CC>, or config unset country',
  currency: 'fix it with callctl config set currency <CODE>, or config unset currency',
  outcomes: 'fix it with callctl config set outcomes a,b,c, or config unset outcomes',
  rate: 'fix it with callctl config set rate <n>, or config unset rate',
  concurrency: 'fix it with callctl config set concurrency <n>, or config unset concurrency',
  jobsKept: 'fix it with callctl config set jobsKept <n>, or config unset jobsKept',
};

/** A value as it may be shown in a message: short, and never a key. */
function showValue(key: string, v: unknown): string {
  if (key === 'apiKey' || key === 'keychain') return typeof v === 'object' && v !== null ? (Array.isArray(v) ? 'an array' : 'an object') : `a ${v === null ? 'null' : typeof v}`;
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * The profile as stored, checked: unknown settings are left alone (a newer version may have
 * written them), a known one of the wrong type is an error naming it, its profile and the file.
 */
export function checkProfile(raw: unknown, name: string, file: string): Profile {
  if (raw === undefined) return {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new RuntimeError('config_bad_value', `profile "${name}" in ${file} is ${showValue('', raw)}, not an object of settings`, 'fix the file by hand, or remove the profile from it');
  }
  const out: Profile = {};
  for (const key of Object.keys(CHECKS) as Array<keyof Profile>) {
    if (!Object.hasOwn(raw, key)) continue;
    const v = (raw as Record<string, unknown>)[key];
    if (v === undefined) continue;
    const wrong = CHECKS[key](v);
    if (wrong !== undefined) {
      throw new RuntimeError('config_bad_value', `${key} in profile "${name}" (${file}) is ${showValue(key, v)}: it must be ${wrong}`, FIX[key]);
    }
    (out as Record<string, unknown>)[key] = v;
  }
  return out;
}
