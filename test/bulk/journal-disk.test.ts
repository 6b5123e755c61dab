// A slow disk never stops the sending (docs/commands/import.md, "The journal"): the journal's fsync runs on libuv's
// pool (fs.fsync), not on the main thread; every row is still written to the journal before the
// job counts it (test/import/resume.test.ts: kill -9, then --resume, every row once).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { assertEachOnce, writeLeads } from '../helpers/leads.js';

test('the journal is fsynced off the main thread while rows are sent, and once on the main thread at the close', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const report = join(dir, 'fsyncs.json');
  // A disk that takes 300 ms a sync: fsyncSync blocks the thread that calls it; fs.fsync answers late.
  const preload = join(dir, 'slow-disk.cjs');
  writeFileSync(
    preload,
    `const fs = require('node:fs');
const counts = { sync: 0, pool: 0 };
const realSync = fs.fsyncSync;
const realPool = fs.fsync;
fs.fsyncSync = (fd) => { counts.sync += 1; Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300); return realSync(fd); };
fs.fsync = (fd, cb) => { counts.pool += 1; realPool(fd, (err) => setTimeout(() => cb(err), 300)); };
process.on('exit', () => realWrite(${JSON.stringify(report)}, JSON.stringify(counts)));
const realWrite = fs.writeFileSync;
`,
  );
  const rows = 40;
  const file = writeLeads(dir, rows);
  // 40 rows at 16 a second: two and a half seconds of sending, a dozen of the journal's 200-ms syncs.
  const r = await runCli(['import', file, '--rate', '16', '--json'], { env: envFor(sb, t, { NODE_OPTIONS: `--require ${preload}` }) });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).created, rows);
  assertEachOnce(sb.contacts().map((c) => c.phone), rows);
  const counts = JSON.parse(readFileSync(report, 'utf8')) as { sync: number; pool: number };
  assert.ok(counts.pool >= 2, `the journal was fsynced on the pool while sending (${counts.pool})`);
  assert.ok(counts.sync <= 2, `fsyncSync only at the close, not every 200 ms of sending (${counts.sync})`);
});
