// What a job writes never hurts what it reads, and holds no key (docs/cli.md, "Data and
// files"): a rejects or receipts file that is the input — by name, symlink, hard link,
// or stdin/stdout redirected to it — is exit 2 with nothing sent; a rejects file is written whole
// under a temporary name and survives kill -9 and --resume; a key a server echoes is masked there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, linkSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cliEnv, runCli, startCli, tempDir, type CliResult } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { json, scriptedServer } from '../helpers/scripted-server.js';
import { assertEachOnce, leadPhone, writeLeads } from '../helpers/leads.js';
import { waitFor } from '../helpers/wait.js';

function refused(r: CliResult, what: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n').filter((l) => l.startsWith('callctl:'));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0] as string, what);
  assert.match(lines[0] as string, /nothing was sent/);
}

/** Runs the CLI with stdin and/or stdout on files (`< file`, `>> file`), as a shell would. */
function runRedirected(args: string[], o: { env: Record<string, string | undefined>; stdin?: string; stdoutAppend?: string }): Promise<CliResult> {
  const inFd = o.stdin !== undefined ? openSync(o.stdin, 'r') : 'ignore';
  const outFd = o.stdoutAppend !== undefined ? openSync(o.stdoutAppend, 'a') : 'pipe';
  const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(o.env), stdio: [inFd, outFd, 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((done) =>
    child.on('close', (code, signal) => {
      if (typeof inFd === 'number') closeSync(inFd);
      if (typeof outFd === 'number') closeSync(outFd);
      done({ code, signal, stdout: '', stderr });
    }),
  );
}

test('import: --rejects naming the source (as given, via a symlink, a hard link, stdin or stdout on it) is exit 2, nothing sent, the source intact', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  const file = writeLeads(dir, 40);
  const before = readFileSync(file, 'utf8');
  symlinkSync(file, join(dir, 'link.csv'));
  linkSync(file, join(dir, 'hard.csv'));

  refused(await runCli(['import', file, '--rejects', file], { env }), /--rejects .*leads\.csv is the file being imported: writing it would destroy what is being read/);
  refused(await runCli(['import', 'leads.csv', '--rejects', './sub/../leads.csv'], { env, cwd: dir }), /--rejects \.\/sub\/\.\.\/leads\.csv is the file being imported/);
  refused(await runCli(['import', file, '--rejects', join(dir, 'link.csv')], { env }), /--rejects .*link\.csv is the file being imported/);
  refused(await runCli(['import', file, '--rejects', join(dir, 'hard.csv')], { env }), /--rejects .*hard\.csv is the file being imported/);
  refused(await runCli(['import', join(dir, 'link.csv'), '--dry-run', '--rejects', file], { env }), /is the file being imported/);
  refused(await runRedirected(['import', '-', '--rejects', file], { env, stdin: file }), /--rejects .*leads\.csv is stdin, the file being imported/);
  refused(await runRedirected(['import', file, '--json'], { env, stdoutAppend: file }), /stdout is the file being imported/);
  refused(await runCli(['import', file, '--rejects', dir], { env }), /--rejects .* is a folder/);

  assert.equal(sb.stats().requests, 0, 'nothing was sent');
  assert.equal(readFileSync(file, 'utf8'), before, 'the source is untouched');
  // The same command with another rejects file runs, every row once.
  const ok = await runCli(['import', file, '--rejects', join(dir, 'out.csv'), '--json'], { env });
  assert.equal(ok.code, 0, ok.stderr);
  assertEachOnce(sb.contacts().map((c) => c.phone), 40);
});

