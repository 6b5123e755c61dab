// A job refused on its first request stored nothing and keeps no journal to resume (docs/cli.md,
// "import"): the operator sees one line — the refusal and its hint — not a summary whose
// "unfinished … --resume sends them" points at a journal that is not there. --json keeps its object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { writeLeads } from '../helpers/leads.js';

test('a wrong key or a read-only key on the first row: one line on stderr after the mapping, exit 3, no --resume advice', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const file = writeLeads(tempDir(t), 30);
  for (const key of [`sk_live_${'0'.repeat(36)}`, sb.readOnlyKey]) {
    const env = envFor(sb, t, { CALLCTL_API_KEY: key });
    const r = await runCli(['import', file], { env });
    assert.equal(r.code, 3, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.match(lines[0] as string, /leads\.csv: .*→ phone/);
    assert.equal(lines.length, 2, r.stderr);
    assert.match(lines[1] as string, /^callctl: the (API refused the key \(401\)|key is not allowed to do this \(403\))/);
    assert.doesNotMatch(r.stderr, /resume|unfinished/);

    const json = await runCli(['import', file, '--json'], { env });
    assert.equal(json.code, 3, json.stderr);
    assert.equal(JSON.parse(json.stdout).created, 0);
    assert.doesNotMatch(json.stderr, /resume|unfinished/);
  }
  assert.equal(sb.contacts().length, 0);
});
