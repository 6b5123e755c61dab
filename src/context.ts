/**
 * What a command receives: the outside world (deps), the parsed global options, a logger, and
 * lazy services. Nothing is read or connected until a command asks for it, so `--help` and
 * `--version` never touch the config file or load the HTTP stack.
 */
import { dirname } from 'node:path';
import type { Deps } from './deps.js';
import { envValue } from './deps.js';
import { InterruptedError, UsageError } from './errors.js';
import type { GlobalOptions, Settings } from './config/settings.js';
import { profileName, resolveSettings } from './config/settings.js';
// store.ts is light (conf loads only to write), and completion needs it on the start-up path anyway.
import { ConfigStore } from './config/store.js';
import type { ApiClient } from './http/client.js';
import { OUTPUT_FORMATS, type OutputFormat } from './output/format-check.js';
import { Logger } from './output/log.js';

export class Context {
  readonly log: Logger;
  private configStore: Promise<ConfigStore> | undefined;
  private resolved: Promise<Settings> | undefined;
  private client: Promise<ApiClient> | undefined;
  private key: Promise<string | undefined> | undefined;
  private signalsOff: (() => void) | undefined;
  private stoppedEarly: InterruptedError | undefined;
  private readonly closers: Array<() => Promise<void> | void> = [];

  constructor(
    readonly deps: Deps,
    readonly globals: GlobalOptions,
  ) {
    const verbosity = globals.verbose ? 'verbose' : globals.quiet ? 'quiet' : 'normal';
    const color = globals.color !== false && envValue(deps.env, 'NO_COLOR') === undefined && deps.io.stderr.isTTY === true;
    this.log = new Logger(deps.io.stderr, verbosity, color);
    this.log.addSecret(envValue(deps.env, 'CALLCTL_API_KEY'));
  }

  /** The output format for data on stdout: --json wins, then --format, else table. */
  get format(): OutputFormat {
    if (this.globals.json) return 'json';
    const f = this.globals.format ?? 'table';
    if (!(OUTPUT_FORMATS as readonly string[]).includes(f)) {
      throw new UsageError(`unknown --format ${f}`, `use one of ${OUTPUT_FORMATS.join(', ')}`);
    }
    return f as OutputFormat;
  }

  /** --csv-raw: CSV cells written as stored, without the formula guard (writers' WriteOptions). */
  get csvRaw(): boolean {
    return this.globals.csvRaw === true;
  }

  /** True when a spinner or progress line may be drawn on stderr. */
  get animated(): boolean {
    const e = this.deps.io.stderr;
    return e.isTTY === true && (e.columns ?? 0) > 0 && this.log.verbosity !== 'quiet' && envValue(this.deps.env, 'CI') === undefined && this.deps.env.TERM !== 'dumb';
  }

  get profileName(): string {
    return profileName(this.globals, this.deps.env);
  }

  /** The profiles file, opened on first use. */
  config(): Promise<ConfigStore> {
    this.configStore ??= ConfigStore.open(this.deps.env);
    return this.configStore;
  }

  /** Flags > environment > profile > defaults. Reads the config file once. */
  settings(): Promise<Settings> {
    this.resolved ??= this.config().then((store) => {
      const profile = store.profile(this.profileName);
      this.log.addSecret(profile.apiKey);
      return resolveSettings(this.globals, this.deps.env, profile);
    });
    return this.resolved;
  }

  /**
   * The key in effect, wherever it lives (config/key.ts `readKey`), read once: a key in the system
   * keychain is read only by the commands that need the key, and only when they ask (docs/commands/auth.md, "Where the key lives").
   */
  apiKey(): Promise<string | undefined> {
    this.key ??= this.settings().then(async (settings) => {
      // A key file others can read or write is refused, as ssh refuses such a key (docs/commands/auth.md, "Where the key lives").
      if (settings.keyStorage === 'file') (await this.config()).checkKeyPrivate();
      const { readKey } = await import('./config/key.js');
      const key = await readKey(settings);
      this.log.addSecret(key);
      return key;
    });
    return this.key;
  }

  /** The API client: key and base URL checked, limiter built. Nothing is sent until a request. */
  api(): Promise<ApiClient> {
    this.client ??= (async () => {
      const settings = { ...(await this.settings()), apiKey: await this.apiKey() };
      const configDir = dirname((await this.config()).path);
      const { createApiClient } = await import('./http/client.js');
      const client = await createApiClient({ settings, deps: this.deps, log: this.log, configDir });
      this.onClose(() => client.close());
      return client;
    })();
    return this.client;
  }

  /**
   * From now until the rows start (`rowsStart`), SIGINT, SIGTERM and SIGHUP stop `client` at once —
   * the listing a bulk job reads first (--check-existing, an erasure's or undo's contacts), the
   * first request — with exit 130, as the engine does once rows are under way: the command's
   * cleanup runs (lock let go, a new job's journal removed: nothing was sent). Without it a signal
   * there killed the process and left its lock behind (docs/network.md, "Bounds").
   */
  guardSignals(client: ApiClient, before: string): void {
    if (this.signalsOff !== undefined) return;
    const offs = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((name) =>
        this.deps.onSignal(name, () => {
        this.stoppedEarly ??= new InterruptedError(`interrupted (${name}) ${before}`, 'nothing was changed by this run: run the same command again');
        client.interrupt(this.stoppedEarly);
      }),
    );
    this.signalsOff = () => offs.forEach((off) => off());
    this.onClose(() => {
      this.signalsOff?.();
    });
  }

  /** The rows start: the engine answers signals from now on (src/bulk/engine.ts); a signal met before stops the command here. */
  rowsStart(): void {
    this.signalsOff?.();
    this.signalsOff = () => undefined;
    if (this.stoppedEarly) throw this.stoppedEarly;
  }

  /** Registers cleanup to run when the command ends, however it ends. */
  onClose(fn: () => Promise<void> | void): void {
    this.closers.push(fn);
  }

  async close(): Promise<void> {
    for (const fn of this.closers.splice(0).reverse()) {
      try {
        await fn();
      } catch {
        // Cleanup must not hide the command's own result.
      }
    }
  }
}
