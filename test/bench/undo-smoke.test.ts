// Keeps the undo section of `npm run bench` working (a file of its own: the smoke runs of the other
// sections already take most of a file's time under load). No figure is asserted, only that it ran:
// the undo read a small account by one listing and a large one a contact at a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { smoke } from '../helpers/bench.js';

test('bench/run.mjs --smoke --only=undo: the undo beside its import, in a small account and a large one', async () => {
  const out = await smoke('--only=undo');
  assert.ok(out.includes('## 9. Undo'), out);
  // The undo beside its import: a listing in a small account, a read a contact in a large one.
  assert.match(out, /\| 50 contacts \| [\d.]+ s \(\d+ requests\) \| [\d.]+ s \(\d requests\) \| [\d.]+ s \(\d+ requests\) \| one listing \|/);
  assert.match(out, /\| 5,000 contacts \| [\d.]+ s \(\d+ requests\) \| [\d.]+ s \(51 requests\) \| [\d.]+ s \(\d+ requests\) \| one read a contact \|/);
});
