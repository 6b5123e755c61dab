// The API shows no search, so finding a person reads every page of contacts — and pages are counted
// by position. A contact erased by someone else while the pages are read moves every later contact
// one place up: the first of the next page slips onto the page already read, and is never seen.
// For an erasure that is a miss (and a receipt saying "found 0"). The envelope's total tells that
// the list changed while it was read; the listing is then read again, until it holds still.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

/**
 * 100 contacts before her, so that she is the first of page 2 (callctl reads 100 a page); while
 * page 2 is asked for, another operator erases one contact of page 1 (`shifts` times, each time a
 * page 2 is asked for).
 */
async function personOnPageTwo(t: Parameters<typeof startTestSandbox>[0], shifts: number) {
  let pageTwos = 0;
  let erasing = false;
  const sb = await startTestSandbox(t, {
    rateLimit: 0,
    latencyMs: 1,
    wait: async () => {
      if (erasing) return;
      const lists = sb.stats().byRoute['GET /contacts'] ?? 0;
      if (lists <= pageTwos * 2 + 1 || pageTwos >= shifts) return;
      pageTwos += 1;
      erasing = true;
      const first = sb.contacts().find((c) => c.firstName === 'Other');
      if (first) assert.equal((await sandboxRequest(sb, 'DELETE', `/contacts/${first.id}`)).status, 204);
      erasing = false;
    },
  });
  for (let i = 0; i < 100; i++) {
    const r = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Other', phone: `+44 7400 ${String(100000 + i)}` } });
    assert.equal(r.status, 201);
  }
  const zoe = (await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Zoë', phone: '+44 7700 900123', email: 'zoe@example.com' } })).body.id as string;
  for (let i = 0; i < 20; i++) await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Later', phone: `+44 7400 ${String(200000 + i)}` } });
  return { sb, zoe, erasedMeanwhile: () => pageTwos };
}

test('find --phone finds a person even when a contact before her is erased while the pages are read', async (t) => {
  const { sb, zoe, erasedMeanwhile } = await personOnPageTwo(t, 1);
  const env = envFor(sb, t);
  const r = await runCli(['contacts', 'find', '--phone', '+44 7700 900123', '--json'], { env });
  assert.equal(erasedMeanwhile(), 1, 'a contact was erased while the list was read');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual((JSON.parse(r.stdout) as Array<{ id: string }>).map((c) => c.id), [zoe]);
});

test('rm --from erases a person whose record shifted onto a page already read: no "found 0"', async (t) => {
  const { sb, zoe, erasedMeanwhile } = await personOnPageTwo(t, 1);
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const file = join(dir, 'requests.txt');
  writeFileSync(file, 'zoe@example.com\n');
  const r = await runCli(['contacts', 'rm', '--from', file, '--confirm', '--json'], { env });
  assert.equal(erasedMeanwhile(), 1);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).erased, 1);
  assert.ok(!sb.contacts().some((c) => c.id === zoe), 'she is erased');
  const receipts = readFileSync(`${file}.erasures.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(receipts.map((x) => x.id ?? `found ${x.found}`), [zoe]);
});

test('a list that keeps changing while it is read is said to have changed: a contact may have been missed', async (t) => {
  const { sb, erasedMeanwhile } = await personOnPageTwo(t, 50);
  const env = envFor(sb, t);
  const r = await runCli(['contacts', 'find', '--phone', '+44 7700 900123', '--json'], { env });
  assert.ok(erasedMeanwhile() >= 2);
  assert.match(r.stderr, /changed while .*read/);
});
