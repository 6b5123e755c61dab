// Files as operators have them (docs/cli.md, "Data and files"): a FIFO and
// process substitution (`<(…)`, a pipe at /dev/fd/N) are read as streams, never seeked; a line of
// 50 MB is refused within its first megabyte; CRLF, LF and bare CR mixed in one file are the rows
// a spreadsheet shows, with their own line numbers — and a regular file's journal stays exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { BIN, cliEnv, ROOT, runCli, startCli, tempDir, type CliResult } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { assertEachOnce, leadPhone } from '../helpers/leads.js';
import { waitFor } from '../helpers/wait.js';

/** `n` lead rows after a header, as text. */
function leads(n: number, from = 0): string {
  const rows = ['First Name,Mobile'];
  for (let i = from; i < from + n; i++) rows.push(`Lead${i},${leadPhone(i)}`);
  return `${rows.join('\n')}\n`;
}

test('a FIFO with a writer process is imported as a stream: every row once, a record but no --resume, --resume refused before reading', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  const fifo = join(dir, 'leads.fifo');
  execFileSync('mkfifo', [fifo]);
  writeFileSync(join(dir, 'leads.csv'), leads(120));
  // The writer is another process, as `mkfifo p; producer > p &` would have it.
  const writer = once(spawn('sh', ['-c', `cat "${join(dir, 'leads.csv')}" > "${fifo}"`]), 'close');
  const r = await runCli(['import', fifo, '--json'], { env, cwd: dir, timeoutMs: 30_000 });
  assert.deepEqual(await writer, [0, null]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /reading .*leads\.fifo as a stream: kept for the record, but it cannot be resumed \(--resume needs a regular file\)/);
  assert.doesNotMatch(r.stderr, /ESPIPE|seek/);
  assert.equal(JSON.parse(r.stdout).created, 120);
  assertEachOnce(sb.contacts().map((c) => c.phone), 120);

  const resume = await runCli(['import', fifo, '--resume'], { env, cwd: dir, timeoutMs: 30_000 });
  assert.equal(resume.code, 2, resume.stderr);
  assert.match(resume.stderr, /--resume needs a regular file: .*leads\.fifo is a pipe/);
});

