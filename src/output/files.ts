/**
 * The files a job reads and writes (docs/cli.md, "Data and files"): never one of its own
 * inputs — a rejects file named like the source would replace the rows still being read — and a
 * file made whole by a run goes to `<path>.partial`, renamed into place when the run closes it, so
 * neither a reader nor a crash ever meets half of one at its name. Every text written passes the
 * logger's masking (`redact`), as stderr does: a key a server echoes never lands in a file.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, statSync, type Stats, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { RuntimeError, UsageError } from '../errors.js';

/** Masks the secrets of a text (the Logger's `redact`). */
export type Redact = (text: string) => string;

/** A file a job reads: by path, or by descriptor (stdin). `what` names it in a message. */
export interface JobInput {
  what: string;
  path?: string | undefined;
  fd?: number | undefined;
}

/**
 * A file a job writes: by path (absolute; `shown` as the operator typed it), or by descriptor
 * (stdout redirected to a file). `what` is how the operator names it (`--rejects`, `stdout`).
 */
export interface JobOutput {
  what: string;
  path?: string | undefined;
  shown?: string | undefined;
  fd?: number | undefined;
}

/** The descriptor of a stream of the process (stdin, stdout), when it has one. */
export function fdOf(stream: unknown): number | undefined {
  const fd = (stream as { fd?: unknown } | undefined)?.fd;
  return typeof fd === 'number' ? fd : undefined;
}

function statOf(o: { path?: string | undefined; fd?: number | undefined }): Stats | undefined {
  try {
    if (o.path !== undefined) return statSync(o.path);
    if (o.fd !== undefined) return fstatSync(o.fd);
  } catch {
    // Not there (yet): it is no input, and nothing to compare.
  }
  return undefined;
}

/** Where a file that may not exist yet would be: its folder's real path and its name. */
function placeOf(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return resolve(path);
  }
}

/**
 * Exit 2, before anything is sent, when an output is one of the inputs — the same file however it
 * is named (a symlink, a hard link, `./x` and `x`: same device and inode) — or a folder, or the
 * same file as another output.
 */
export function refuseOutputsOverInputs(inputs: JobInput[], outputs: JobOutput[]): void {
  const read = inputs.flatMap((i) => {
    const st = statOf(i);
    return st ? [{ what: i.what, dev: st.dev, ino: st.ino }] : [];
  });
  const taken = new Map<string, JobOutput>();
  for (const out of outputs) {
    const st = statOf(out);
    const named = `${out.what}${out.path !== undefined ? ` ${out.shown ?? out.path}` : ''}`;
    if (st?.isDirectory()) throw new UsageError(`${named} is a folder`, `give a file's name for ${out.what}; nothing was sent`);
    const input = st?.isFile() ? read.find((r) => r.dev === st.dev && r.ino === st.ino) : undefined;
    if (input) throw new UsageError(`${named} is ${input.what}: writing it would destroy what is being read`, `give ${out.what} another ${out.path !== undefined ? 'path' : 'file'}; nothing was sent`);
    const place = st ? `${st.dev}:${st.ino}` : out.path !== undefined ? placeOf(out.path) : undefined;
    if (place === undefined || (out.path === undefined && !st?.isFile())) continue;
    const other = taken.get(place);
    if (other) throw new UsageError(`${out.what} and ${other.what} are the same file, ${out.shown ?? out.path ?? ''}`, 'give them different paths; nothing was sent');
    taken.set(place, out);
  }
}

/**
 * Where a job's own file goes when the operator names none: beside a regular file (`leads.csv` →
 * `leads.csv.rejects.csv`); for stdin, `stdin<suffix>` in the current folder; for a pipe (a FIFO,
 * `<(…)`'s `/dev/fd/N`, whose folder is rarely writable), its name plus the suffix in the current
 * folder.
 */
export function besideInput(cwd: string, file: string, suffix: string, stream: boolean): string {
  if (file === '-') return resolve(cwd, `stdin${suffix}`);
  return stream ? resolve(cwd, `${basename(file)}${suffix}`) : resolve(cwd, `${file}${suffix}`);
}

/**
 * Whether `path` is read as a stream: stdin (`-`), or anything but a regular file — a FIFO, a
 * pipe, process substitution's `/dev/fd/N`. A stream cannot be read twice: no encoding check of
 * the whole, no content hash, no journal.
 */
