// Sending: server refusals land in the rejects file, faults and a tight limit still store each row
// once, a re-run creates nothing, a dry run sends nothing, a malformed file stops at its line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { assertEachOnce, writeLeads } from '../helpers/leads.js';


test('a row the server refuses (422) is rejected with the server reason; the others go in', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const file = join(dir, 'leads.csv');
  writeFileSync(file, `Name,Phone,Notes\nShort Note,+447400120001,fine\nLong Note,+447400120002,${'x'.repeat(1500)}\nAlso Fine,+447400120003,ok\n`);
  const r = await runCli(['import', file, '--json'], { env: envFor(sb, t) });
  assert.equal(r.code, 6);
  const s = JSON.parse(r.stdout);
  assert.deepEqual([s.created, s.rejected, s.failed], [2, 1, 0]);
  const rejects = readFileSync(s.rejectsFile, 'utf8');
  assert.match(rejects, /Long Note,\+447400120002,x+,"refused by the server \(422\): ""notes"" is longer than 1000 characters/);
  assert.equal(sb.contacts().length, 2);
});

test('under --faults 0.2, a short client timeout and a tight rate limit, every row is stored exactly once', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 30, burst: 5, faults: 0.2, faultDelayMs: 600 });
  const dir = tempDir(t);
  const file = writeLeads(dir, 80);
  const r = await runCli(['--timeout', '300', 'import', file, '--json'], { env: envFor(sb, t) });
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.created + s.matched, 80);
  assert.ok(s.matched > 0 || sb.stats().faults > 0, 'faults happened');
  assert.ok(s.requests > 80, 'retries were needed');
  sb.setFaults(0);
  assertEachOnce(sb.contacts().map((c) => c.phone), 80);
});

test('re-importing the same file creates nothing new: every row matched by phone', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const file = writeLeads(dir, 40, 'leads.csv', true);
  const env = envFor(sb, t);
  const first = await runCli(['import', file, '--country', 'GB', '--json'], { env });
  assert.equal(JSON.parse(first.stdout).created, 40);
  const again = await runCli(['import', file, '--country', 'GB', '--json'], { env });
  assert.equal(again.code, 0, again.stderr);
  const s = JSON.parse(again.stdout);
  assert.deepEqual([s.created, s.matched], [0, 40]);
  assertEachOnce(sb.contacts().map((c) => c.phone), 40);
});

test('--dry-run needs no key and sends nothing; stdin works', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const file = writeLeads(dir, 25);
  const env = { CALLCTL_CONFIG_DIR: tempDir(t) };
  const r = await runCli(['import', file, '--dry-run', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual([s.rows, s.dryRun, s.requests, s.created], [25, true, 0, 0]);
  assert.equal(sb.stats().requests, 0);
  const piped = await runCli(['import', '-', '--json'], { env: envFor(sb, t), input: readFileSync(file), cwd: dir });
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(JSON.parse(piped.stdout).created, 25);
});

test('an unterminated quote stops with exit 1 naming the line; rows before it are stored and journaled', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const file = join(dir, 'broken.csv');
  writeFileSync(file, `Name,Phone\nA,+447400120001\nB,+447400120002\n"C,+447400120003\nD,+447400120004\n`);
  const env = envFor(sb, t);
  const r = await runCli(['import', file], { env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /broken\.csv: line \d+: a quote is never closed/);
  assert.equal(sb.contacts().length, 2);
  // Fixed, then resumed: only the rest is sent.
  writeFileSync(file, `Name,Phone\nA,+447400120001\nB,+447400120002\nC,+447400120003\nD,+447400120004\n`);
  const fixed = await runCli(['import', file, '--json'], { env });
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.equal(sb.contacts().length, 4);
});

test('bad options: no phone column names the columns and --map; a bad --map; an unknown region', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'x.csv');
  writeFileSync(file, 'Name,Cell Number Primary\nA,+447400120001\n');
  const env = { CALLCTL_CONFIG_DIR: tempDir(t) };
  const none = await runCli(['import', file, '--dry-run'], { env });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /no phone column among: Name, Cell Number Primary.*--map/);
  const mapped = await runCli(['import', file, '--dry-run', '--map', 'Cell Number Primary=phone', '--json'], { env });
  assert.equal(mapped.code, 0, mapped.stderr);
  for (const args of [['--map', 'Cell=telephone'], ['--map', 'nonsense'], ['--country', 'XX'], ['--delimiter', '::']]) {
    const r = await runCli(['import', file, '--dry-run', ...args], { env });
    assert.equal(r.code, 2, args.join(' '));
  }
  const missing = await runCli(['import', join(dir, 'nope.csv'), '--dry-run'], { env });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no such file/);
});
