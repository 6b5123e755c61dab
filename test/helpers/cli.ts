/**
 * Runs the real CLI (`bin/callctl.js`, the built dist/) as a child process, the way an operator
 * or a script does, and captures what they would see. Always asynchronous: the sandbox usually
 * runs in the test's own process and must keep answering while the CLI runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/callctl.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Added to a clean environment (no CALLCTL_* of the developer's shell leaks in). */
  env?: Record<string, string | undefined>;
  /** Written to stdin, then stdin is closed. */
  input?: string | Buffer;
  cwd?: string;
  /** Kill the process after this long (a hung CLI fails the test instead of the run). */
  timeoutMs?: number;
}

/** A clean environment for the CLI: PATH/HOME only, no colour, plus `extra`. */
export function cliEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', LANG: 'C.UTF-8' };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/** Starts the CLI and returns the child plus a promise of its result (for kill tests). */
export function startCli(args: string[], opts: CliOptions = {}): { child: ChildProcess; result: Promise<CliResult>; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? ROOT, env: cliEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin!.on('error', () => undefined);
  if (opts.input !== undefined) child.stdin!.end(opts.input);
  else child.stdin!.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
  const result = new Promise<CliResult>((done, fail) => {
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
  });
  return { child, result, stdout: () => stdout, stderr: () => stderr };
}

/** Runs the CLI to the end. */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return startCli(args, opts).result;
}

/**
 * Runs the CLI on a pseudo-terminal `cols` wide (util-linux `script`; the pty is given its width
 * with stty, for ora spins at 100 % CPU on 0 columns) and returns its exit code and everything the
 * terminal showed, escape sequences included.
 */
export function runOnTerminal(args: string[], env: Record<string, string | undefined>, cols = 100): Promise<{ code: number | null; screen: string }> {
  const line = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qec', `stty cols ${cols} rows 30; ${line}`, '/dev/null'], { env: cliEnv({ TERM: 'xterm', COLUMNS: String(cols), ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (screen += d));
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => done({ code, screen }));
  });
}

/** A fresh temporary folder, removed when the test ends. */
export function tempDir(t: { after(fn: () => unknown): void }, prefix = 'callctl-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Runs the CLI and returns it with the builtins it loaded (`process.moduleLoadList` at exit, as
 * "NativeModule fs" lines): a preload records them, whatever loaded them (ESM, require, the bin's
 * getBuiltinModule).
 */
export async function runCliBuiltins(t: { after(fn: () => unknown): void }, args: string[], opts: CliOptions = {}): Promise<CliResult & { builtins: string[] }> {
  const dir = tempDir(t);
  const report = join(dir, 'builtins.txt');
  const preload = join(dir, 'report.cjs');
  writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, process.moduleLoadList.join('\\n')));\n`);
  const r = await runCli(args, { ...opts, env: { ...opts.env, NODE_OPTIONS: `--require ${preload}` } });
  return { ...r, builtins: readFileSync(report, 'utf8').split('\n') };
}

/**
 * Whether a run ended as Ctrl-C ends it: exit 130 — or, when a second Ctrl-C reached the process
 * after its job had ended and Node was already tearing down (no handler runs then), killed by
 * SIGINT, which a shell reports as 130 too. Its output was written before either.
 */
export function endedByCtrlC(r: CliResult): boolean {
  return r.code === 130 || (r.code === null && r.signal === 'SIGINT');
}