test('process substitution (`<(…)`, a pipe at /dev/fd/N) is read as it comes: a dry run, a workbook told by its first bytes', async (t) => {
  const dir = tempDir(t);
  /** `callctl <args> <(producer)` through bash, as an operator types it. */
  const run = (producer: string, args: string[]): Promise<CliResult> => {
    const child = spawn('bash', ['-c', `exec "${process.execPath}" "${BIN}" import <(${producer}) ${args.join(' ')}`], { cwd: dir, env: cliEnv({ CALLCTL_CONFIG_DIR: dir }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    return new Promise((done) => child.on('close', (code, signal) => done({ code, signal, stdout, stderr })));
  };
  writeFileSync(join(dir, 'leads.csv'), `${leads(300)}Bad,12\n`);
  // A slow producer: the rows arrive in pieces, after the header has been read.
  const csv = await run(`head -c 2000 leads.csv; sleep 0.3; tail -c +2001 leads.csv`, ['--dry-run', '--json']);
  assert.equal(csv.code, 6, csv.stderr);
  const s = JSON.parse(csv.stdout);
  assert.deepEqual([s.rows, s.rejected], [301, 1]);
  assert.match(s.rejectsFile, new RegExp(`^${dir}/\\d+\\.rejects\\.csv$`), 'the rejects go to the current folder, not /dev/fd');
  assert.match(readFileSync(s.rejectsFile, 'utf8'), /Bad,12,.*,302\n/);

  const book = await run(`cat "${join(ROOT, 'fixtures/leads.xlsx')}"`, ['--dry-run']);
  assert.equal(book.code, 1, book.stderr);
  assert.match(book.stderr, /looks binary, not a CSV file \(an \.xlsx workbook is read from a file, not a pipe/);
});

/** Streams `mb` megabytes of `fill` to `path` between `before` and `after`, never holding them. */
async function bigFile(path: string, before: string, mb: number, after: string): Promise<void> {
  const out = createWriteStream(path);
  out.write(before);
  const chunk = Buffer.alloc(1024 * 1024, 'y');
  for (let i = 0; i < mb; i++) if (!out.write(chunk)) await once(out, 'drain');
  out.end(after);
  await once(out, 'finish');
}

test('a 50 MB line is refused within its first megabyte: the header at once, a row as a short rejection with the rows around it kept', async (t) => {
  const dir = tempDir(t);
  // A heap far smaller than the line: holding it (or its cells) would end the process.
  const env = { CALLCTL_CONFIG_DIR: dir, NODE_OPTIONS: '--max-old-space-size=96' };
  const oneLine = join(dir, 'one-line.csv');
  await bigFile(oneLine, 'Name,Phone,', 50, '');
  const r = await runCli(['import', oneLine, '--dry-run'], { env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^callctl: .*one-line\.csv: line 1 is longer than 1 MB: no header is that long \(/);
  assert.ok(r.stderr.length < 400, `a short message, not the line: ${r.stderr.length} characters`);

  const row = join(dir, 'row.csv');
  await bigFile(row, `Name,Phone,Notes\nBefore,${leadPhone(1)},ok\r\nHuge,${leadPhone(2)},"`, 50, `\nstill the huge cell"\r\nAfter,${leadPhone(3)},ok\n`);
  const d = await runCli(['import', row, '--dry-run', '--json'], { env, cwd: dir });
  assert.equal(d.code, 6, d.stderr);
  const s = JSON.parse(d.stdout);
  assert.deepEqual([s.rows, s.rejected], [3, 1]);
  const rejects = readFileSync(s.rejectsFile, 'utf8');
  assert.match(rejects, /^\ufeffName,Phone,Notes,error,line\n,,,"the row is longer than 1 MB: not read \(a broken export, or a quote never closed\?\)",3\n$/);
  assert.ok(d.stderr.length < 1000, d.stderr);

  // An erasure request file checks every line before anything is sent: a long one is exit 2.
  const requests = join(dir, 'requests.txt');
  await bigFile(requests, `${leadPhone(1)}\n`, 2, `\n${leadPhone(2)}\n`);
  const rm = await runCli(['contacts', 'rm', '--from', requests, '--dry-run'], { env });
  assert.equal(rm.code, 2, rm.stderr);
  assert.match(rm.stderr, /^callctl: line 2: the row is longer than 1 MB: not read .*nothing was sent\)\n$/);
});

test('CRLF, LF and bare CR in one file: the rows a spreadsheet shows, each with its own line', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  const file = join(dir, 'mixed.csv');
  // Line 1 header (CRLF), 2 LF, 3 bare CR, 4 CRLF, 5–6 a quoted cell across a bare CR (a bad phone), 7 LF, 8 no end.
  writeFileSync(file, `First Name,Mobile,Notes\r\nAnn,${leadPhone(0)},a\nBob,${leadPhone(1)},b\rCat,${leadPhone(2)},c\r\nDan,12,"two\rlines"\nEve,${leadPhone(4)},e\nFay,${leadPhone(5)},f`);
  const r = await runCli(['import', file, '--json'], { env, cwd: dir });
  assert.equal(r.code, 6, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual([s.rows, s.created, s.rejected], [6, 5, 1]);
  assert.deepEqual(sb.contacts().map((c) => c.firstName).sort(), ['Ann', 'Bob', 'Cat', 'Eve', 'Fay']);
  assert.match(readFileSync(s.rejectsFile, 'utf8'), /\nDan,12,"two\rlines",.*,5\n$/);

  // A quote never closed, after mixed line ends: the line it was opened on.
  writeFileSync(join(dir, 'broken.csv'), `First Name,Mobile\r\nAnn,${leadPhone(6)}\rBob,${leadPhone(7)}\nCat,"${leadPhone(8)}\r\nDan,x\rEve,y\n`);
  const b = await runCli(['import', join(dir, 'broken.csv'), '--dry-run'], { env, cwd: dir });
  assert.equal(b.code, 1, b.stderr);
  assert.match(b.stderr, /broken\.csv: line 4: a quote is never closed/);
});

test('a regular file with mixed line ends: kill -9 mid-import, then --resume sends every row once', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 40, burst: 5 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  const ends = ['\n', '\r\n', '\r'];
  const rows = ['First Name,Mobile,Notes'];
  for (let i = 0; i < 150; i++) rows.push(`Lead${i},${leadPhone(i)},${i % 7 === 0 ? `"note${ends[i % 3]}on two lines"` : 'x'}`);
  const file = join(dir, 'mixed.csv');
  writeFileSync(file, rows.map((r, i) => r + (ends[i % 3] as string)).join(''));
  const run = startCli(['import', file], { env });
  await waitFor(() => sb.contacts().length >= 40);
  run.child.kill('SIGKILL');
  await run.result;
  const stored = sb.contacts().length;
  assert.ok(stored < 150, 'stopped mid-way');
  const resumed = await runCli(['import', file, '--resume', '--json'], { env });
  assert.equal(resumed.code, 0, resumed.stderr);
  const s = JSON.parse(resumed.stdout);
  assert.equal(s.skipped + s.created + s.matched, 150);
  assert.ok(s.skipped >= stored - 16, `skipped ${s.skipped} of ${stored} stored`);
  assertEachOnce(sb.contacts().map((c) => c.phone), 150);
});
