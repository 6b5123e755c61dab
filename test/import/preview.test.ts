// An import the operator can trust before it runs: the dry run with a key says which rows are new
// and which would change whom (field by field), --existing skip leaves existing contacts alone,
// --dry-run --format csv shows the rows as sent, the rejects file comes back as the source was
// (Windows-1252, semicolons, line numbers) and re-imports, progress is printed off a terminal,
// summaries add up after Ctrl-C, a header-only file says so, -q still reports rejects, and
// finished job records are pruned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { endedByCtrlC, runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';
import { writeLeads } from '../helpers/leads.js';
import { waitFor } from '../helpers/wait.js';


test('a list that would rename an existing customer: the dry run names the fields that change; --existing skip leaves the customer untouched', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  const customer = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Émilie', lastName: 'Durand', phone: '+33612345678', email: 'emilie@example.fr' } });
  const file = join(dir, 'leads.csv');
  writeFileSync(file, 'First Name,Last Name,Phone,Email\nHélène,Lefèvre,+33 6 12 34 56 78,helene@example.fr\nNew,Person,+447400100099,new@example.com\n');

  const dry = await runCli(['import', file, '--dry-run', '--json'], { env, cwd: dir });
  assert.equal(dry.code, 0, dry.stderr);
  const d = JSON.parse(dry.stdout);
  assert.deepEqual([d.new, d.matches, d.changes], [1, 1, 3]);
  assert.equal(sb.stats().byRoute['POST /contacts'], 1, 'the dry run sent nothing');
  const changes = readFileSync(`${file}.changes.csv`, 'utf8').replace(/^\ufeff/, '').trim().split('\n');
  assert.equal(changes[0], 'line,id,field,old,new');
  assert.ok(changes.includes(`2,${customer.body.id},firstName,Émilie,Hélène`));
  assert.ok(changes.includes(`2,${customer.body.id},email,emilie@example.fr,helene@example.fr`));
  assert.match(dry.stderr, /matches\s+1/);

  const skip = await runCli(['import', file, '--existing', 'skip', '--json'], { env, cwd: dir });
  assert.equal(skip.code, 0, skip.stderr);
  const s = JSON.parse(skip.stdout);
  assert.deepEqual([s.created, s.matched, s.existing], [1, 0, 1]);
  const after = sb.contacts().find((c) => c.id === customer.body.id);
  assert.deepEqual([after?.firstName, after?.email], ['Émilie', 'emilie@example.fr'], 'the customer is untouched');
  assert.equal(s.rows, s.created + s.matched + s.rejected + s.duplicates + s.failed + s.skipped + s.existing);
});

test('--dry-run --format csv prints the rows as they would be sent; --format csv without --dry-run is exit 2', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'leads.csv');
  writeFileSync(file, 'Name,Mobile,Tags\nAda Lovelace,07400 100123,vip;2026\nBad,123,\n');
  const env = { CALLCTL_CONFIG_DIR: dir };
  const r = await runCli(['import', file, '--dry-run', '--country', 'GB', '--format', 'csv'], { env, cwd: dir });
  assert.equal(r.code, 6, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 2, r.stdout);
  assert.match(lines[0] as string, /^firstName,lastName,email,phone/);
  // Guarded against formulas (a spreadsheet runs a cell starting with +), unless --csv-raw.
  assert.match(lines[1] as string, /^Ada,Lovelace,,'\+447400100123,.*vip;2026/);
  const raw = await runCli(['import', file, '--dry-run', '--country', 'GB', '--format', 'csv', '--csv-raw'], { env, cwd: dir });
  assert.match(raw.stdout.trim().split('\n')[1] as string, /^Ada,Lovelace,,\+447400100123,.*vip;2026/);
  const nd = await runCli(['import', file, '--dry-run', '--country', 'GB', '--format', 'ndjson'], { env, cwd: dir });
  assert.deepEqual(JSON.parse(nd.stdout.trim()), { firstName: 'Ada', lastName: 'Lovelace', phone: '+447400100123', tags: ['vip', '2026'] });
  const bad = await runCli(['import', file, '--format', 'csv'], { env, cwd: dir });
  assert.equal(bad.code, 2);
});

test('the rejects file of a Windows-1252 semicolon source is Windows-1252 with semicolons and line numbers, and re-imports', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  const file = join(dir, 'excel.csv');
  writeFileSync(file, iconv.encode('Prénom;Nom;Téléphone;Ville\r\nJosé;Núñez;+447400100201;Málaga\r\nRenée;Faux;pas un numéro;Orléans\r\nZoë;Ok;+447400100202;Bâle\r\n', 'win1252'));
  const r = await runCli(['import', file, '--encoding', 'windows-1252', '--json'], { env, cwd: dir });
  assert.equal(r.code, 6, r.stderr);
  const s = JSON.parse(r.stdout);
  const bytes = readFileSync(s.rejectsFile);
  assert.ok(!bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])), 'no UTF-8 BOM on a Windows-1252 file');
  const text = iconv.decode(bytes, 'win1252');
  assert.equal(text.split(/\r?\n/)[0], 'Prénom;Nom;Téléphone;Ville;error;line');
  assert.match(text, /^Renée;Faux;pas un numéro;Orléans;.*;3$/m);
  assert.ok(bytes.includes(Buffer.from([0xe9])), 'é is one Windows-1252 byte');
  const again = await runCli(['import', s.rejectsFile, '--encoding', 'windows-1252', '--json', '--rejects', join(dir, 'again.csv')], { env, cwd: dir });
  const a = JSON.parse(again.stdout);
  assert.deepEqual([a.rows, a.rejected], [1, 1], again.stderr);
  assert.match(again.stderr, /ignoring columns: error, line/);
});

