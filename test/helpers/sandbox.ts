/** Starts the sandbox in the test's process on a free loopback port, closed when the test ends. */
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { tempDir } from './cli.js';

type After = { after(fn: () => unknown): void };

export async function startTestSandbox(t: After, opts: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await startSandbox({ port: 0, ...opts });
  t.after(() => sb.close());
  return sb;
}

/** The environment that points the CLI at a sandbox with its full-scope key and a fresh config dir. */
export function envFor(sb: Sandbox, t: After, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey, CALLCTL_CONFIG_DIR: tempDir(t), ...extra };
}
