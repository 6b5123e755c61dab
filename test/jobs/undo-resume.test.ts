// An undo is a job of its own: stopped by kill -9 or Ctrl-C mid-way (through 429s), it needs
// --resume (or `jobs resume` from another process), and then every contact the import created is
// erased once, each with one receipt — a contact whose DELETE went out just before the kill reads
// as erased, not as "gone".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { writeLeads } from '../helpers/leads.js';
import { waitFor } from '../helpers/wait.js';

const ROWS = 120;

for (const signal of ['SIGKILL', 'SIGINT'] as const) {
  test(`an undo stopped by ${signal} mid-way, then resumed: every created contact erased once, one receipt each`, async (t) => {
    const sb = await startTestSandbox(t, { rateLimit: 40, burst: 5, seed: 3, rateLimitHeaders: 'none' });
    const env = envFor(sb, t);
    const file = writeLeads(tempDir(t), ROWS);
    const imported = await runCli(['import', file, '--json'], { env });
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(JSON.parse(imported.stdout).created, ROWS);
    const importId = (JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ id: string }>)[0]!.id;

    const run = startCli(['import', 'undo', importId, '--confirm'], { env });
    await waitFor(() => sb.contacts().length <= 3 + ROWS - 30);
    run.child.kill(signal);
    const first = await run.result;
    if (signal === 'SIGKILL') assert.equal(first.signal, 'SIGKILL');
    else {
      assert.equal(first.code, 130, first.stderr);
      assert.match(first.stderr, /interrupted after \d+ erased .*--resume/);
    }
    const left = sb.contacts().length - 3;
    assert.ok(left > 0 && left < ROWS, `stopped mid-way (${left} left)`);

    // Seen from another process: the undo is interrupted; a plain run says which flag to pick.
    const jobs = JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ id: string; kind: string; state: string }>;
    const undo = jobs.find((j) => j.kind === 'undo')!;
    assert.equal(undo.state, 'interrupted');
    const plain = await runCli(['import', 'undo', importId, '--confirm'], { env });
    assert.equal(plain.code, 2);
    assert.match(plain.stderr, /did not finish.*--resume.*--restart/);

    const resumed = signal === 'SIGKILL' ? await runCli(['jobs', 'resume', undo.id.slice(0, 5), '--json'], { env }) : await runCli(['import', 'undo', importId, '--confirm', '--resume', '--json'], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    const s = JSON.parse(resumed.stdout);
    assert.equal(s.failed, 0);
    assert.equal(s.gone, undefined, 'a contact erased by the first run is not "gone"');
    assert.equal(sb.contacts().length, 3, 'only the seeded contacts are left');
    assert.ok(sb.stats().throttled > 0, 'through 429s');

    const receipts = readFileSync(`${file}.undo.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; did: string });
    assert.equal(receipts.length, ROWS, 'one receipt per contact');
    assert.equal(new Set(receipts.map((r) => r.id)).size, ROWS);
    assert.ok(receipts.every((r) => r.did === 'erased'));
    assert.equal(JSON.parse((await runCli(['jobs', 'show', undo.id, '--json'], { env })).stdout).state, 'finished');
  });
}
