// The dry run's estimate of the real run's time (docs/commands/import.md, "Before it runs"): before any real run, the
// only limit known is a first guess from one listing's count and reset — at 40 requests/s with a
// burst of 5 it guessed 2.4/s, and the estimate said 16 times the real time "at the limit read from
// headers". A guess is said to be one, in the estimate and in `callctl limit`; once a real run has
// measured the refill, the estimate is at the measured limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { writeLeads } from '../helpers/leads.js';

test('a dry run before any real run says its estimate rests on a first guess; after a real run, on the measured limit', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 40, burst: 5 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const file = writeLeads(dir, 200, 'a.csv');

  const first = await runCli(['import', file, '--dry-run'], { env });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /the real run would take about \d+ s for 200 requests at [\d.]+ requests\/s, a first guess from the headers of a listing, not a measured limit \(the real run measures it; callctl limit shows it\)\n/);
  const limit = await runCli(['limit'], { env });
  assert.match(limit.stdout + limit.stderr, /token bucket: [\d.]+ requests\/s, burst 5 \(a first guess from a count and its reset, not yet measured: a real run measures it\)/);

  assert.equal((await runCli(['import', writeLeads(dir, 80, 'b.csv')], { env })).code, 0);
  const measured = await runCli(['import', file, '--dry-run'], { env });
  assert.match(measured.stderr, /the real run would take about \d+ s for 200 requests at the limit read from headers on \d{4}-\d\d-\d\d, [\d.]+ requests\/s\n/);
  assert.doesNotMatch(measured.stderr, /guess/);
  const rate = Number(/, ([\d.]+) requests\/s\n/.exec(measured.stderr)?.[1]);
  assert.ok(rate > 20 && rate <= 40, `measured ${rate}/s`);
});

test('a dry run with nothing to send says the real run sends nothing, not "about 1 s for 0 requests"', async (t) => {
  const file = join(tempDir(t), 'bad.csv');
  writeFileSync(file, 'Name,Phone\nA,12\nB,34\n');
  const r = await runCli(['import', file, '--dry-run', '--rate', '5', '--country', 'GB'], { env: { CALLCTL_CONFIG_DIR: tempDir(t) } });
  assert.equal(r.code, 6, r.stderr);
  assert.match(r.stderr, /^ {2}the real run would send no request$/m);
  assert.doesNotMatch(r.stderr, /for 0 requests/);
});
