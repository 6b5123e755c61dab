// One vocabulary and one count for each thing, whatever shows it (docs/commands/jobs.md, "jobs ls"): the
// progress line and the summary at the end of a job; the Ctrl-C line and the summary's
// `unfinished`; the summary (`--json`), `jobs ls` and `jobs show` of an import, an interrupted
// import, an undo that restored a contact in part, and an erasure that found two records of one
// person; and a pause named by what the service sent, never a header it did not send.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, runOnTerminal, startCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';
import { waitFor } from '../helpers/wait.js';

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/** 30 rows: 3 whose phone is no number, 2 with a phone met earlier in the file; then `more`. */
function mixedLeads(dir: string, more: string[] = []): string {
  const rows = ['Name,Phone,City,Status'];
  for (let i = 0; i < 25; i++) rows.push(`Lead${i},+4474001${String(30000 + i)},,`);
  for (let i = 0; i < 3; i++) rows.push(`Bad${i},not a phone ${i},,`);
  for (let i = 0; i < 2; i++) rows.push(`Again${i},+4474001${String(30000 + i)},,`);
  rows.push(...more);
  const file = join(dir, 'mixed.csv');
  writeFileSync(file, `${rows.join('\n')}\n`);
  return file;
}

const jobsOf = async (env: Record<string, string | undefined>) => JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ id: string; kind: string; state: string; counts: Record<string, number> }>;

test('on a terminal the progress line ends with the summary’s counts: rejected and duplicates apart, as the summary has them', { skip: hasScript ? false : 'util-linux script(1) is not installed' }, async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 20, burst: 5 });
  const file = mixedLeads(tempDir(t));
  const { code, screen } = await runOnTerminal(['import', file], { CALLCTL_CONFIG_DIR: tempDir(t), CALLCTL_BASE_URL: sb.baseUrl, CALLCTL_API_KEY: sb.secretKey }, 160);
  assert.equal(code, 6, screen);
  // The summary, then the last progress line drawn above it.
  const plain = screen.replace(/\x1b\[[0-9;?]*[A-Za-z]|\r/g, '\n');
  const count = (name: string) => Number(new RegExp(`^\\s+${name}\\s+(\\d+)`, 'm').exec(plain)?.[1]);
  assert.deepEqual([count('created'), count('rejected'), count('duplicates')], [25, 3, 2], plain);
  const summaryAt = plain.search(/^imported /m);
  const last = [...plain.slice(0, summaryAt).matchAll(/(?<!\d)(\d+) of (\d+) rows \(\d+ %\), (\d+) rejected(?:, (\d+) duplicates)?/g)].at(-1);
  assert.ok(last, plain);
  assert.deepEqual([Number(last[1]), Number(last[2]), Number(last[3]), Number(last[4] ?? 0)], [30, 30, 3, 2], `the last progress line: ${last[0]}`);
});

test('Ctrl-C: the rows it says are under way are the summary’s unfinished; jobs ls counts the interrupted job as its summary did', async (t) => {
  // Every POST after the first is held: nothing finishes between the two Ctrl-Cs.
  let posts = 0;
  const never = new Promise<void>(() => undefined);
  const sb = await startTestSandbox(t, {
    rateLimit: 0,
    latencyMs: 1,
    wait: async () => {
      if ((sb.stats().byRoute['POST /contacts'] ?? 0) > 1) {
        posts += 1;
        await never;
      }
    },
  });
  const dir = tempDir(t);
  const file = mixedLeads(dir);
  const env = envFor(sb, t);
  const run = startCli(['--concurrency', '1', 'import', file, '--json'], { env });
  await waitFor(() => posts >= 1 && sb.contacts().length === 1, 30_000, 'the first row stored, the second held');
  run.child.kill('SIGINT');
  await waitFor(() => /stopping: no new rows/.test(run.stderr()), 30_000, 'the first Ctrl-C taken');
  run.child.kill('SIGINT');
  const r = await run.result;
  assert.equal(r.code, 130, r.stderr);
  const underWay = Number(/stopping: no new rows; (\d+) rows? under way: those with a request on the wire get 1\.5 s to finish, the others are left unfinished for --resume/.exec(r.stderr)?.[1]);
  const s = JSON.parse(r.stdout);
  assert.ok(underWay > 1, r.stderr);
  assert.equal(s.unfinished, underWay, r.stderr);
  assert.equal(s.rows, s.created + s.rejected + s.duplicates + s.unfinished);

  const [job] = await jobsOf(env);
  assert.equal(job!.state, 'interrupted');
  assert.deepEqual(job!.counts, { rows: s.rows, unfinished: s.unfinished, created: s.created });
  const shown = await runCli(['jobs', 'show', job!.id], { env });
  assert.match(shown.stdout, new RegExp(`counts +${s.rows} rows, ${s.unfinished} unfinished, ${s.created} created`));
});

