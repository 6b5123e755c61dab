// `callctl sandbox` as an operator runs it: what it prints, how it stops, what it keeps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { startTestSandbox } from '../helpers/sandbox.js';

async function firstLines(run: ReturnType<typeof startCli>, n: number): Promise<string[]> {
  for (let i = 0; i < 200 && run.stdout().split('\n').length <= n; i++) await new Promise((r) => setTimeout(r, 25));
  return run.stdout().split('\n').slice(0, n);
}

test('without --json it prints the base URL and its three keys for a person; SIGINT stops it, exit 0', async (t) => {
  const run = startCli(['sandbox', '--port', '0']);
  t.after(() => run.child.kill('SIGKILL'));
  const text = (await firstLines(run, 5)).join('\n');
  assert.match(text, /listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1/);
  assert.match(text, /secret key\s+sk_live_\w+/);
  assert.match(text, /read-only key\s+sk_live_\w+/);
  assert.match(text, /widget key\s+pk_live_\w+/);
  run.child.kill('SIGINT');
  assert.equal((await run.result).code, 0);
});

// How long an answer takes is the sandbox's own test (sandbox.test.ts, --wire-delay, on recorded
// waits); here, that the command passes the delay on and says so.
test('--wire-delay: the limit line says how far away it answers, and it answers', async (t) => {
  const run = startCli(['sandbox', '--port', '0', '--wire-delay', '60', '--rate-limit', '5', '--ratelimit-headers', 'none']);
  t.after(() => run.child.kill('SIGKILL'));
  const text = (await firstLines(run, 5)).join('\n');
  assert.match(text, /rate limit\s+5\/s, burst 5, headers none, 60 ms each way/);
  const base = /listening on (http:\/\/\S+)/.exec(text)?.[1] as string;
  const key = /secret key\s+(sk_live_\w+)/.exec(text)?.[1] as string;
  const res = await fetch(`${base}/contacts`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200);
  run.child.kill('SIGINT');
  assert.equal((await run.result).code, 0);
});

test('--data: what was posted is saved on SIGTERM and served by the next run', async (t) => {
  const file = join(tempDir(t), 'state.json');
  const first = startCli(['sandbox', '--port', '0', '--json', '--data', file]);
  t.after(() => first.child.kill('SIGKILL'));
  const info = JSON.parse((await firstLines(first, 1))[0]!);
  const post = await fetch(`${info.baseUrl}/contacts`, { method: 'POST', headers: { authorization: `Bearer ${info.secretKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ firstName: 'Kept', phone: '+14155550100' }) });
  assert.equal(post.status, 201);
  first.child.kill('SIGTERM');
  assert.equal((await first.result).code, 0);
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).contacts[0].firstName, 'Kept');

  const second = startCli(['sandbox', '--port', '0', '--json', '--data', file]);
  t.after(() => second.child.kill('SIGKILL'));
  const again = JSON.parse((await firstLines(second, 1))[0]!);
  const list = await fetch(`${again.baseUrl}/contacts`, { headers: { authorization: `Bearer ${again.secretKey}` } });
  assert.equal(((await list.json()) as any).data[0].firstName, 'Kept');
  second.child.kill('SIGTERM');
  assert.equal((await second.result).code, 0);
});

test('a port in use, or a --data file that is not sandbox state: one line, exit 1', async (t) => {
  const busy = await startTestSandbox(t);
  const port = new URL(busy.origin).port;
  const clash = await runCli(['sandbox', '--port', port]);
  assert.equal(clash.code, 1);
  assert.match(clash.stderr, new RegExp(`port ${port} is already in use`));
  assert.equal(clash.stderr.trim().split('\n').length, 1);
  const file = join(tempDir(t), 'state.json');
  writeFileSync(file, 'not\njson\n');
  const bad = await runCli(['sandbox', '--port', '0', '--data', file]);
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr.trim().split('\n').length, 1);
  assert.match(bad.stderr, /not a sandbox state file/);
  writeFileSync(file, '{"contacts": 5}');
  const notState = await runCli(['sandbox', '--port', '0', '--data', file]);
  assert.equal(notState.code, 1);
  assert.match(notState.stderr, /not a sandbox state file/);
});
