/**
 * Deps: everything callctl takes from the outside world. Only `systemDeps()` touches `process`;
 * tests build their own Deps to run `main()` in-process.
 */
import type { Readable, Writable } from 'node:stream';

export interface OutStream extends Writable {
  isTTY?: boolean;
  columns?: number;
}
export interface InStream extends Readable {
  isTTY?: boolean;
  setRawMode?: (mode: boolean) => unknown;
}

export interface Io {
  stdin: InStream;
  stdout: OutStream;
  stderr: OutStream;
}

export type Env = Readonly<Record<string, string | undefined>>;
export type SignalName = 'SIGINT' | 'SIGTERM';

export interface Deps {
  io: Io;
  env: Env;
  cwd: string;
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with an AbortError when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Subscribes to a process signal while a command runs; returns the unsubscribe function. */
  onSignal(signal: SignalName, handler: () => void): () => void;
}

/** node:timers/promises, loaded by the first sleep: `--help` never waits (BENCHMARKS.md §4). */
let timers: Promise<typeof import('node:timers/promises')> | undefined;

/** The Deps of a real process. */
export function systemDeps(): Deps {
  return {
    // process.stdin is made on first access (a stream over the fd): only commands that read it pay.
    io: {
      get stdin() {
        return process.stdin;
      },
      stdout: process.stdout,
      stderr: process.stderr,
    },
    env: process.env,
    cwd: process.cwd(),
    now: () => Date.now(),
    async sleep(ms, signal) {
      const { setTimeout: delay } = await (timers ??= import('node:timers/promises'));
      await delay(ms, undefined, signal ? { signal } : undefined);
    },
    onSignal(signal, handler) {
      process.on(signal, handler);
      return () => {
        process.off(signal, handler);
      };
    },
  };
}

/** An environment variable, with an empty value counted as unset (docs/cli.md, precedence). */
export function envValue(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}