test('calls outcome --from and contacts rm --from: --rejects or --receipts naming the request file is exit 2, nothing sent', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 5 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  const outcomes = join(dir, 'outcomes.csv');
  writeFileSync(outcomes, 'callId,outcome\ncall_00001,booked_job\ncall_00002,no_answer\n');
  const requests = join(dir, 'requests.txt');
  writeFileSync(requests, `${sb.contacts()[0]!.phone}\n${sb.contacts()[1]!.id}\n`);
  const before = [readFileSync(outcomes, 'utf8'), readFileSync(requests, 'utf8')];
  symlinkSync(requests, join(dir, 'requests-link.txt'));
  const requestsBefore = sb.stats().requests;

  refused(await runCli(['calls', 'outcome', '--from', outcomes, '--rejects', outcomes], { env }), /--rejects .*outcomes\.csv is the file of outcomes being read/);
  refused(await runRedirected(['calls', 'outcome', '--from', '-', '--rejects', outcomes], { env, stdin: outcomes }), /is stdin, the file of outcomes/);
  refused(await runCli(['contacts', 'rm', '--from', requests, '--confirm', '--receipts', requests], { env }), /--receipts .*requests\.txt is the request file/);
  refused(await runCli(['contacts', 'rm', '--from', requests, '--confirm', '--receipts', join(dir, 'requests-link.txt')], { env }), /--receipts .*requests-link\.txt is the request file/);
  refused(await runRedirected(['contacts', 'rm', '--from', '-', '--confirm', '--receipts', requests], { env, stdin: requests }), /--receipts .*requests\.txt is stdin, the request file/);
  // The refusals file beside the request file, when it is the request file itself (a symlink left there).
  symlinkSync(requests, `${requests}.rejects.csv`);
  refused(await runCli(['contacts', 'rm', '--from', requests, '--dry-run'], { env }), /the rejects file .*requests\.txt\.rejects\.csv is the request file/);

  assert.equal(sb.stats().requests, requestsBefore, 'not a request, not even a listing');
  assert.deepEqual([readFileSync(outcomes, 'utf8'), readFileSync(requests, 'utf8')], before);
  assert.equal(sb.contacts().length, 5, 'nobody erased');
});

test('a fresh rejects file is written whole: an older one stays until the run ends; after kill -9 its part is kept and --resume finishes it, every reject once', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 40, burst: 5 });
  const dir = tempDir(t);
  const env = envFor(sb, t);
  const rows = ['First Name,Mobile'];
  for (let i = 0; i < 120; i++) rows.push(i % 10 === 0 ? `Bad${i},12${i}` : `Lead${i},${leadPhone(i)}`);
  const file = join(dir, 'leads.csv');
  writeFileSync(file, `${rows.join('\n')}\n`);
  const rejectsPath = `${file}.rejects.csv`;
  writeFileSync(rejectsPath, 'the rejects of an earlier import\n');

  const run = startCli(['import', file], { env });
  await waitFor(() => existsSync(`${rejectsPath}.partial`) && sb.contacts().length >= 30);
  assert.equal(readFileSync(rejectsPath, 'utf8'), 'the rejects of an earlier import\n', 'the older file is whole while the run writes its own');
  run.child.kill('SIGKILL');
  await run.result;
  assert.ok(sb.contacts().length < 108, 'stopped mid-way');

  const resumed = await runCli(['import', file, '--resume', '--json'], { env });
  assert.equal(resumed.code, 6, resumed.stderr);
  assert.equal(JSON.parse(resumed.stdout).rejectsFile, rejectsPath);
  assert.ok(!existsSync(`${rejectsPath}.partial`), 'renamed into place');
  const lines = readFileSync(rejectsPath, 'utf8').replace(/^\ufeff/, '').trim().split('\n');
  assert.equal(lines[0], 'First Name,Mobile,error,line', 'one header');
  assert.deepEqual(lines.slice(1).map((l) => l.split(',')[0]).sort(), Array.from({ length: 12 }, (_, k) => `Bad${k * 10}`).sort(), 'each rejected row once');
  assert.equal(sb.contacts().length, 108);
});

test('a key the server echoes in its error is masked in the rejects file, as on stderr', async (t) => {
  const key = `sk_live_${'5e'.repeat(16)}`;
  const server = await scriptedServer(t, (hit, res) => {
    if (hit.method === 'POST') json(res, 422, { error: { message: `invalid request for ${String(hit.headers.authorization).replace(/^Bearer /, '')}` } });
    else json(res, 404, { error: { message: 'no such route' } });
  });
  const dir = tempDir(t);
  const file = writeLeads(dir, 3);
  const env = { CALLCTL_BASE_URL: server.baseUrl, CALLCTL_API_KEY: key, CALLCTL_CONFIG_DIR: join(dir, 'config') };
  const r = await runCli(['--verbose', 'import', file, '--json'], { env });
  assert.equal(r.code, 6, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.rejected, 3);
  const rejects = readFileSync(s.rejectsFile, 'utf8');
  assert.match(rejects, /invalid request for sk_live_…5e5e/, 'the message is kept, the key masked');
  assert.ok(!rejects.includes(key), 'the key is not in the rejects file');
  assert.ok(!r.stderr.includes(key) && !r.stdout.includes(key));
});
