// The bulk engine on its own, with a fake plan: what every job (import, writeback, erasure)
// relies on — each row in exactly one count, rejects with their line, duplicates, the journal and
// --resume, Ctrl-C (stop reading, let the rows in flight finish; twice: abort them), a refused key
// stopping the job, and the service taken for down after a run of failures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { type BulkIO, type BulkPlan, runBulk } from '../../src/bulk/engine.js';
import { Journal } from '../../src/bulk/journal.js';
import { RejectsFile } from '../../src/bulk/rejects.js';
import { ApiError, InterruptedError } from '../../src/errors.js';
import { Logger } from '../../src/output/log.js';
import { tempDir } from '../helpers/cli.js';

type Item = { id: string };

/** Rows `id,action` where action is ok | bad | 404 | 500 | 401 | slow. */
function rowsOf(lines: string[]) {
  return (async function* () {
    let line = 1;
    for (const l of lines) yield { cells: l.split(','), line: ++line };
  })();
}

function plan(sent: string[], opts: { onSend?: (id: string) => Promise<void> } = {}): BulkPlan<Item> {
  const err = (status: number) => new ApiError(status === 401 ? 'unauthorized' : status >= 500 ? 'server_error' : 'rejected', `status ${status}`, { method: 'PATCH', path: '/x', status, serverMessage: `server says ${status}`, attempts: 1 });
  return {
    check: (row) => (row.cells[1] === 'bad' ? { reject: 'bad row' } : row.cells[1] === 'gone' ? { done: 'notFound' } : { send: { id: row.cells[0] as string }, key: row.cells[0] as string }),
    duplicate: (key) => `duplicate ${String(key)}`,
    async send(item, row, signal) {
      await opts.onSend?.(item.id);
      if (signal.aborted) throw new InterruptedError();
      const action = row.cells[1];
      if (action === '404') throw err(404);
      if (action === '500') throw err(500);
      if (action === '401') throw err(401);
      sent.push(item.id);
      return 'updated';
    },
    refused: (e) => `refused: ${e.serverMessage ?? ''}`,
  };
}

function io(dir: string, lines: string[], extra: Partial<BulkIO> = {}): BulkIO & { signals: Map<string, () => void> } {
  const signals = new Map<string, () => void>();
  return {
    rows: rowsOf(lines),
    log: new Logger(new PassThrough(), 'quiet', false),
    onSignal: (s, fn) => (signals.set(s, fn), () => signals.delete(s)),
    rejects: new RejectsFile(join(dir, 'rejects.csv'), ['id', 'action'], false),
    dryRun: false,
    window: 4,
    startProgress: async () => ({ stop: () => undefined }),
    signals,
    ...extra,
  };
}

const total = (c: { rows: number; endings: Record<string, number>; rejected: number; duplicates: number; failed: number; skipped: number; unfinished: number; valid: number }) =>
  Object.values(c.endings).reduce((a, b) => a + b, 0) + c.rejected + c.duplicates + c.failed + c.skipped + c.unfinished + c.valid;

test('every row ends in exactly one count; rejects carry the reason and the line', async (t) => {
  const dir = tempDir(t);
  const sent: string[] = [];
  const lines = ['a,ok', 'b,bad', 'c,404', 'a,ok', 'd,500', 'e,gone', 'f,ok'];
  const r = await runBulk(plan(sent), io(dir, lines));
  assert.deepEqual(r.counts.endings, { updated: 2, notFound: 1 });
  assert.deepEqual([r.counts.rejected, r.counts.duplicates, r.counts.failed], [2, 1, 1]);
  assert.equal(total(r.counts), lines.length);
  assert.deepEqual(sent.sort(), ['a', 'f']);
  const rejects = readFileSync(join(dir, 'rejects.csv'), 'utf8');
  assert.match(rejects, /^\ufeffid,action,error,line\n/);
  assert.match(rejects, /b,bad,bad row,3\n/);
  assert.match(rejects, /c,404,refused: server says 404,4\n/);
  assert.match(rejects, /a,ok,duplicate a,5\n/);
});

test('the journal records every finished row; a resumed run skips them and re-sends the failed ones', async (t) => {
  const dir = tempDir(t);
  const lines = ['a,ok', 'b,bad', 'c,500', 'd,ok'];
  const header = { job: '0123456789', kind: 'test', file: '-', options: {}, files: {} };
  const journal = Journal.open(dir, 'job', { resume: undefined, header, now: Date.now });
  const first = await runBulk(plan([]), io(dir, lines, { journal }));
  assert.equal(first.counts.failed, 1);
  const earlier = Journal.earlier(dir, 'job');
  assert.ok(earlier, 'a run with a failed row is not finished');
  assert.deepEqual([...earlier.rows], [[1, 'updated'], [2, 'rejected'], [3, 'failed'], [4, 'updated']]);
  const sent: string[] = [];
  const again = await runBulk(plan(sent), io(dir, ['a,ok', 'b,bad', 'c,ok', 'd,ok'], { journal: Journal.open(dir, 'job', { resume: earlier, header, now: Date.now }), earlier }));
  assert.deepEqual(sent, ['c']);
  assert.equal(again.counts.skipped, 3);
  assert.equal(Journal.earlier(dir, 'job'), undefined, 'finished: nothing left to resume');
});

