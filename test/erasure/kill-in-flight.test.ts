// A kill -9 while a DELETE is on its way: the service may erase the contact after callctl is gone,
// with no receipt written. `--resume` must not then tell the person "found 0" — the listing no
// longer shows the contact, and a DELETE of it meets 404 — nor forget it: the DELETE that was in
// flight is the same request sent again, and its 404 is that erasure done (docs/commands/erasure.md,
// "Sending the DELETEs"). Every contact of the
// person ends with one receipt of its erasure, and no request with a "found 0".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

const receiptsOf = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

/** A sandbox whose first `holding` DELETEs are each held (arrived, not yet applied) until the test lets it go. */
async function heldDeleteSandbox(t: Parameters<typeof startTestSandbox>[0], holding = 1) {
  const gates = Array.from({ length: holding }, () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((done) => (release = done));
    return { released, release };
  });
  let held = 0;
  const sb = await startTestSandbox(t, {
    rateLimit: 0,
    latencyMs: 1,
    wait: async () => {
      const deletes = sb.stats().byRoute['DELETE /contacts/{id}'] ?? 0;
      if (deletes > held && deletes <= holding) {
        held = deletes;
        await gates[deletes - 1]?.released;
      }
    },
  });
  return { sb, release: (n = 1) => gates[n - 1]?.release(), held: () => held };
}

for (const kind of ['phone', 'id'] as const) {
  test(`kill -9 with the DELETE of a ${kind} request in flight, then --resume: the contact the service erased gets its receipt, no "found 0"`, async (t) => {
    const { sb, release, held } = await heldDeleteSandbox(t);
    const env = envFor(sb, t);
    const dir = tempDir(t);
    const intl = (await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Zoë', phone: '+44 7700 900123' } })).body.id as string;
    const twin = (await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Zoë', phone: '07700 900123' } })).body.id as string;
    const other = (await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Ann', phone: '+44 7400 123456' } })).body.id as string;
    const file = join(dir, 'requests.txt');
    writeFileSync(file, kind === 'phone' ? '07700 900123\n' : `${intl}\n`);

    const run = startCli(['contacts', 'rm', '--from', file, '--country', 'GB', '--confirm'], { env });
    await waitFor(() => held() > 0);
    run.child.kill('SIGKILL');
    assert.equal((await run.result).signal, 'SIGKILL');
    // The service goes on and erases it: the answer has no one to reach.
    release();
    await waitFor(() => !sb.contacts().some((c) => c.id === intl));

    const resumed = await runCli(['contacts', 'rm', '--from', file, '--country', 'GB', '--confirm', '--resume', '--json'], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    const s = JSON.parse(resumed.stdout);
    assert.equal(s.notFound, 0, 'the person had records: none of them is "not found"');
    assert.doesNotMatch(resumed.stderr, /could not be searched/, 'the resumed journal, renamed at its end, is not an own copy gone missing');
    const receipts = receiptsOf(`${file}.erasures.jsonl`);
    assert.deepEqual(receipts.filter((r) => r.found === 0), [], 'no "found 0" for a person whose records were erased');
    const erased = receipts.filter((r) => r.erased === true).map((r) => r.id as string);
    const expected = kind === 'phone' ? [intl, twin] : [intl];
    assert.deepEqual([...erased].sort(), [...expected].sort(), 'one receipt per contact erased');
    assert.ok(receipts.every((r) => r.request === 1));
    assert.deepEqual(sb.contacts().map((c) => c.id).sort(), (kind === 'phone' ? [other] : [twin, other]).sort());
  });
}

test('a resumed erasure does not give a contact a second receipt: a DELETE answered before the kill keeps its one receipt', async (t) => {
  const { sb, release, held } = await heldDeleteSandbox(t, 2);
  const env = envFor(sb, t);
  const dir = tempDir(t);
  // Three records of her: the kill comes once the first DELETE is answered and receipted, while the second is held.
  const ids = [];
  for (const phone of ['+44 7700 900123', '07700 900123', '0044 7700 900123']) ids.push((await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Zoë', phone } })).body.id as string);
  const file = join(dir, 'requests.txt');
  writeFileSync(file, 'phone\n+44 7700 900123\n');
  const run = startCli(['contacts', 'rm', '--from', file, '--confirm'], { env });
  await waitFor(() => held() > 0);
  release(1);
  await waitFor(() => readFileSyncOr(`${file}.erasures.jsonl`).includes('"erased":true') && held() === 2);
  run.child.kill('SIGKILL');
  await run.result;
  release(2);
  await waitFor(() => sb.contacts().filter((c) => c.firstName === 'Zoë').length === 1);
  const resumed = await runCli(['contacts', 'rm', '--from', file, '--confirm', '--resume', '--json'], { env });
  assert.equal(resumed.code, 0, resumed.stderr);
  const erased = receiptsOf(`${file}.erasures.jsonl`).filter((r) => r.erased === true).map((r) => r.id as string);
  assert.equal(new Set(erased).size, erased.length, `no contact has two receipts: ${erased.join(', ')}`);
  assert.deepEqual([...erased].sort(), [...ids].sort());
  // One request, however often it runs: the killed run's receipt and the resumed run's carry its one id.
  const requestId = /^erasure request ([0-9a-f]{10}): receipts → /m.exec(resumed.stderr)?.[1];
  assert.ok(requestId, resumed.stderr);
  assert.deepEqual([...new Set(receiptsOf(`${file}.erasures.jsonl`).map((r) => r.requestId))], [requestId]);
  assert.deepEqual(sb.contacts().filter((c) => c.firstName === 'Zoë'), []);
});

function readFileSyncOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