test('jobs ls and jobs show count a job as its summary did: an import, an undo restoring a contact in part, an erasure of a person’s two records', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  const [seed0] = sb.contacts();
  const file = mixedLeads(dir, [`Ada,${String(seed0!.phone)},Leeds,customer`]);
  const imported = JSON.parse((await runCli(['import', file, '--check-existing', '--json'], { env })).stdout);
  let [job] = await jobsOf(env);
  assert.deepEqual([imported.rows, imported.created, imported.matched, imported.rejected, imported.duplicates], [31, 25, 1, 3, 2]);
  assert.deepEqual(job!.counts, { rows: 31, created: 25, rejected: 3, duplicates: 2, matched: 1 });

  // A person changes one of the two fields the import changed: the undo gives back the other.
  await sandboxRequest(sb, 'PATCH', `/contacts/${seed0!.id}`, { body: { status: 'vip' } });
  const undone = await runCli(['import', 'undo', job!.id, '--confirm', '--json'], { env });
  assert.equal(undone.code, 0, undone.stderr);
  const u = JSON.parse(undone.stdout);
  assert.deepEqual([u.erased, u.restored, u.kept], [25, 1, 1]);
  [job] = await jobsOf(env);
  assert.equal(job!.kind, 'undo');
  assert.deepEqual(job!.counts, { rows: 26, erased: 25, restored: 1, kept: 1 });
  assert.match((await runCli(['jobs', 'show', job!.id], { env })).stdout, /counts +26 contacts, 25 erased, 1 restored, 1 kept\n/);
  assert.match((await runCli(['jobs', 'ls'], { env })).stdout, /26 contacts, 25 erased, 1 restored, 1 kept/);

  // Her national-format twin: one request, two contacts erased.
  await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Twin', phone: `0${String(seed0!.phone).slice(3)}` } });
  writeFileSync(join(dir, 'erase.csv'), `phone\n${String(seed0!.phone)}\n+447400999999\n`);
  const erasure = await runCli(['contacts', 'rm', '--from', join(dir, 'erase.csv'), '--country', 'GB', '--confirm', '--json'], { env });
  const e = JSON.parse(erasure.stdout);
  assert.deepEqual([e.requests, e.erased, e.notFound], [2, 2, 1], erasure.stderr);
  [job] = await jobsOf(env);
  assert.deepEqual([job!.kind, job!.counts], ['erasure', { rows: 2, erased: 2, notFound: 1 }]);
  assert.match((await runCli(['jobs', 'show', job!.id], { env })).stdout, /counts +2 requests, 2 erased, 1 notFound\n/);
});

test('429s that send no Retry-After are said as what the service answered, never as the service’s Retry-After', async (t) => {
  const server = await scriptedServer(t, (_hit, res) => json(res, 429, { error: { message: 'slow down' } }));
  const r = await runCli(['contacts', 'ls', '--max-pause', '1'], { env: { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: `sk_live_${'h'.repeat(24)}`, CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.equal(r.code, 1, r.stderr);
  // Such 429s are probed at short intervals (docs/pacing.md, B10): the stop says how long the
  // service has answered only 429, not a pause the service never asked for.
  assert.match(r.stderr, /^callctl: the service has answered only 429 \(too many requests\) for \d+(\.\d+)? s, past --max-pause 1 s \(.*\)$/m);
  assert.doesNotMatch(r.stderr, /asks for a pause|\(429, Retry-After\)/);
});
