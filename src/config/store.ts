/**
 * Profiles on disk. Reading is a plain JSON read of the file conf writes — most commands only
 * read a profile, and loading conf (with ajv and its schema compiler, ~290 KB bundled) cost more
 * than the rest of their start-up (BENCHMARKS.md §4). Writing (`login`, `config set|unset`) goes
 * through conf, loaded then. The file can hold a secret key, so it is always 0600 — conf's
 * default is 0666 minus umask, and an older file may have been made by hand, so the mode is
 * checked and fixed on every write.
 */
import { accessSync, chmodSync, constants, mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { AuthError, RuntimeError } from '../errors.js';
import type { Env } from '../deps.js';
import { envValue } from '../deps.js';
import { checkProfile, checkProfileName, isProfileName, type Profile } from './profile.js';

export type { Profile };

export const PROFILE_KEYS = ['baseUrl', 'country', 'currency', 'outcomes', 'rate', 'concurrency', 'jobsKept'] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];

interface StoreShape {
  profiles?: Record<string, Profile>;
}

interface ConfLike {
  path: string;
  get(key: 'profiles'): Record<string, Profile> | undefined;
  set(key: 'profiles', value: Record<string, Profile>): void;
}

/**
 * The folder holding config.json: CALLCTL_CONFIG_DIR, else the folder conf picks on its own
 * (env-paths for project "callctl", no suffix) — the same file whichever of the two reads it.
 */
function configDir(env: Env): string {
  const dir = envValue(env, 'CALLCTL_CONFIG_DIR');
  if (dir) return resolve(dir);
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'callctl');
  if (process.platform === 'win32') return join(envValue(env, 'APPDATA') ?? join(home, 'AppData', 'Roaming'), 'callctl', 'Config');
  return join(envValue(env, 'XDG_CONFIG_HOME') ?? join(home, '.config'), 'callctl');
}

/** The profiles file. Opened lazily: commands that need no profile never read it. */
export class ConfigStore {
  private conf: ConfLike | undefined;

  /**
   * The keychain service of this config file's keys: `callctl` for the usual place, and the
   * folder's path beside it for a CALLCTL_CONFIG_DIR — two config folders (and tests, each with
   * its own) never share, nor overwrite, an entry.
   */
  readonly keychainService: string;

  private constructor(
    readonly path: string,
    private data: StoreShape,
    custom: boolean,
  ) {
    this.keychainService = custom ? `callctl:${dirname(path)}` : 'callctl';
  }

  /** Reads the config file (none yet: no profiles); turns raw errors into one-line ones. */
  static async open(env: Env): Promise<ConfigStore> {
    const path = join(configDir(env), 'config.json');
    return new ConfigStore(path, readStore(path), envValue(env, 'CALLCTL_CONFIG_DIR') !== undefined);
  }

  /** The names of the stored profiles (a name that is not a plain word, written by hand, is left out). */
  names(): string[] {
    return Object.keys(this.stored()).filter(isProfileName);
  }

  /** One profile, checked (profile.ts): empty when it does not exist. */
  profile(name: string): Profile {
    const all = this.stored();
    return checkProfile(Object.hasOwn(all, name) ? all[name] : undefined, name, this.path);
  }

  /** One profile as stored, unchecked: what `config set|unset` and `login` change and write back. */
  rawProfile(name: string): Profile {
    const all = this.stored();
    const raw: unknown = Object.hasOwn(all, name) ? all[name] : undefined;
    return raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? { ...(raw as Profile) } : {};
  }

  private stored(): Record<string, unknown> {
    const all: unknown = this.data.profiles;
    return all !== null && typeof all === 'object' && !Array.isArray(all) ? (all as Record<string, unknown>) : {};
  }

  /** Replaces one profile (the whole object), through conf, and makes sure the file is 0600. */
  async writeProfile(name: string, profile: Profile): Promise<void> {
    checkProfileName(name, 'profile');
    const conf = await this.writer();
    try {
      const stored = conf.get('profiles');
      const all = { ...(stored && typeof stored === 'object' && !Array.isArray(stored) ? stored : {}) };
      const clean = Object.fromEntries(Object.entries(profile).filter(([, v]) => v !== undefined)) as Profile;
      if (Object.keys(clean).length === 0) delete all[name];
      else all[name] = clean;
      conf.set('profiles', all);
      this.data = { ...this.data, profiles: all };
      this.ensurePrivate();
    } catch (err) {
      throw configError(err, this.path);
    }
  }

