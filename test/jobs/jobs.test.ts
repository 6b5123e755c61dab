// `jobs ls`, `jobs show` and `jobs resume` from another process than the job's (docs/commands/jobs.md,
// "Jobs"): an interrupted import listed as such, shown with its options, files and a chart whose
// figures are the service's answers, resumed by a prefix of its id with its recorded options —
// and refused when its file changed since. Ids are found by any unique prefix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { assertEachOnce, writeLeads } from '../helpers/leads.js';
import { accountsService } from '../helpers/accounts-service.js';
import { waitFor } from '../helpers/wait.js';

interface Listed {
  id: string;
  kind: string;
  file: string;
  startedAt: string;
  endedAt: string | null;
  state: string;
  counts: Record<string, number>;
}

const ROWS = 150;

test('an interrupted import: jobs ls and show from another process, jobs resume by a prefix of its id, the timeline adding up to the answers', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 30, burst: 5, rateLimitHeaders: 'none' });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const file = writeLeads(dir, ROWS);
  const run = startCli(['import', file, '--country', 'GB', '--rejects', join(dir, 'bad-rows.csv'), '--json'], { env });
  await waitFor(() => sb.contacts().length >= 40);
  run.child.kill('SIGINT');
  const first = await run.result;
  assert.equal(first.code, 130, first.stderr);
  const part = JSON.parse(first.stdout);

  const ls = await runCli(['jobs', 'ls', '--json'], { env });
  assert.equal(ls.code, 0, ls.stderr);
  const [job, ...others] = JSON.parse(ls.stdout) as Listed[];
  assert.equal(others.length, 0);
  assert.deepEqual(Object.keys(job!), ['id', 'kind', 'file', 'startedAt', 'endedAt', 'state', 'counts']);
  assert.deepEqual([job!.kind, job!.file, job!.state], ['import', file, 'interrupted']);
  assert.equal(job!.counts.created, part.created);
  assert.ok(Date.parse(job!.endedAt as string) >= Date.parse(job!.startedAt));

  // Counted as its summary counted it: the rows it read, those it stored, those left unfinished.
  const ended = [['created', part.created], ['unfinished', part.unfinished ?? 0]].filter(([, n]) => n > 0).sort((a, b) => (b[1] as number) - (a[1] as number));
  assert.deepEqual(job!.counts, { rows: part.rows, ...Object.fromEntries(ended) });
  const counts = Object.entries(job!.counts);
  const table = await runCli(['jobs', 'ls'], { env });
  assert.match(table.stdout, new RegExp(`${job!.id}\\s+import\\s+\\S*leads\\.csv\\s+\\S+\\s+[\\d.]+ s\\s+interrupted\\s+${part.rows} rows, ${counts.slice(1).map(([k, v]) => `${v} ${k}`).join(', ')}`));
  const csv = await runCli(['jobs', 'ls', '--format', 'csv'], { env });
  assert.equal(csv.stdout.split('\n')[0], 'id,kind,file,startedAt,endedAt,state,counts');
  assert.match(csv.stdout.split('\n')[1] as string, new RegExp(`^${job!.id},import,.*,interrupted,${counts.map(([k, v]) => `${k}=${v}`).join(';')}$`));

  const shown = await runCli(['jobs', 'show', job!.id.slice(0, 4)], { env: { ...env, COLUMNS: '100' } });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, new RegExp(`^job ${job!.id}: import of .*leads\\.csv`));
  assert.match(shown.stdout, /state {5}interrupted/);
  assert.match(shown.stdout, /options {3}country=GB {2}existing=merge {2}rejects=\S*bad-rows\.csv/);
  assert.match(shown.stdout, /admitted requests\/s ─/);
  assert.match(shown.stdout, /┤/, 'the chart is drawn');

  const resumed = await runCli(['jobs', 'resume', job!.id.slice(0, 4), '--json'], { env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, new RegExp(`resuming job ${job!.id}: the import of .*leads\\.csv`));
  const rest = JSON.parse(resumed.stdout);
  assert.equal(rest.skipped + rest.created + rest.matched, ROWS);
  assertEachOnce(sb.contacts().map((c) => c.phone), ROWS);

  const detail = JSON.parse((await runCli(['jobs', 'show', job!.id, '--json'], { env })).stdout);
  assert.deepEqual([detail.id, detail.state, detail.counts.rows], [job!.id, 'finished', ROWS]);
  assert.deepEqual(detail.options, { country: 'GB', existing: 'merge', rejects: join(dir, 'bad-rows.csv') });
  assert.deepEqual(detail.files, { rejects: join(dir, 'bad-rows.csv') });
  // The picture is the service's answers, both runs: every request admitted or met with 429.
  const timeline = detail.timeline as Array<{ t: number; admitted: number; throttled: number; paused: number }>;
  assert.ok(timeline.length >= 3);
  assert.equal(timeline.reduce((s, b) => s + b.admitted + b.throttled, 0), part.requests + rest.requests);
  assert.equal(timeline.reduce((s, b) => s + b.throttled, 0), part.throttled + rest.throttled);
  assert.ok(part.throttled + rest.throttled > 0, 'the service said 429 on the way');
  assert.ok(timeline.some((b) => b.throttled > 0 && b.paused > 0), 'a 429 is a pause');
  assert.ok(typeof detail.limit === 'number' && detail.limit > 0, 'the limit as learnt');

  const again = await runCli(['jobs', 'resume', job!.id], { env });
  assert.equal(again.code, 2);
  assert.match(again.stderr, /finished at .*: there is nothing to resume/);
});

