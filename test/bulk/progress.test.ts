// An outage during a bulk job is one line kept up to date, on a virtual clock: the client's
// OutageWatch fed failures and answers as an import meets them, and plain progress (stderr not a
// terminal) looked at every half second — a line as the outage starts, one every 10 s while it
// lasts, one as it ends; a lone fault among answers is no outage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { outageLine, plainProgress, progressLine, type ProgressFacts } from '../../src/bulk/progress.js';
import { OutageWatch } from '../../src/http/outage.js';

const facts = (watch: OutageWatch, now: number, finished: number): ProgressFacts => ({
  finished, sent: finished, skipped: 0, rejected: 0, duplicates: 0, failed: 0, read: 5000, bytesRead: 100, size: 100, pace: 20, throttled: 0, outage: watch.view(now),
});

test('an outage is one line as it starts, one each 10 s, one as it ends — not a line per retry', () => {
  const watch = new OutageWatch();
  const said: Array<[number, string]> = [];
  let now = 1_000_000;
  const look = plainProgress(now, (line) => said.push([now, line]));
  const started = now;
  // Answers for a while: no line before 10 s.
  for (; now < started + 5_000; now += 500) {
    watch.answered(now);
    look(facts(watch, now, 2591), now, started);
  }
  // A lone fault among answers is no outage.
  watch.failed(now, 'server error 500');
  watch.answered(now + 100);
  // The service goes: retries every second or so, for 25 s.
  const downAt = now;
  let leave: () => void = () => undefined;
  for (; now < downAt + 25_000; now += 500) {
    if ((now - downAt) % 1_000 === 0) {
      leave();
      watch.failed(now, 'connection refused');
      leave = watch.retrying(now + 4_000);
    }
    look(facts(watch, now, 2591), now, started);
  }
  leave();
  watch.answered(now);
  look(facts(watch, now, 2600), now, started);
  const lines = said.map(([, l]) => l);
  assert.deepEqual(lines.filter((l) => l.includes('unreachable for') && !l.includes('again')), [
    'service unreachable for 2 s (connection refused), retrying in 4 s; 2,591 of 5,000 rows done',
    'service unreachable for 12 s (connection refused), retrying in 4 s; 2,591 of 5,000 rows done',
    'service unreachable for 22 s (connection refused), retrying in 4 s; 2,591 of 5,000 rows done',
  ]);
  assert.equal(lines.at(-1), 'service reachable again (unreachable for 25 s); 2,600 of 5,000 rows done');
  // The ETA is paused, not frozen: no progress line (with its ETA) while the service is down.
  assert.ok(said.filter(([at, l]) => at > downAt + 2_000 && at < now && l.includes('ETA')).length === 0);
  assert.equal(lines.length, 3 + 1, lines.join('\n'));
});

test('the outage line replaces the progress line while the service is down', () => {
  const watch = new OutageWatch();
  watch.failed(0, 'timed out');
  const f = facts(watch, 12_400, 10);
  assert.equal(outageLine(f, 12_400), 'service unreachable for 12 s (timed out), retrying; 10 of 5,000 rows done');
  watch.answered(13_000);
  assert.equal(outageLine(facts(watch, 13_000, 11), 13_000), undefined);
  assert.match(progressLine(facts(watch, 13_000, 11), 13_000), /ETA/);
});
