// The parser's records reach the rows in order, and its error only after every record before it
// (src/source/open.ts, recordsOf): the good rows above a broken quote are all counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transform } from 'node:stream';
import { recordsOf } from '../../src/source/open.js';
import { waitFor } from '../helpers/wait.js';

test('records still in the parser when its flush fails come before the error', async () => {
  // As csv-parse at a quote never closed: the last chunk's records are pushed after the input has
  // ended (so Node lets the flush run at once), and the flush fails while they wait in the buffer.
  const parser = new Transform({
    objectMode: true,
    transform(_chunk, _enc, done) {
      setImmediate(() => {
        for (let i = 0; i < 2000; i++) this.push({ i });
        done();
      });
    },
    flush(done) {
      done(new Error('Quote Not Closed'));
    },
  });
  const records = recordsOf<{ i: number }>(parser);
  parser.write('rows');
  parser.end();
  const seen: number[] = [];
  // A slow reader: the queue fills, the parser is paused, the flush fails meanwhile.
  await waitFor(() => parser.errored !== null, 10_000, 'the flush failed');
  const error = await (async () => {
    for (;;) {
      const next = await records.next();
      if (next.done) return undefined;
      seen.push(next.value.i);
      if (seen.length % 100 === 0) await new Promise((r) => setImmediate(r));
    }
  })().catch((e: Error) => e);
  assert.equal(error?.message, 'Quote Not Closed');
  assert.equal(seen.length, 2000);
  assert.deepEqual(seen.slice(0, 3), [0, 1, 2]);
  assert.equal(seen[1999], 1999);
});