test('jobs resume refuses a file that changed since, naming what changed; a file touched but unchanged resumes', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 30, burst: 5 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const file = writeLeads(dir, 120);
  const original = readFileSync(file, 'utf8');
  const run = startCli(['import', file], { env });
  await waitFor(() => sb.contacts().length >= 20);
  run.child.kill('SIGKILL');
  await run.result;
  const id = (JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Listed[])[0]!.id;
  const posts = () => sb.stats().byRoute['POST /contacts'] ?? 0;
  const before = posts();

  writeFileSync(file, `${original}Late,Row,+447400199999,late@example.com\n`);
  const grown = await runCli(['jobs', 'resume', id], { env });
  assert.equal(grown.code, 2);
  assert.match(grown.stderr, new RegExp(`leads\\.csv changed since job ${id} read it \\(\\d+ bytes then, \\d+ now\\)`));

  writeFileSync(file, original.replace('Lead7,', 'Leaf7,'));
  const edited = await runCli(['jobs', 'resume', id], { env });
  assert.equal(edited.code, 2);
  assert.match(edited.stderr, /changed since job .* read it \(same size, other content/);
  assert.equal(posts(), before, 'nothing sent');

  writeFileSync(file, original); // the same bytes again, a new modification time
  const back = await runCli(['jobs', 'resume', id, '--json'], { env });
  assert.equal(back.code, 0, back.stderr);
  assertEachOnce(sb.contacts().map((c) => c.phone), 120);
});

test('a job is named by its id or any unique prefix; an ambiguous prefix names the jobs it could be', async (t) => {
  const config = tempDir(t);
  const journals = join(config, 'journals');
  mkdirSync(journals);
  const header = (job: string, at: string) => JSON.stringify({ job, kind: 'import', file: '/data/leads.csv', options: {}, files: {}, startedAt: at, resume: false });
  writeFileSync(join(journals, `a.done-1.jsonl`), `${header('abc1230000', '2026-01-02T10:00:00.000Z')}\n{"r":1,"s":"created"}\n{"done":true,"end":{"at":"2026-01-02T10:00:05.000Z","tally":{"created":1},"activeMs":5000}}\n`);
  writeFileSync(join(journals, `b.done-2.jsonl`), `${header('abc4560000', '2026-01-03T10:00:00.000Z')}\n`);
  const env = { CALLCTL_CONFIG_DIR: config };
  const ambiguous = await runCli(['jobs', 'show', 'abc'], { env });
  assert.equal(ambiguous.code, 2);
  assert.match(ambiguous.stderr, /abc names 2 jobs: abc4560000, abc1230000 \(give more of the id\)/);
  const one = await runCli(['jobs', 'show', 'ABC1', '--json'], { env });
  assert.equal(one.code, 0, one.stderr);
  const j = JSON.parse(one.stdout);
  assert.deepEqual([j.id, j.state, j.counts, j.endedAt], ['abc1230000', 'finished', { created: 1, rows: 1 }, '2026-01-02T10:00:05.000Z']);
  const ls = JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Listed[];
  assert.deepEqual(ls.map((x) => [x.id, x.state]), [['abc4560000', 'interrupted'], ['abc1230000', 'finished']]);
  // A TAB offers the ids, wherever a job is named.
  for (const line of [['jobs', 'show', 'abc'], ['jobs', 'resume', ''], ['import', 'undo', 'abc4']]) {
    const tab = await runCli(['__complete', 'bash', ...line], { env });
    assert.deepEqual(tab.stdout.trim().split('\n'), line[2] === 'abc4' ? ['abc4560000'] : ['abc4560000', 'abc1230000'], line.join(' '));
  }
  assert.equal((await runCli(['__complete', 'bash', 'import', ''], { env })).stdout, '', 'import <TAB> leaves file names to the shell');
});

