/**
 * Runs the CLI under /usr/bin/time and returns, with what the operator sees, the child's peak
 * resident memory (its maxrss, kB → MB), written by time to a file so stderr stays the CLI's own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { BIN, cliEnv, type CliResult, tempDir } from './cli.js';

export async function runCliMeasured(t: { after(fn: () => unknown): void }, args: string[], opts: { env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number; whileRunning?: () => void } = {}): Promise<CliResult & { peakMb: number }> {
  const out = join(tempDir(t), 'rss.txt');
  const child = spawn('/usr/bin/time', ['-f', '%M', '-o', out, process.execPath, BIN, ...args], { cwd: opts.cwd, env: cliEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const watch = opts.whileRunning ? setInterval(opts.whileRunning, 20) : undefined;
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('close', (c, s) => done({ code: c, signal: s })));
  clearTimeout(timer);
  if (watch) clearInterval(watch);
  opts.whileRunning?.();
  const kb = Number(readFileSync(out, 'utf8').trim().split('\n').pop());
  return { code, signal, stdout, stderr, peakMb: kb / 1024 };
}
