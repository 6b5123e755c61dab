// The README's day runs as written (docs/development.md, "The documents, and the README's
// examples"): every line of the `sh` blocks of its section "A day with callctl" runs in bash, in
// order, with `callctl` on PATH, against a sandbox on loopback — a login from stdin, a dry run, an
// import stopped by Ctrl-C and resumed, jobs, the limit, outcomes, an erasure with receipts and its
// purge, an undo. Each line exits as its comment says (0 unless `exit N`); the checks below hold
// what an operator would look at, and the sandbox's state after each step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cliEnv, ROOT, runCli, tempDir } from '../helpers/cli.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';
import type { Sandbox } from '../../src/sandbox/index.js';

const SECTION = '## A day with callctl';
/** What the examples stand for, and what the test puts in their place. */
const BASE_URL = 'https://api.example.com/api/v1';
const JOB_ID = '3fa9c2';

interface Line {
  /** As written in the README. */
  text: string;
  /** What bash runs: the text without its comment, the base URL and job id put in. */
  command: string;
  exit: number;
  ctrlC: boolean;
}

/** The README's day: its `sh` lines, and the output block it shows. */
function readmeDay(): { lines: Line[]; shown: string[] } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(`\n${SECTION}\n`);
  assert.ok(at >= 0, `README has a section "${SECTION.slice(3)}"`);
  const end = readme.indexOf('\n## ', at + 1);
  const section = readme.slice(at, end < 0 ? undefined : end);
  const lines: Line[] = [];
  const shown: string[] = [];
  // Fenced blocks, line by line: ```sh is what runs, a bare ``` what the README shows of an output.
  let fence: string | undefined;
  for (const text of section.split('\n')) {
    if (text.startsWith('```')) {
      fence = fence === undefined ? text.slice(3) : undefined;
      continue;
    }
    if (fence === '' && text.trim() !== '') shown.push(text.trim());
    if (fence !== 'sh' || text.trim() === '' || text.trim().startsWith('#')) continue;
    const cut = /\s#\s/.exec(text);
    const comment = cut ? text.slice(cut.index) : '';
    const exit = /\bexit (\d+)/.exec(comment);
    lines.push({ text: text.trim(), command: (cut ? text.slice(0, cut.index) : text).trim(), exit: exit ? Number(exit[1]) : 0, ctrlC: /Ctrl-C/.test(comment) });
  }
  return { lines, shown };
}

/** Runs one line in bash, in its own process group (Ctrl-C reaches the group, as a terminal's does). */
function bash(command: string, cwd: string, env: NodeJS.ProcessEnv): { pid: number; stderr: () => string; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn('bash', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 60_000);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
  return { pid: child.pid!, stderr: () => stderr, done };
}

const phoneOf = (sb: Sandbox, digits: string) => sb.contacts().find((c) => c.phone === `+44${digits}`);
const call = (sb: Sandbox, id: string) => sb.calls().find((c) => c.id === id)!;
const leadPhones = (work: string) => [...readFileSync(join(work, 'leads.csv'), 'utf8').matchAll(/(?:\+44 |0)(7400 2\d{5})/g)].map((m) => (m[1] as string).replace(' ', ''));

type Result = { code: number | null; stdout: string; stderr: string };
type Check = (r: Result, s: { sb: Sandbox; work: string; config: string }) => void;

