/** Runs the benchmark's seconds-long version, for the tests that keep `npm run bench` working. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './cli.js';

/** `bench/run.mjs --smoke <only>`: its stdout, once it ended with exit 0 (else its stderr fails the test). */
export async function smoke(only: string, env: Record<string, string> = {}): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/run.mjs'), '--smoke', only], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  assert.equal(code, 0, err);
  return out;
}

