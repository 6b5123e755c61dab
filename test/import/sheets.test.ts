// Workbooks of several sheets: no sheet is left behind without a word. Read by default, the first
// sheet is named with the others that hold rows; `--sheet all` imports every sheet whose header
// maps (duplicates across sheets are duplicates, each reject names its sheet and row) and resumes
// exactly. fixtures/leads-sheets.xlsx: "Leads" (3 rows, one bad phone), "Referrals" (3 leads, one
// a lead of "Leads" again), "Notes" (no phone column).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { endedByCtrlC, ROOT, runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

type T = Parameters<typeof tempDir>[0];

function workbook(t: T): { dir: string; file: string } {
  const dir = tempDir(t);
  const file = join(dir, 'leads-sheets.xlsx');
  copyFileSync(join(ROOT, 'fixtures/leads-sheets.xlsx'), file);
  return { dir, file };
}

test('the first sheet is read and the others holding rows are named, with their row counts, in one line', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const { dir, file } = workbook(t);
  const r = await runCli(['import', file, '--country', 'GB', '--json'], { env: envFor(sb, t), cwd: dir });
  assert.equal(r.code, 6, r.stderr);
  assert.deepEqual([JSON.parse(r.stdout).rows, JSON.parse(r.stdout).created], [3, 2]);
  const lines = r.stderr.split('\n').filter((l) => l.includes('other sheets'));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /read worksheet "Leads"; it has other sheets holding rows: "Referrals" \(3 rows\), "Notes" \(2 rows\) \(--sheet <name> reads one, --sheet all/);
  assert.deepEqual(sb.contacts().map((c) => c.phone).sort(), ['+447400700001', '+447400700002']);
});

test('--sheet all: every sheet whose header maps, duplicates across sheets, each reject naming its sheet and row', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const { dir, file } = workbook(t);
  const r = await runCli(['import', file, '--sheet', 'all', '--country', 'GB', '--json'], { env: envFor(sb, t), cwd: dir });
  assert.equal(r.code, 6, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual([s.rows, s.created, s.rejected, s.duplicates], [6, 4, 1, 1]);
  assert.match(r.stderr, /skipping worksheet "Notes" \(2 rows\): its header maps no phone column \(Topic, Owner\)/);
  assert.deepEqual(sb.contacts().map((c) => [c.firstName, c.lastName, c.phone]).sort(), [
    ['Ada', 'Byron', '+447400700001'], ['Charles', 'Babbage', '+447400700002'], ['Ida', 'Tarbell', '+447400700012'], ['Nellie', 'Bly', '+447400700011'],
  ]);
  const rejects = parse(readFileSync(`${file}.rejects.csv`, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;
  assert.deepEqual(Object.keys(rejects[0]!), ['First Name', 'Last Name', 'Mobile', 'Email', 'Referred By', 'Name', 'Phone Number', 'sheet', 'error', 'line']);
  assert.deepEqual(rejects.map((x) => [x.sheet, x.line, x.error]), [
    ['Leads', 'Leads!4', 'phone "12345" is not a valid number for GB'],
    ['Referrals', 'Referrals!4', 'duplicate: phone +447400700001 is on an earlier row of this file'],
  ]);
  assert.equal(rejects[1]!.Name, 'Ada Again', 'a row keeps its own cells under its own headers');
});

test('--sheet all: interrupted, then --resume sends exactly what is left', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 1, burst: 1 });
  const { dir, file } = workbook(t);
  const env = envFor(sb, t);
  const first = startCli(['import', file, '--sheet', 'all', '--country', 'GB', '--concurrency', '1'], { env, cwd: dir });
  await waitFor(() => sb.contacts().length >= 1);
  // The rows in flight fill the window: the second Ctrl-C aborts them (they stay unfinished).
  first.child.kill('SIGINT');
  await waitFor(() => first.stderr().includes('stopping: no new rows'), 30_000, 'the first Ctrl-C taken');
  first.child.kill('SIGINT');
  const r1 = await first.result;
  assert.ok(endedByCtrlC(r1), `exit ${r1.code} ${r1.signal}: ${first.stderr()}`);
  const done = sb.contacts().length;
  assert.ok(done < 4, `interrupted before the end (${done} stored)`);
  const again = await runCli(['import', file, '--sheet', 'all', '--country', 'GB', '--resume', '--json'], { env, cwd: dir });
  const s = JSON.parse(again.stdout);
  assert.equal(again.code, s.rejected + s.duplicates > 0 ? 6 : 0, again.stderr);
  assert.equal(s.skipped + s.created + s.matched + s.rejected + s.duplicates, 6, 'every row once');
  // A row the server stored whose answer the second Ctrl-C cut off is unfinished in the journal:
  // it is sent again and matched, never created twice (one row in flight at --concurrency 1).
  assert.equal(s.created, 4 - done, 'only what was left is created');
  assert.ok(s.matched <= 1, `at most the row in flight sent again (${s.matched} matched)`);
  assert.equal(s.rows, 6);
  assert.deepEqual(sb.contacts().map((c) => c.phone).sort(), ['+447400700001', '+447400700002', '+447400700011', '+447400700012']);
});
