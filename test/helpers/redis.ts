/**
 * A real Redis for the shared-budget tests: CALLCTL_TEST_REDIS_URL when it is set, else a
 * redis-server of the test process's own on a free loopback port (no persistence, its folder
 * temporary), started on first use where redis-server is installed and stopped when the process
 * ends. Elsewhere the tests skip, saying why — or fail, when CALLCTL_TEST_REQUIRE asks for `redis`.
 */
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, installed, skipOrFail, whileWeLive } from './required.js';

export type TestRedis = { url: string } | { reason: string };

let started: Promise<TestRedis> | undefined;

/** The Redis of these tests (started on first call), or why there is none. */
export function testRedis(): Promise<TestRedis> {
  started ??= start();
  return started;
}

/** The Redis URL, or the skip reason of a test that needs one (an error where CALLCTL_TEST_REQUIRE asks for it). */
export async function redisOrSkip(): Promise<{ url: string; skip: false } | { url: undefined; skip: string }> {
  const r = await testRedis();
  return 'url' in r ? { url: r.url, skip: false } : { url: undefined, skip: skipOrFail('redis', r.reason) };
}

async function start(): Promise<TestRedis> {
  const given = process.env.CALLCTL_TEST_REDIS_URL;
  if (given) return { url: given };
  if (!installed('redis-server')) return { reason: 'redis-server is not installed (Debian: redis-server), and CALLCTL_TEST_REDIS_URL is not set' };
  const dir = mkdtempSync(join(tmpdir(), 'callctl-redis-'));
  const port = await freePort();
  whileWeLive(`redis-server --port "$1" --bind 127.0.0.1 --save '' --appendonly no --dir "$0"`, [String(port)], dir);
  // Generous: a machine busy with the other test files starts it slowly.
  for (const end = Date.now() + 30_000; !(await answersPing(port)); ) {
    if (Date.now() > end) return { reason: `redis-server did not answer on port ${port} within 30 s` };
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `redis://127.0.0.1:${port}` };
}

/** Whether a Redis answers PING on the port. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = connect(port, '127.0.0.1');
    let text = '';
    s.setTimeout(1_000, () => s.destroy());
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      text += d.toString();
      if (text.includes('\r\n')) s.end();
    });
    s.on('error', () => done(false));
    s.on('close', () => done(text.startsWith('+PONG')));
  });
}
