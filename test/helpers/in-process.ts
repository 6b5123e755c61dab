/**
 * Runs callctl's main() in the test's process with the real clock and network (loopback only) and
 * streams of its own: what an operator would see — stdout, stderr, the exit code — for a table of
 * many runs that a child process each would make slow. The spawned CLI (helpers/cli.ts) stays the
 * test of the command as shipped; this is for the many cases of one behaviour.
 */
import { PassThrough } from 'node:stream';
import { main } from '../../src/main.js';
import type { Deps } from '../../src/deps.js';

export interface MainResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runMain(argv: string[], o: { env: Record<string, string>; cwd: string }): Promise<MainResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  stdin.end();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const deps: Deps = {
    io: { stdin: stdin as unknown as Deps['io']['stdin'], stdout: stdout as unknown as Deps['io']['stdout'], stderr: stderr as unknown as Deps['io']['stderr'] },
    env: { NO_COLOR: '1', CALLCTL_PHONE_WORKERS: '0', ...o.env },
    cwd: o.cwd,
    now: () => Date.now(),
    sleep: (ms, signal) => new Promise((done, fail) => {
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        fail(signal.reason);
      }, { once: true });
    }),
    onSignal: () => () => undefined,
  };
  const code = await main(argv, deps);
  await new Promise((r) => setImmediate(r));
  return { code, stdout: out, stderr: err };
}