  /** conf, loaded and opened on the first write: it creates the folder and writes atomically. */
  private async writer(): Promise<ConfLike> {
    if (this.conf) return this.conf;
    const { default: Conf } = await import('conf');
    try {
      const cwd = dirname(this.path);
      makeFolder(cwd);
      const conf = new Conf<StoreShape>({
        projectName: 'callctl',
        projectSuffix: '',
        configName: 'config',
        cwd,
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
      });
      this.conf = conf as unknown as ConfLike;
      return this.conf;
    } catch (err) {
      throw configError(err, this.path);
    }
  }

  /**
   * Refuses a key kept where others can read or change it (docs/commands/auth.md, "Where the key lives"), as ssh
   * refuses such a private key: the file holding it must be readable by its owner alone, and its
   * folder writable by its owner alone (else another user can put a file of their own in its
   * place). Exit 3, naming the `chmod` that makes it private again. Not on Windows, where these
   * modes mean nothing. `file: false`: the folder only (a key about to be written: the file is
   * made 0600 then).
   */
  checkKeyPrivate(file = true): void {
    if (process.platform === 'win32') return;
    const folder = dirname(this.path);
    const open = (path: string, bits: number) => {
      try {
        const mode = statSync(path).mode & 0o777;
        return (mode & bits) !== 0 ? mode : undefined;
      } catch {
        return undefined;
      }
    };
    const fileMode = file ? open(this.path, 0o077) : undefined;
    if (fileMode !== undefined) {
      throw new AuthError(`${this.path} holds the secret key and is open to other users (mode ${octal(fileMode)}): refused`, `make it private: chmod 600 ${shellPath(this.path)}`, 'key_file_open');
    }
    const folderMode = open(folder, 0o022);
    if (folderMode !== undefined) {
      throw new AuthError(`the folder of ${this.path}, which holds the secret key, can be written by other users (mode ${octal(folderMode)}): refused`, `make it private: chmod 700 ${shellPath(folder)}`, 'key_folder_open');
    }
  }

  private ensurePrivate(): void {
    const mode = statSync(this.path).mode & 0o777;
    if (mode !== 0o600) chmodSync(this.path, 0o600);
  }
}

/** A mode as `chmod` writes it: 0644. */
function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}

/** A path as typed in a shell: quoted when it holds anything but plain characters. */
function shellPath(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

/** The file's content; none yet is no profiles. Nothing is created by a read. */
function readStore(path: string): StoreShape {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw configError(err, path);
  }
  try {
    // As conf reads it: JSON (an empty file is not), anything but an object holds no profiles.
    const data: unknown = JSON.parse(text);
    return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as StoreShape) : {};
  } catch (err) {
    throw configError(err, path);
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

/** The nearest folder of `path` (itself included) that exists. */
function nearestFolder(path: string): string {
  let at = path;
  for (let depth = 0; depth < 64; depth++) {
    try {
      if (statSync(at).isDirectory()) return at;
    } catch {
      // not there (or not readable): look one level up
    }
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  return at;
}

/** Why `folder` cannot be written, when that is the cause: read-only file system, or permissions. */
function unwritable(folder: string): string | undefined {
  try {
    accessSync(folder, constants.W_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return `${folder} is on a read-only file system`;
    if (code === 'EACCES' || code === 'EPERM') return `${folder} is read-only for this user (permission denied)`;
    return undefined;
  }
}

/**
 * One line naming the real cause: a read-only folder is said to be read-only whatever code the
 * failed call gave (a missing folder under a read-only one can surface as ENOENT).
 */
function configError(err: unknown, where: string): RuntimeError {
  const e = err as NodeJS.ErrnoException;
  if (e?.name === 'SyntaxError') {
    return new RuntimeError('config_corrupt', `${where} is not valid JSON`, 'fix it by hand, or remove it and run callctl login again');
  }
  const hint = 'set CALLCTL_CONFIG_DIR to a folder you can write';
  const code = e?.code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOENT') {
    const folder = nearestFolder(dirname(where));
    const readOnly = code === 'EROFS' ? `${folder} is on a read-only file system` : unwritable(folder);
    if (readOnly !== undefined) return new RuntimeError('config_unwritable', `cannot write ${where}: ${readOnly}`, hint);
    if (code === 'ENOENT') return new RuntimeError('config_bad_dir', `cannot create ${where}: a folder on the way cannot be made`, hint);
    return new RuntimeError('config_unwritable', `cannot use ${where}: permission denied`, hint);
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new RuntimeError('config_unwritable', `cannot write ${where}: no space left on the device`, 'free some space, or set CALLCTL_CONFIG_DIR to another folder');
  }
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    return new RuntimeError('config_bad_dir', `cannot use ${where}: a path on the way is not a folder`, 'set CALLCTL_CONFIG_DIR to a folder');
  }
  return new RuntimeError('config_error', `cannot use ${where}: ${e?.message ?? String(err)}`, 'check CALLCTL_CONFIG_DIR');
}