export function isStreamInput(path: string): boolean {
  if (path === '-') return true;
  try {
    return !statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The folder a file's disk is mounted on: the highest folder above it on the same device. */
export function mountOf(path: string): string {
  let at = resolve(path);
  let dev: number | undefined;
  let mount = at;
  for (let depth = 0; depth < 64; depth++) {
    let here: number | undefined;
    try {
      here = statSync(at).dev;
    } catch {
      // not there (yet): the folders above tell
    }
    if (here !== undefined) {
      if (dev !== undefined && here !== dev) return mount;
      dev = here;
      mount = at;
    }
    const up = dirname(at);
    if (up === at) return mount;
    at = up;
  }
  return mount;
}

/**
 * The one line of a write refused for want of space (ENOSPC, EDQUOT), naming the file and the disk
 * it is on (docs/network.md, "Bounds"); undefined for any other error.
 */
export function fullDiskError(err: unknown, path: string, what: string, hint = 'free some space there, then run the same command with --resume'): RuntimeError | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return undefined;
  const why = code === 'EDQUOT' ? 'the disk quota is used up' : 'no space left';
  return new RuntimeError('disk_full', `${why} on the disk of ${mountOf(path)}, writing ${what} ${path} (${code})`, hint, { cause: err });
}

/** The temporary name a file is written under until it is whole. */
export function partialOf(path: string): string {
  return `${path}.partial`;
}

/**
 * A job's output file. Started afresh, it is written to `<path>.partial` and renamed to `path` by
 * close(); continued (`append`, a resumed run), it is appended to where the earlier run left it —
 * its `.partial` after a crash, else the file itself.
 */
export class JobFile {
  private fd: number | undefined;

  private constructor(
    readonly path: string,
    private readonly writing: string,
    private readonly redact: Redact,
    /** Started empty by this run under a temporary name (what `discard` may remove). */
    private readonly own = false,
  ) {}

  /**
   * Opens it; `fresh` says whether it starts empty (and needs its header). A symlink is written
   * through (its target replaced, not the link); what is no regular file (`/dev/null`, a FIFO) is
   * written as it is. Throws the fs error.
   */
  static open(given: string, o: { append: boolean; redact: Redact }): { file: JobFile; fresh: boolean } {
    const st = statOf({ path: given });
    const path = st ? realpathSync(given) : given;
    if (st && !st.isFile()) {
      const file = new JobFile(path, path, o.redact);
      file.fd = openSync(path, 'w');
      return { file, fresh: true };
    }
    const partial = partialOf(path);
    const continued = o.append ? (existsSync(partial) ? partial : st ? path : undefined) : undefined;
    const file = new JobFile(path, continued ?? partial, o.redact, continued === undefined);
    file.fd = openSync(file.writing, continued ? 'a' : 'w', 0o600);
    return { file, fresh: continued === undefined };
  }

  /** Whether an earlier run left this file (whole, or partial after a crash). */
  static left(path: string): boolean {
    return existsSync(path) || existsSync(partialOf(path));
  }

  /** Writes text, masked, then encoded (UTF-8 unless `encode` says otherwise). */
  write(text: string, encode: (text: string) => Uint8Array = (t) => Buffer.from(t, 'utf8')): void {
    this.writeBytes(encode(this.redact(text)));
  }

  /** Writes bytes as they are (a BOM); a full disk is one line naming the file (fullDiskError). */
  writeBytes(bytes: Uint8Array): void {
    try {
      writeSync(this.fd as number, bytes);
    } catch (err) {
      throw fullDiskError(err, this.path, 'the file') ?? err;
    }
  }

  /**
   * Drops what this run wrote when it started the file under a temporary name (the file keeps what
   * it held before, or stays absent); a file appended to or written in place is closed as it is.
   */
  discard(): void {
    if (this.fd === undefined) return;
    if (!this.own) return this.close();
    closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.writing, { force: true });
  }

  /** Flushes it to disk and gives it its name. */
  close(): void {
    if (this.fd === undefined) return;
    if (this.writing !== this.path) fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
    if (this.writing !== this.path) renameSync(this.writing, this.path);
  }
}

/** A whole file written at once: to a temporary name in its folder, flushed, then renamed. */
export function writeFileAtomic(path: string, text: string, redact: Redact = (t) => t): void {
  const { file } = JobFile.open(path, { append: false, redact });
  file.write(text);
  file.close();
}
