/**
 * One run of a job at a time (docs/commands/jobs.md, "Jobs"): a lock file beside the job's journal holds the
 * pid of the process running it, when it started, and — on Linux — the kernel's start time of that
 * process, so a pid reused by another program after a crash is not mistaken for the holder. A
 * second run finds the lock held by a live process and stops before anything is sent ("running in
 * process N", exit 2); a lock whose holder is dead (kill -9, a power cut) is taken over.
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { fullDiskError } from '../output/files.js';

export interface LockHolder {
  pid: number;
  /** When the holder took the lock (ISO). */
  at: string;
  /** Field 22 of /proc/<pid>/stat: the process's start in clock ticks since boot (Linux only). */
  since?: string | undefined;
}

/** The kernel's start time of a process, where /proc tells it; undefined elsewhere. */
function processStart(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** True when the process that wrote `h` still runs (and is the same process, where that can be told). */
export function alive(h: LockHolder): boolean {
  if (h.pid === process.pid) return true;
  try {
    process.kill(h.pid, 0);
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (h.since === undefined) return true;
  const now = processStart(h.pid);
  return now === undefined || now === h.since;
}

function parse(text: string): LockHolder | undefined {
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    return typeof h.pid === 'number' && Number.isInteger(h.pid) && h.pid > 0 && typeof h.at === 'string' ? (h as LockHolder) : undefined;
  } catch {
    return undefined;
  }
}

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** The live holder of a lock, if any (a lock left by a dead process holds nothing). */
export function lockHolder(path: string): LockHolder | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const h = parse(text);
  return h && alive(h) ? h : undefined;
}

export interface Lock {
  path: string;
  release(): void;
}

/** The error of a second run: exit 2, before anything is sent. */
export function runningError(what: string, h: LockHolder): UsageError {
  return new UsageError(`${what} is running in process ${h.pid} (since ${h.at})`, `one run of a job at a time: wait for it to end, or stop it (kill -INT ${h.pid}) and run again with --resume`, 'job_running');
}

/**
 * Takes the lock at `path` for this process, or throws `runningError` naming the live holder.
 * Creation is exclusive (O_EXCL); a stale lock is first moved aside, and only the process whose
 * move took the stale file (the same content it read) may create the new one.
 */
export function takeLock(path: string, what: string, now: () => number): Lock {
  const me: LockHolder = { pid: process.pid, at: new Date(now()).toISOString(), since: processStart('self') };
  for (let attempt = 0; attempt < 5; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let text = '';
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        continue; // removed meanwhile: try again
      }
      const h = parse(text);
      if (h && alive(h)) throw runningError(what, h);
      // An empty file is a lock its creator is writing this instant — unless it is old: a creator
      // that died between creating and writing it.
      if (text === '' && Date.now() - mtimeOf(path) < 5_000) throw new UsageError(`${what} is starting in another process`, 'one run of a job at a time: let that one run');
      const aside = `${path}.${process.pid}.stale`;
      try {
        renameSync(path, aside);
      } catch {
        continue;
      }
      let moved = '';
      try {
        moved = readFileSync(aside, 'utf8');
      } catch {
        // gone: nothing to compare
      }
      if (moved !== text) {
        // Another process took the stale lock over between the read and the move: put its lock back.
        try {
          renameSync(aside, path);
        } catch {
          // it will be seen as missing and taken again
        }
        const live = parse(moved);
        if (live && alive(live)) throw runningError(what, live);
        continue;
      }
      rmSync(aside, { force: true });
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(me));
    } catch (err) {
      // A lock that says nothing would hold the job back for seconds: none is left (a full disk).
      closeSync(fd);
      rmSync(path, { force: true });
      throw fullDiskError(err, path, 'the lock', 'free some space there, then run the same command again') ?? err;
    }
    closeSync(fd);
    return {
      path,
      release() {
        // Only our own lock: never one another process took over after us.
        const h = lockHolder(path);
        if (h === undefined || (h.pid === me.pid && h.at === me.at)) rmSync(path, { force: true });
      },
    };
  }
  throw new UsageError(`${what}: its lock ${path} keeps changing`, 'another callctl is starting the same job: let one of them run');
}