test('Ctrl-C stops reading and lets the rows in flight finish; a second Ctrl-C aborts them, and they count as unfinished', async (t) => {
  const dir = tempDir(t);
  const lines = Array.from({ length: 50 }, (_, i) => `r${i},ok`);
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const sent: string[] = [];
  const bulk = io(dir, lines);
  let started = 0;
  // The first row goes alone (and is answered at once); the four after it are held in flight.
  const running = runBulk(plan(sent, { onSend: async () => void (started++ > 0 && (await gate)) }), bulk);
  while (started < 5) await new Promise((r) => setImmediate(r));
  bulk.signals.get('SIGINT')?.();
  release();
  const r = await running;
  assert.equal(r.interrupted, true);
  assert.equal(r.counts.endings.updated, 5, 'the first row and the four in flight finished');
  assert.equal(total(r.counts), r.counts.rows);

  const dir2 = tempDir(t);
  const bulk2 = io(dir2, lines);
  let started2 = 0;
  const never = new Promise<void>(() => undefined);
  const running2 = runBulk(plan([], { onSend: async () => void (started2++ > 0 && (await Promise.race([never, new Promise((r) => setTimeout(r, 50))]))) }), bulk2);
  while (started2 < 5) await new Promise((r) => setImmediate(r));
  bulk2.signals.get('SIGINT')?.();
  bulk2.signals.get('SIGINT')?.();
  const r2 = await running2;
  assert.equal(r2.counts.unfinished, 5, 'the four aborted in flight and the row read waiting for a place: unfinished, not failed');
  assert.equal(total(r2.counts), r2.counts.rows);
});

test('a refused key (401) stops the job; twenty failures in a row take the service for down', async (t) => {
  const dir = tempDir(t);
  const r = await runBulk(plan([]), io(dir, ['a,401', ...Array.from({ length: 30 }, (_, i) => `x${i},ok`)], { window: 1 }));
  assert.ok(r.fatal instanceof ApiError && r.fatal.status === 401);
  assert.equal(total(r.counts), r.counts.rows);
  const down = await runBulk(plan([]), io(tempDir(t), Array.from({ length: 40 }, (_, i) => `y${i},500`), { window: 1 }));
  assert.match(String((down.fatal as Error).message), /20 rows in a row failed/);
  assert.equal(down.counts.failed, 20);
});

test('the first row goes alone: a refused key is met once, and a job that stored nothing leaves no record', async (t) => {
  const dir = tempDir(t);
  let sends = 0;
  const header = { job: '0123456789', kind: 'test', file: '-', options: {}, files: {} };
  const journal = Journal.open(dir, 'refused', { resume: undefined, header, now: Date.now });
  const r = await runBulk(plan([], { onSend: async () => void sends++ }), io(dir, ['a,401', ...Array.from({ length: 30 }, (_, i) => `x${i},401`)], { window: 16, journal }));
  assert.ok(r.fatal instanceof ApiError && r.fatal.status === 401);
  assert.equal(sends, 1, 'one request, not one per row in flight');
  assert.equal(Journal.earlier(dir, 'refused'), undefined, 'nothing to --resume or --restart');
  assert.equal(total(r.counts), r.counts.rows);

  // A job that did not happen leaves no record.
  assert.deepEqual(readdirSync(dir), []);

  // A row stored before the refusal: the journal stays, for --resume.
  const kept = Journal.open(dir, 'kept', { resume: undefined, header, now: Date.now });
  const r2 = await runBulk(plan([]), io(dir, ['a,ok', 'b,401', 'c,401'], { window: 1, journal: kept }));
  assert.ok(r2.fatal instanceof ApiError);
  assert.equal(Journal.earlier(dir, 'kept')?.rows.get(1), 'updated');
});

test('a dry run checks every row and sends none', async (t) => {
  const sent: string[] = [];
  const r = await runBulk(plan(sent), io(tempDir(t), ['a,ok', 'b,bad', 'a,ok'], { dryRun: true }));
  assert.deepEqual([r.counts.valid, r.counts.rejected, r.counts.duplicates], [1, 1, 1]);
  assert.deepEqual(sent, []);
});
