// A dry run big enough to parse its phones on worker threads (src/import/phone-threads.ts) ends
// exactly as the in-thread path does: the same summary, the same rejects at the same lines with
// the same reasons, in the same order. The file mixes invalid phones, duplicates, bad e-mails,
// extensions, rows without a phone, blank lines and quoted cells spanning lines, spread over
// several batches and the hand-over from the main thread to the workers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { runCli, tempDir } from '../helpers/cli.js';

const ROWS = 6000;

/** The file, and the rejects expected (line → reason) in file order. */
function leadsFile(dir: string): { file: string; expected: [number, string][] } {
  const rows = ['Name,Phone,Email,Notes'];
  const expected: [number, string][] = [];
  let line = 2;
  let previousRejected = false;
  for (let i = 0; i < ROWS; i++) {
    const number = String(100000 + i);
    let row: string;
    let reason: string | undefined;
    if (i % 97 === 5) {
      row = `Bad Phone ${i},+44 12,bad${i}@example.com,`;
      reason = 'phone "+44 12" is not a valid number for GB';
    } else if (i % 89 === 7) {
      // The phone of the row before, written nationally: a duplicate of it, unless that one was rejected.
      row = `Again ${i},07400 ${String(100000 + i - 1)},again${i}@example.com,`;
      if (!previousRejected) reason = `duplicate: phone +447400${String(100000 + i - 1)} is on an earlier row of this file`;
    } else if (i % 83 === 11) {
      row = `Bad Mail ${i},+447400${number},not-an-email,`;
      reason = 'email "not-an-email" is not an e-mail address';
    } else if (i % 101 === 13) {
      row = `No Phone ${i},,nophone${i}@example.com,`;
      reason = 'no phone (the phone is how the service matches a contact; --allow-no-phone imports it anyway)';
    } else if (i % 401 === 23) {
      row = `Word ${i},call me,word${i}@example.com,`;
      reason = 'phone "call me" is not a phone number';
    } else if (i % 211 === 17) {
      // A quoted cell over three lines: the next row starts two lines further down.
      row = `Multi ${i},+447400${number},multi${i}@example.com,"one\ntwo\nthree"`;
    } else if (i % 307 === 19) {
      row = `Ext ${i},+44 7400 ${number} ext. 12,ext${i}@example.com,`;
    } else {
      // A blank line now and then before an ordinary row (no row, skipped).
      if (i % 1000 === 600) {
        rows.push('');
        line += 1;
      }
      row = `Lead ${i},${i % 2 === 0 ? `+44 7400 ${number}` : `07400 ${number}`},lead${i}@example.com,`;
    }
    rows.push(row);
    if (reason !== undefined) expected.push([line, reason]);
    previousRejected = reason !== undefined && !reason.startsWith('duplicate');
    line += row.split('\n').length;
  }
  const file = join(dir, 'leads.csv');
  writeFileSync(file, `${rows.join('\n')}\n`);
  return { file, expected };
}

async function dryRun(dir: string, file: string, workers: string, name: string) {
  const rejects = join(dir, `${name}.rejects.csv`);
  const r = await runCli(['-v', 'import', file, '--dry-run', '--country', 'GB', '--json', '--rejects', rejects], { env: { CALLCTL_CONFIG_DIR: join(dir, `config-${name}`), CALLCTL_PHONE_WORKERS: workers }, cwd: dir });
  const summary = JSON.parse(r.stdout) as Record<string, unknown>;
  const rows = parse(readFileSync(rejects, 'utf8'), { columns: true }) as Record<string, string>[];
  return { r, summary: { ...summary, elapsedMs: 0, rejectsFile: null } as Record<string, unknown>, rejects: rows };
}

test('a dry run on worker threads gives the in-thread summary and rejects, line for line', async (t) => {
  const dir = tempDir(t);
  const { file, expected } = leadsFile(dir);
  const inThread = await dryRun(dir, file, '0', 'main');
  assert.equal(inThread.r.code, 6, inThread.r.stderr);
  assert.doesNotMatch(inThread.r.stderr, /worker thread/);
  assert.deepEqual(inThread.rejects.map((row) => [Number(row.line), row.error]), expected);

  for (const workers of ['1', '2']) {
    const threaded = await dryRun(dir, file, workers, `workers-${workers}`);
    assert.equal(threaded.r.code, 6, threaded.r.stderr);
    assert.match(threaded.r.stderr, new RegExp(`phones parsed on ${workers} worker threads? from row 2001`));
    assert.deepEqual(threaded.summary, inThread.summary);
    assert.deepEqual(threaded.rejects, inThread.rejects);
  }
  const s = inThread.summary as unknown as { rows: number; rejected: number; duplicates: number };
  assert.equal(s.rows, ROWS);
  assert.equal(s.rejected + s.duplicates, expected.length);
});

test('a broken quote after the workers started: every row above it is counted, then the same error', async (t) => {
  const dir = tempDir(t);
  const { file, expected } = leadsFile(dir);
  writeFileSync(file, `${readFileSync(file, 'utf8')}Broken,+447400999999,broken@example.com,"never closed\nmore\n`);
  const inThread = await dryRun(dir, file, '0', 'main');
  const threaded = await dryRun(dir, file, '1', 'workers');
  assert.notEqual(inThread.r.code, 0);
  assert.match(inThread.r.stderr, /a quote is never closed/);
  assert.equal(threaded.r.code, inThread.r.code);
  assert.equal(threaded.r.stderr.split('\n').find((l) => l.includes('never closed')), inThread.r.stderr.split('\n').find((l) => l.includes('never closed')));
  assert.deepEqual(threaded.summary, inThread.summary);
  assert.deepEqual(threaded.rejects, inThread.rejects);
  assert.equal((inThread.summary as { rows: number }).rows, ROWS);
  assert.equal(inThread.rejects.length, expected.length);
});