test('off a terminal, a plain progress line every 10 s: rows done of the total, rate, ETA', async (t) => {
  // Each run takes some 14 s at 5 a second (past the 10 s of a line): the plain run and the quiet
  // one go at once, each on a sandbox of its own.
  const sb = await startTestSandbox(t, { rateLimit: 5, burst: 1 });
  const sbQuiet = await startTestSandbox(t, { rateLimit: 5, burst: 1 });
  const dir = tempDir(t);
  const file = writeLeads(dir, 70);
  const [r, quiet] = await Promise.all([
    runCli(['import', file], { env: envFor(sb, t), timeoutMs: 60_000 }),
    runCli(['-q', 'import', file], { env: envFor(sbQuiet, t, { CALLCTL_CONFIG_DIR: tempDir(t) }), timeoutMs: 60_000 }),
  ]);
  assert.equal(r.code, 0, r.stderr);
  const line = /^progress: (\d+) of ~?(\d+) rows \(\d+ %\), 0 rejected, [\d.]+ rows\/s, \d+ left, ETA \d+ s/m.exec(r.stderr);
  assert.ok(line, r.stderr);
  assert.ok(Math.abs(Number(line[2]) - 70) <= 7, `the total is estimated near 70: ${line[2]}`);
  assert.ok(Number(line[1]) < 70, "reported mid-way");
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.doesNotMatch(quiet.stderr, /progress:/);
});

test('Ctrl-C: the summary counts every row read, the rows aborted in flight as unfinished', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 30, burst: 5 });
  const dir = tempDir(t);
  const file = writeLeads(dir, 200);
  const run = startCli(['import', file, '--json'], { env: envFor(sb, t) });
  await waitFor(() => sb.contacts().length >= 30);
  run.child.kill('SIGINT');
  await waitFor(() => run.stderr().includes('stopping: no new rows'), 30_000, 'the first Ctrl-C taken');
  run.child.kill('SIGINT'); // the second aborts what is in flight
  const r = await run.result;
  assert.ok(endedByCtrlC(r), `exit ${r.code} ${r.signal}: ${r.stderr}`);
  const s = JSON.parse(r.stdout);
  assert.equal(s.rows, s.created + s.matched + s.rejected + s.duplicates + s.failed + s.skipped + (s.unfinished ?? 0), JSON.stringify(s));
});

test('a header-only file: exit 0 and a warning; -q still says in one line that rows were rejected', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  writeFileSync(join(dir, 'empty.csv'), 'Name,Phone\n');
  const empty = await runCli(['import', join(dir, 'empty.csv')], { env });
  assert.equal(empty.code, 0);
  assert.match(empty.stderr, /warning: .*header and no rows/);
  writeFileSync(join(dir, 'bad.csv'), 'Name,Phone\nA,123\nB,+447400100301\n');
  const q = await runCli(['-q', 'import', join(dir, 'bad.csv')], { env });
  assert.equal(q.code, 6);
  assert.equal(q.stderr.trim().split('\n').length, 1, q.stderr);
  assert.match(q.stderr, /1 rejected, 0 duplicates, 0 failed of 2 rows/);
});

test('finished job records are kept 30 days — or the jobsKept newest — and unfinished ones always', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const config = tempDir(t);
  const journals = join(config, 'journals');
  mkdirSync(journals, { recursive: true });
  const now = Date.now();
  for (let i = 0; i < 25; i++) writeFileSync(join(journals, `j${i}.done-${now - i * 1000}.jsonl`), '{}\n');
  writeFileSync(join(journals, `old.done-${now - 40 * 24 * 3600 * 1000}.jsonl`), '{}\n');
  writeFileSync(join(journals, 'unfinished.jsonl'), '{"r":1,"s":"failed"}\n');
  const env = envFor(sb, t, { CALLCTL_CONFIG_DIR: config });
  const r = await runCli(['import', writeLeads(dir, 3)], { env });
  assert.equal(r.code, 0, r.stderr);
  let left = readdirSync(journals);
  assert.ok(!left.some((n) => n.startsWith('old.')), 'the 40-day-old record is gone');
  assert.equal(left.filter((n) => n.includes('.done-')).length, 26, 'every one of the last 30 days kept, and this run\'s');
  assert.ok(left.includes('unfinished.jsonl'), 'an unfinished journal is never pruned');

  assert.equal((await runCli(['config', 'set', 'jobsKept', '5'], { env })).code, 0);
  const again = await runCli(['import', writeLeads(dir, 4)], { env });
  assert.equal(again.code, 0, again.stderr);
  left = readdirSync(journals);
  const done = left.filter((n) => n.includes('.done-'));
  assert.equal(done.length, 5, `jobsKept 5: the five newest, this run's among them (${done.join(', ')})`);
  assert.deepEqual(done.filter((n) => n.startsWith('j')).map((n) => n.split('.')[0]).sort(), ['j0', 'j1', 'j2'], 'the oldest went first');
  assert.ok(left.includes('unfinished.jsonl'), 'an unfinished journal is never pruned');
  assert.equal((await runCli(['config', 'set', 'jobsKept', '0'], { env })).code, 2, 'jobsKept must be 1 or more');
});
