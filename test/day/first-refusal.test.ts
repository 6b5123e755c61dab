// A job refused on its first request stored nothing (docs/commands/jobs.md, "Jobs"): the operator sees one
// line — the refusal and its hint — not a summary whose "unfinished … --resume sends them" points at
// a journal that is not there; --json keeps its object. A job that did not happen leaves no record.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { writeLeads } from '../helpers/leads.js';

test('a wrong key or a read-only key on the first row: one line on stderr after the mapping, exit 3, no --resume advice', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const file = writeLeads(tempDir(t), 30);
  for (const key of [`sk_live_${'0'.repeat(36)}`, sb.readOnlyKey]) {
    const env = envFor(sb, t, { CALLCTL_API_KEY: key });
    const r = await runCli(['import', file], { env });
    assert.equal(r.code, 3, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.match(lines[0] as string, /leads\.csv: .*→ phone/);
    assert.equal(lines.length, 2, r.stderr);
    assert.match(lines[1] as string, /^callctl: the (API refused the key \(401\)|key is not allowed to do this \(403\))/);
    assert.doesNotMatch(r.stderr, /resume|unfinished/);

    const json = await runCli(['import', file, '--json'], { env });
    assert.equal(json.code, 3, json.stderr);
    assert.equal(JSON.parse(json.stdout).created, 0);
    assert.doesNotMatch(json.stderr, /resume|unfinished/);
  }
  assert.equal(sb.contacts().length, 0);
});

test('a job refused before anything was stored leaves no record: jobs ls stays empty, no journal, no rejects or changes file of its own', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const dir = tempDir(t);
  const env = envFor(sb, t, { CALLCTL_API_KEY: sb.readOnlyKey, CALLCTL_CONFIG_DIR: join(dir, 'config') });
  // A row rejected before the first write: its reason is not kept for a job that did not happen.
  const file = join(dir, 'leads.csv');
  writeFileSync(file, `Name,Phone\nBad,not a number\n${sb.contacts().map((c, i) => `P${i},${String(c.phone)}`).join('\n')}\nNew,+447400199001\n`);
  writeFileSync(join(dir, 'outcomes.csv'), `callId,outcome\n${sb.calls()[0]!.id},booked_job\n`);
  writeFileSync(join(dir, 'erase.csv'), `phone\n${String(sb.contacts()[0]!.phone)}\n`);
  const refused: string[][] = [
    ['import', file],
    ['import', file, '--check-existing'],
    ['calls', 'outcome', '--from', join(dir, 'outcomes.csv')],
    ['contacts', 'rm', '--from', join(dir, 'erase.csv'), '--country', 'GB', '--confirm'],
  ];
  for (const args of refused) {
    const r = await runCli(args, { env, cwd: dir });
    assert.equal(r.code, 3, `${args.join(' ')}: ${r.stderr}`);
    const jobs = await runCli(['jobs', 'ls', '--json'], { env });
    assert.deepEqual(JSON.parse(jobs.stdout), [], `${args.join(' ')} left a record: ${jobs.stdout}`);
  }
  assert.deepEqual(readdirSync(join(dir, 'config', 'journals')).filter((n) => n.endsWith('.jsonl')), []);
  assert.deepEqual(readdirSync(dir).sort(), ['config', 'erase.csv', 'leads.csv', 'outcomes.csv'], 'no rejects, changes or receipts file');
  // A wrong key with --check-existing is refused at its listing, before the job's first row.
  const wrong = await runCli(['import', file, '--check-existing'], { env: { ...env, CALLCTL_API_KEY: `sk_live_${'0'.repeat(36)}` }, cwd: dir });
  assert.equal(wrong.code, 3, wrong.stderr);
  assert.deepEqual(JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout), []);

  // With the key that may write, the same import is a job of its own: no --restart asked for.
  const real = await runCli(['import', file, '--json'], { env: { ...env, CALLCTL_API_KEY: sb.secretKey }, cwd: dir });
  assert.equal(real.code, 6, real.stderr);
  assert.deepEqual(JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout).map((j: { kind: string; state: string }) => [j.kind, j.state]), [['import', 'finished']]);
});
