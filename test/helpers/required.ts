/**
 * What a test needs from the machine (a Secret Service, a redis-server) and whether it may be
 * skipped without it: `npm test` starts them itself where they are installed, and skips the tests
 * that need them, with one line saying why, where they are not — unless CALLCTL_TEST_REQUIRE
 * (a comma-separated list: `keychain`, `redis`; .ci/run sets it) asks for them, and then their
 * absence fails the run instead of hiding those tests.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';

export type Service = 'keychain' | 'redis';

/** Whether CALLCTL_TEST_REQUIRE asks for `what`. */
export function required(what: Service): boolean {
  return (process.env.CALLCTL_TEST_REQUIRE ?? '').split(',').map((w) => w.trim()).includes(what);
}

/**
 * The skip reason of a test that needs `what`, which is missing for `reason` — or, when
 * CALLCTL_TEST_REQUIRE asks for it, an error: a skip there would hide those tests.
 */
export function skipOrFail(what: Service, reason: string): string {
  if (required(what)) throw new Error(`CALLCTL_TEST_REQUIRE asks for ${what}, and ${reason}`);
  return `${what}: ${reason}`;
}

/** Whether a program is on PATH. */
export function installed(program: string): boolean {
  return spawnSync('sh', ['-c', 'command -v "$1"', 'sh', program], { stdio: 'ignore' }).status === 0;
}

/** A loopback port free now (the kernel's choice), for a server that cannot take port 0. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

/**
 * Starts `server` (a shell line that runs a server in the foreground; `$1`… from `args`) for as
 * long as this test process lives: a shell runs it in the background and waits on its own stdin, a
 * pipe from this process, which closes when the process ends however it ends (a test killed
 * included) — then the shell stops the server and removes `cleanup`.
 */
export function whileWeLive(server: string, args: string[], cleanup: string): void {
  const child = spawn('sh', ['-c', `${server} & pid=$!; cat >/dev/null; kill $pid 2>/dev/null; wait $pid; rm -rf "$0"`, cleanup, ...args], { stdio: ['pipe', 'ignore', 'ignore'] });
  child.unref();
  (child.stdin as unknown as { unref(): void }).unref();
}