/** The checks of the day, by the line's text: a line edited or gone fails until its checks follow. */
const CHECKS: Record<string, Check> = {
  'callctl auth status': (r, { sb }) => {
    const out = r.stdout + r.stderr;
    assert.ok(out.includes(sb.baseUrl), out);
    assert.ok(out.includes(`sk_live_…${sb.secretKey.slice(-4)}`), `the key masked: ${out}`);
    assert.ok(!out.includes(sb.secretKey), 'the key is never shown');
  },
  'callctl import leads.csv --dry-run': (r, { sb }) => {
    assert.match(r.stderr, /from Mobile Phone/);
    assert.match(r.stderr, /from Business Phone: Mobile Phone is not valid/);
    assert.equal(sb.contacts().length, 6, 'a dry run sends nothing');
  },
  'callctl import leads.csv': (r, { sb }) => {
    assert.match(r.stderr, /stopping: no new rows/);
    const stored = sb.contacts().length - 6;
    assert.ok(stored >= 1 && stored < 12, `part of the list stored: ${stored}`);
  },
  'callctl import leads.csv --resume': (_r, { sb, work }) => {
    assert.equal(sb.contacts().length, 6 + 12, 'every good row stored once');
    const rejects = readFileSync(join(work, 'leads.csv.rejects.csv'), 'utf8').replace(/^\ufeff/, '').trim().split('\n');
    assert.equal(rejects.length, 1 + 3, rejects.join('\n'));
    assert.match(rejects[0] as string, /^First Name,Last Name,E-mail Address,Mobile Phone,Business Phone,Company,error,line$/);
  },
  'cat leads.csv.rejects.csv': (r) => assert.match(r.stdout, /Noah,Brown/),
  'callctl jobs ls': (r) => assert.match(r.stdout, /import.*leads\.csv/),
  [`callctl jobs show ${JOB_ID}`]: (r) => assert.match(r.stdout + r.stderr, /leads\.csv/),
  'callctl limit': (r) => assert.match(r.stdout + r.stderr, /\d/),
  'callctl calls outcome call_00005 booked_job --value 250 --currency GBP': (_r, { sb }) => {
    assert.deepEqual([call(sb, 'call_00005').outcome, call(sb, 'call_00005').value, call(sb, 'call_00005').currency], ['booked_job', 250, 'GBP']);
  },
  'callctl calls outcome --from outcomes.csv --currency GBP --dry-run': (_r, { sb }) => assert.equal(call(sb, 'call_00001').outcome, null),
  'callctl calls outcome --from outcomes.csv --currency GBP': (_r, { sb, work }) => {
    assert.deepEqual([call(sb, 'call_00001').outcome, call(sb, 'call_00001').value, call(sb, 'call_00001').currency], ['booked_job', 250, 'GBP']);
    assert.deepEqual([call(sb, 'call_00003').outcome, call(sb, 'call_00003').value, call(sb, 'call_00003').currency], ['quote_sent', 1200.5, 'GBP']);
    assert.equal(call(sb, 'call_00004').outcome, null, '"Booked Job" is refused');
    assert.match(readFileSync(join(work, 'outcomes.csv.rejects.csv'), 'utf8'), /Booked Job.*booked_job/);
  },
  'callctl calls summary --by channel': (r) => assert.match(r.stdout, /booked_job/),
  'callctl contacts rm --email zoe.muller@example.com --dry-run': (r, { sb }) => {
    assert.ok(phoneOf(sb, '7400200005'), 'nothing erased');
    assert.match(r.stderr, /leads\.csv\.rejects\.csv/);
  },
  'callctl contacts rm --email zoe.muller@example.com --confirm --purge-local --receipts erasures.jsonl': (_r, { sb, work }) => {
    assert.equal(phoneOf(sb, '7400200005'), undefined, 'Zoë erased');
    const rejects = readFileSync(join(work, 'leads.csv.rejects.csv'), 'utf8');
    assert.doesNotMatch(rejects, /200005|Muller/, 'her row purged from the rejects file');
    assert.match(rejects, /Noah,Brown/, 'the other rows kept');
    const receipts = readFileSync(join(work, 'erasures.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const erased = receipts.filter((r) => r.erased === true);
    assert.equal(erased.length, 1);
    assert.equal(erased[0]!.request, 1);
    assert.match(String(erased[0]!.requestId), /^[0-9a-f]{10}$/);
    assert.ok(receipts.some((r) => String(r.cleaned).endsWith('leads.csv.rejects.csv') && r.rows === 1), JSON.stringify(receipts));
    assert.doesNotMatch(JSON.stringify(receipts), /zoe|müller|muller|7400/i, 'no personal data in the receipts');
  },
  'cat erasures.jsonl': (r) => assert.match(r.stdout, /"erased":true/),
  [`callctl import undo ${JOB_ID} --dry-run`]: (_r, { sb }) => assert.equal(sb.contacts().length, 6 + 11),
  [`callctl import undo ${JOB_ID} --confirm`]: (_r, { sb, work }) => {
    assert.deepEqual(leadPhones(work).filter((p) => phoneOf(sb, p)), [], 'every contact the import created is gone');
    assert.equal(sb.contacts().length, 6, 'the seeded contacts stay');
  },
};

test("the README's day runs as written against the sandbox", async (t) => {
  const { lines, shown } = readmeDay();
  for (const text of Object.keys(CHECKS)) assert.ok(lines.some((l) => l.command === text), `the README's day has the line "${text}"`);

  // Requests wait here while `held` is set, once the sandbox holds `holdFrom` contacts: the import
  // interrupted by Ctrl-C has stored a row and has the next ones on the wire.
  let holdFrom: number | undefined;
  const held: (() => void)[] = [];
  const sb = await startTestSandbox(t, {
    seed: 6,
    latencyMs: 1,
    wait: (ms) => (holdFrom !== undefined && sb.contacts().length >= holdFrom ? new Promise<void>((go) => held.push(go)) : new Promise((go) => setTimeout(go, ms))),
  });
  const work = tempDir(t, 'callctl-day-');
  for (const f of readdirSync(join(ROOT, 'fixtures/day'))) copyFileSync(join(ROOT, 'fixtures/day', f), join(work, f));
  const config = join(work, '.config');
  const bin = join(work, '.bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'callctl'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(bin, 'callctl'), 0o755);
  const env = cliEnv({ PATH: `${bin}:${process.env.PATH}`, SECRET_KEY: sb.secretKey, CALLCTL_CONFIG_DIR: config });

  let jobId: string | undefined;
  for (const line of lines) {
    if (line.command.includes(JOB_ID) && jobId === undefined) {
      const jobs = JSON.parse((await runCli(['jobs', 'ls', '--json'], { env: { CALLCTL_CONFIG_DIR: config } })).stdout) as { id: string; kind: string; dryRun?: boolean }[];
      jobId = jobs.find((j) => j.kind === 'import' && j.dryRun !== true)?.id;
      assert.ok(jobId, 'the import is a job');
    }
    const command = line.command.replaceAll(BASE_URL, sb.baseUrl).replaceAll(JOB_ID, jobId?.slice(0, 6) ?? JOB_ID);
    const run = bash(command, work, env);
    if (line.ctrlC) {
      holdFrom = sb.contacts().length + 1;
      await waitFor(() => held.length > 0, 30_000, 'a row on the wire after the first was stored');
      process.kill(-run.pid, 'SIGINT');
      await waitFor(() => run.stderr().includes('stopping:'), 30_000, 'the import saying it stops');
      holdFrom = undefined;
      for (const go of held.splice(0)) go();
    }
    const r = await run.done;
    assert.equal(r.code, line.ctrlC ? 130 : line.exit, `"${line.text}" exits ${line.ctrlC ? 130 : line.exit}:\n${r.stdout}\n${r.stderr}`);
    assert.doesNotMatch(r.stdout + r.stderr, new RegExp(sb.secretKey), `"${line.text}" never shows the key`);
    if (line.command.startsWith('callctl import leads.csv --dry-run')) {
      for (const l of shown) assert.ok(r.stderr.includes(l), `the README shows "${l}", the dry run says:\n${r.stderr}`);
    }
    CHECKS[line.command]?.(r, { sb, work, config });
  }
});
