/**
 * Profiles on disk, through conf. The file can hold a secret key, so it is always 0600 — conf's
 * default is 0666 minus umask, and an older file may have been made by hand, so the mode is
 * checked and fixed on every write.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { join } from 'node:path';
import { RuntimeError } from '../errors.js';
import type { Env } from '../deps.js';
import { envValue } from '../deps.js';

/** What one profile stores. Every field is optional: flags and environment can supply them. */
export interface Profile {
  apiKey?: string;
  baseUrl?: string;
  country?: string;
  currency?: string;
  /** The outcome vocabulary: comma-separated snake_case names. */
  outcomes?: string;
  rate?: number;
  concurrency?: number;
}

export const PROFILE_KEYS = ['baseUrl', 'country', 'currency', 'outcomes', 'rate', 'concurrency'] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];

interface StoreShape {
  profiles?: Record<string, Profile>;
}

interface ConfLike {
  path: string;
  get(key: 'profiles'): Record<string, Profile> | undefined;
  set(key: 'profiles', value: Record<string, Profile>): void;
}

/** The folder holding config.json: CALLCTL_CONFIG_DIR, else the platform's config folder. */
export function configDirFrom(env: Env): string | undefined {
  return envValue(env, 'CALLCTL_CONFIG_DIR');
}

/** The profiles file. Opened lazily: commands that need no profile never read it. */
export class ConfigStore {
  private constructor(private readonly conf: ConfLike) {}

  /** Opens (or prepares to create) the config file; turns conf's raw errors into one-line ones. */
  static async open(env: Env): Promise<ConfigStore> {
    const { default: Conf } = await import('conf');
    const cwd = configDirFrom(env);
    const where = cwd ? join(cwd, 'config.json') : 'the callctl config file';
    try {
      if (cwd) makeFolder(cwd);
      const conf = new Conf<StoreShape>({
        projectName: 'callctl',
        projectSuffix: '',
        configName: 'config',
        ...(cwd ? { cwd } : {}),
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
      });
      return new ConfigStore(conf as unknown as ConfLike);
    } catch (err) {
      throw configError(err, where);
    }
  }

  get path(): string {
    return this.conf.path;
  }

  /** All profiles, by name. */
  profiles(): Record<string, Profile> {
    try {
      const all = this.conf.get('profiles');
      return all && typeof all === 'object' ? all : {};
    } catch (err) {
      throw configError(err, this.path);
    }
  }

  /** One profile, empty when it does not exist. */
  profile(name: string): Profile {
    return this.profiles()[name] ?? {};
  }

  /** Replaces one profile (the whole object) and makes sure the file is 0600. */
  writeProfile(name: string, profile: Profile): void {
    const all = { ...this.profiles() };
    const clean = Object.fromEntries(Object.entries(profile).filter(([, v]) => v !== undefined)) as Profile;
    if (Object.keys(clean).length === 0) delete all[name];
    else all[name] = clean;
    try {
      this.conf.set('profiles', all);
      this.ensurePrivate();
    } catch (err) {
      throw configError(err, this.path);
    }
  }

  private ensurePrivate(): void {
    const mode = statSync(this.path).mode & 0o777;
    if (mode !== 0o600) chmodSync(this.path, 0o600);
  }
}

/**
 * Creates the config folder one level at a time. Node 20's `mkdirSync(…, {recursive: true})`
 * never returns on some paths (under /proc it loops on ENOENT at 100 % CPU), so the levels are
 * made here and the first refusal is reported.
 */
function makeFolder(dir: string): void {
  const missing: string[] = [];
  let at = dir;
  for (let depth = 0; depth < 64; depth++) {
    try {
      if (!statSync(at).isDirectory()) throw Object.assign(new Error(`${at} is not a folder`), { code: 'ENOTDIR' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      missing.unshift(at);
      const up = dirname(at);
      if (up === at) break;
      at = up;
    }
  }
  for (const level of missing) mkdirSync(level, { mode: 0o700 });
}

function configError(err: unknown, where: string): RuntimeError {
  const e = err as NodeJS.ErrnoException;
  if (e?.name === 'SyntaxError') {
    return new RuntimeError('config_corrupt', `${where} is not valid JSON`, 'fix it by hand, or remove it and run callctl login again');
  }
  if (e?.code === 'EACCES' || e?.code === 'EPERM' || e?.code === 'EROFS') {
    return new RuntimeError('config_unwritable', `cannot use ${where}: permission denied`, 'set CALLCTL_CONFIG_DIR to a folder you can write');
  }
  if (e?.code === 'ENOENT') {
    return new RuntimeError('config_bad_dir', `cannot create ${where}: a folder on the way cannot be made`, 'set CALLCTL_CONFIG_DIR to a folder you can write');
  }
  if (e?.code === 'ENOTDIR' || e?.code === 'EEXIST') {
    return new RuntimeError('config_bad_dir', `cannot use ${where}: a path on the way is not a folder`, 'set CALLCTL_CONFIG_DIR to a folder');
  }
  return new RuntimeError('config_error', `cannot use ${where}: ${e?.message ?? String(err)}`, 'check CALLCTL_CONFIG_DIR');
}
