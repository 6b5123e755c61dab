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
/** The signals a job ends on as on Ctrl-C: SIGTERM (a service manager, kill) and SIGHUP (a closed terminal, a dropped ssh session). */
export type SignalName = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

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

/**
 * The longest delay a Node timer takes: a longer one fires at once, with a TimeoutOverflowWarning
 * (docs/network.md, "Bounds") — a pause asked in days became a busy loop.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Sleeps `ms` as timers of at most MAX_TIMER_MS each, so that no wait, however long, is set as
 * one timer; `delay` is one timer (node:timers/promises' setTimeout). Ends with the signal's abort.
 */
export async function sleepInPieces(ms: number, signal: AbortSignal | undefined, delay: (ms: number, signal?: AbortSignal) => Promise<unknown>): Promise<void> {
  let left = Number.isNaN(ms) ? 0 : ms;
  do {
    const piece = Math.max(0, Math.min(left, MAX_TIMER_MS));
    await delay(piece, signal);
    left -= piece;
  } while (left > 0);
}

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
      await sleepInPieces(ms, signal, (piece, s) => delay(piece, undefined, s ? { signal: s } : undefined));
    },
    onSignal(signal, handler) {
      const on = signal === 'SIGHUP' ? () => (process.once('exit', letGoOfHungUpTerminal), handler()) : handler;
      process.on(signal, on);
      return () => {
        process.off(signal, on);
      };
    },
  };
}

/**
 * After a SIGHUP the terminal is gone, and Node 20 aborts at exit restoring the terminal's mode
 * (tcsetattr fails with EIO: nodejs/node#51519, fixed in Node 24 by #58200): a job that ended
 * cleanly — journal flushed, lock let go — exited 134 instead of 130. A descriptor of a terminal
 * that hung up (a character device no longer a tty) is pointed at /dev/null before Node's
 * teardown, which then leaves it alone (it only restores the file it found at start).
 */
function letGoOfHungUpTerminal(): void {
  const fs = process.getBuiltinModule('node:fs');
  const tty = process.getBuiltinModule('node:tty');
  for (const fd of [0, 1, 2]) {
    try {
      if (!fs.fstatSync(fd).isCharacterDevice() || tty.isatty(fd)) continue;
      fs.closeSync(fd);
      fs.openSync('/dev/null', fd === 0 ? 'r' : 'w'); // the lowest free descriptor: this one
    } catch {
      // closed already: nothing to restore
    }
  }
}

/** An environment variable, with an empty value counted as unset (docs/cli.md, "Invocation and global options"). */
export function envValue(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}
