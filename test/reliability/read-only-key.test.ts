// The first write of every bulk job goes alone (docs/network.md, "Failures, timeouts and waits"): with the sandbox's read-only key,
// an import, an outcome writeback and an erasure each send one refused request, stop with exit 3,
// and leave nothing to --restart — the same command run again meets the same one refusal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { writeLeads } from '../helpers/leads.js';

test('import, writeback and erasure with a read-only key: one refused request each, exit 3, nothing to --restart', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 40 });
  const env = envFor(sb, t, { CALLCTL_API_KEY: sb.readOnlyKey });
  const dir = tempDir(t);
  const writes = () => {
    const r = sb.stats().byRoute;
    return (r['POST /contacts'] ?? 0) + (r['PATCH /calls/{id}'] ?? 0) + (r['DELETE /contacts/{id}'] ?? 0);
  };

  const leads = writeLeads(dir, 200);
  const outcomes = join(dir, 'outcomes.csv');
  writeFileSync(outcomes, `callId,outcome\n${sb.calls().map((c) => `${c.id},booked_job`).join('\n')}\n`);
  const requests = join(dir, 'requests.txt');
  writeFileSync(requests, `${sb.contacts().slice(0, 30).map((c) => c.id).join('\n')}\n`);

  for (const [name, args] of [
    ['import', ['--concurrency', '8', 'import', leads]],
    ['writeback', ['--concurrency', '8', 'calls', 'outcome', '--from', outcomes]],
    ['erasure', ['--concurrency', '8', 'contacts', 'rm', '--from', requests, '--confirm']],
  ] as const) {
    for (const run of [1, 2]) {
      const before = writes();
      const r = await runCli([...args], { env });
      assert.equal(r.code, 3, `${name} run ${run}: ${r.stderr}`);
      assert.match(r.stderr, /the key is not allowed to do this \(403\)/, name);
      assert.doesNotMatch(r.stderr, /did not finish|--restart/, `${name} run ${run}: nothing to restart`);
      assert.equal(writes() - before, 1, `${name} run ${run}: one refused request, not one per row in flight`);
    }
  }
  assert.equal(sb.contacts().length, 40);
});