test('an import from stdin is kept for the record and can be undone, but not resumed', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const env = envFor(sb, t);
  const r = await runCli(['import', '-', '--json'], { env, input: 'Name,Phone\nSam,+447400700001\nAlex,+447400700002\n' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /reading stdin: kept for the record, but it cannot be resumed/);
  const [job] = JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Listed[];
  assert.deepEqual([job!.file, job!.state, job!.counts], ['-', 'finished', { created: 2, rows: 2 }]);
  const resume = await runCli(['jobs', 'resume', job!.id], { env });
  assert.equal(resume.code, 2);
  const undo = await runCli(['import', 'undo', job!.id, '--confirm', '--json'], { env });
  assert.equal(undo.code, 0, undo.stderr);
  const u = JSON.parse(undo.stdout);
  assert.equal(u.erased, 2);
  assert.equal(u.receiptsFile, join(env.CALLCTL_CONFIG_DIR as string, 'undo', `${job!.id}.undo.jsonl`));
  assert.equal(sb.contacts().length, 0);
});

test('--restart keeps the earlier run in the records: interrupted, not resumable, and what it stored can still be undone', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 40, burst: 5 });
  const env = envFor(sb, t);
  const file = writeLeads(tempDir(t), 100);
  const run = startCli(['import', file, '--check-existing'], { env });
  await waitFor(() => sb.contacts().length >= 20);
  run.child.kill('SIGKILL');
  await run.result;
  const restarted = await runCli(['import', file, '--check-existing', '--restart', '--json'], { env });
  assert.equal(restarted.code, 0, restarted.stderr);
  // The first run's finished rows are matched; a row it had on the wire when killed is its own
  // attempt's contact (the abandoned run's intent says so): created. None is stored twice.
  const s = JSON.parse(restarted.stdout);
  assert.ok(s.matched > 0 && s.created + s.matched === 100, JSON.stringify(s));
  assert.equal(sb.contacts().length, 100);
  const [second, first] = JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Listed[];
  assert.deepEqual([first!.state, second!.state], ['interrupted', 'finished']);
  const resume = await runCli(['jobs', 'resume', first!.id], { env });
  assert.equal(resume.code, 2);
  assert.match(resume.stderr, /was started over \(--restart\): it cannot be resumed/);
  for (const job of [second!, first!]) {
    const undo = await runCli(['import', 'undo', job.id, '--confirm', '--json'], { env });
    assert.equal(undo.code, 0, undo.stderr);
  }
  assert.equal(sb.contacts().length, 0, 'both runs undone: nothing the import stored is left');
});

test('a job against a service that sent no rate-limit header and no 429 shows no limit as learnt: not in jobs show, its chart or --json', async (t) => {
  const key = `sk_live_${'j'.repeat(24)}`;
  const svc = await accountsService(t, [key]);
  const env = { CALLCTL_BASE_URL: svc.baseUrl, CALLCTL_API_KEY: key, CALLCTL_CONFIG_DIR: tempDir(t) };
  const dir = tempDir(t);
  assert.equal((await runCli(['import', writeLeads(dir, 12)], { env, cwd: dir })).code, 0);
  const id = (JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ id: string }>)[0]!.id;
  const shown = await runCli(['jobs', 'show', id], { env });
  assert.equal(shown.code, 0, shown.stderr);
  assert.doesNotMatch(shown.stdout, /as the limiter learnt it|limit as learnt/);
  assert.match(shown.stdout, /^ {2}limit {5}none learnt from this job's answers \(no rate-limit header; no 429 that showed one\)$/m);
  assert.equal(JSON.parse((await runCli(['jobs', 'show', id, '--json'], { env })).stdout).limit, null);
});
