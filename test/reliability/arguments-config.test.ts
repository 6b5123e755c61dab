// Wrong arguments and broken configuration: one line naming the problem, the documented exit code,
// no stack trace, nothing sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

function oneLine(stderr: string, what: string): void {
  assert.doesNotMatch(stderr, /\n\s+at /, `${what}: no stack trace`);
  assert.equal(stderr.trim().split('\n').length, 1, `${what}: one line, got ${stderr}`);
  assert.match(stderr, /^callctl: /, what);
}

test('bad arguments are exit 2 with one line, and send nothing', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 1 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'l.csv'), 'Name,Phone\nA,+447400120001\n');
  const cases: Array<[string[], RegExp]> = [
    [['contacts', 'lis'], /unknown command/],
    [['contacts', 'ls', '--colour'], /unknown option '--colour'/],
    [['contacts', 'ls', '--limit', 'abc'], /--limit/],
    [['contacts', 'ls', '--page', '0'], /--page/],
    [['--rate', '-1', 'contacts', 'ls'], /--rate/],
    [['--concurrency', '0', 'contacts', 'ls'], /--concurrency/],
    [['--format', 'xml', 'contacts', 'ls'], /xml/],
    [['import', join(dir, 'l.csv'), '--map', 'Phone'], /--map "Phone" is not Header=field/],
    [['import', join(dir, 'l.csv'), '--resume', '--restart'], /cannot be used with/],
    [['import', join(dir, 'l.csv'), '--encoding', 'ebcdic'], /ebcdic/],
    [['import', join(dir, 'l.csv'), '--redis-url', 'notaurl'], /--redis-url notaurl is not a redis:\/\/ URL/],
    [['contacts', 'get', ''], /the id is empty/],
    [['contacts', 'get', '..'], /cannot be sent as a path segment/],
    [['contacts', 'edit', 'x', '--data', '{"a":'], /--data is not valid JSON/],
    [['contacts', 'rm', 'x'], /--confirm/],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args, { env });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
    oneLine(r.stderr, args.join(' '));
  }
  // `contacts rm` without --confirm reads the contact to say who would go; nothing else is sent.
  assert.deepEqual(sb.stats().byRoute, { 'GET /contacts/{id}': 1 });
});

test('an id like ../calls stays one path segment: 404 from /contacts, never /calls', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 1 });
  const r = await runCli(['contacts', 'get', '../calls'], { env: envFor(sb, t) });
  assert.equal(r.code, 4);
  assert.deepEqual(Object.keys(sb.stats().byRoute), ['GET /contacts/{id}']);
});

test('a base URL without /api/v1 is exit 2; one on plain http to another host is exit 3; nothing sent', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const noVersion = await runCli(['contacts', 'ls'], { env: envFor(sb, t, { CALLCTL_BASE_URL: sb.origin }) });
  assert.equal(noVersion.code, 2);
  assert.match(noVersion.stderr, /\/api\/v1/);
  oneLine(noVersion.stderr, 'no /api/v1');
  const remote = await runCli(['contacts', 'ls', '--base-url', 'http://api.callctl.invalid/api/v1'], { env: envFor(sb, t) });
  assert.equal(remote.code, 3);
  oneLine(remote.stderr, 'plain http remote');
  const none = await runCli(['contacts', 'ls'], { env: { CALLCTL_API_KEY: sb.secretKey, CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /base URL/);
  assert.equal(sb.stats().requests, 0);
});

test('config: corrupt file, a dir that is a file, a dir that cannot be made, a dir that does not exist yet', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'config.json'), '{"profiles": {');
  const corrupt = await runCli(['contacts', 'ls'], { env: { CALLCTL_CONFIG_DIR: dir } });
  assert.equal(corrupt.code, 1);
  assert.match(corrupt.stderr, /config\.json is not valid JSON \(fix it by hand, or remove it/);
  oneLine(corrupt.stderr, 'corrupt');
  const file = await runCli(['config', 'list'], { env: { CALLCTL_CONFIG_DIR: join(dir, 'config.json', 'sub') } });
  assert.equal(file.code, 1);
  oneLine(file.stderr, 'dir under a file');
  // Node's recursive mkdir never returns under /proc: this once hung at 100 % CPU.
  const proc = await runCli(['config', 'set', 'country', 'GB'], { env: { CALLCTL_CONFIG_DIR: '/proc/callctl-test-config' }, timeoutMs: 10_000 });
  assert.equal(proc.code, 1, proc.stderr);
  oneLine(proc.stderr, '/proc');
  const fresh = join(dir, 'not', 'yet', 'there');
  const made = await runCli(['config', 'set', 'country', 'GB'], { env: { CALLCTL_CONFIG_DIR: fresh } });
  assert.equal(made.code, 0, made.stderr);
  assert.equal(statSync(join(fresh, 'config.json')).mode & 0o777, 0o600);
});
