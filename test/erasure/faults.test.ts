// An erasure through a service that fails: 500, 503, dropped connections, answers held back past
// the timeout — and, on a DELETE, a fault after the contact was already erased (the client cannot
// tell). Every requested contact ends erased, every one receipted exactly once, no request "found
// 0", nothing erased that was not asked for, and the summary counts what the receipts say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

test('rm --from through 30% faults (held answers past --timeout included): every contact erased and receipted once, no "found 0", bystanders kept', async (t) => {
  // Faults start with the first DELETE: the listing before it is a one-shot read that gives up
  // within --timeout in all (docs/cli.md, "Throttling, retries and waits"), and this test's --timeout is short.
  let faulty = false;
  const sb = await startTestSandbox(t, {
    rateLimit: 0,
    faultDelayMs: 400,
    latencyMs: 1,
    wait: async () => {
      if (!faulty && (sb.stats().byRoute['DELETE /contacts/{id}'] ?? 0) > 0) {
        faulty = true;
        sb.setFaults(0.3);
      }
    },
  });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const lines: string[] = ['phone'];
  const asked = new Set<string>();
  for (let i = 0; i < 15; i++) {
    const intl = `+44 7700 9${String(10000 + i).padStart(5, '0')}`;
    for (const phone of [intl, `0${intl.slice(4)}`]) asked.add((await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: `P${i}`, phone } })).body.id);
    lines.push(intl);
  }
  const bystanders = [];
  for (let i = 0; i < 10; i++) bystanders.push((await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'By', phone: `+44 7400 1${String(10000 + i)}` } })).body.id);
  const file = join(dir, 'requests.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const r = await runCli(['contacts', 'rm', '--from', file, '--country', 'GB', '--confirm', '--timeout', '150', '--json'], { env, timeoutMs: 120_000 });
  sb.setFaults(0);
  assert.ok(faulty && sb.stats().faults > 0, 'the DELETEs met faults');
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.equal(s.erased, 30);
  assert.equal(s.notFound, 0);
  assert.equal(s.failed, 0);
  const receipts = readFileSync(`${file}.erasures.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(receipts.filter((x) => x.found === 0), []);
  const ids = receipts.filter((x) => x.erased).map((x) => x.id as string);
  assert.equal(ids.length, new Set(ids).size, 'each contact receipted once');
  assert.deepEqual([...ids].sort(), [...asked].sort());
  assert.deepEqual(sb.contacts().map((c) => c.id).sort(), [...bystanders].sort());
});
