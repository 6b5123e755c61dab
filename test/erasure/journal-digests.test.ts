// An import's journal keeps, for `import undo`, digests of what it wrote to each contact (`w`, one
// digest of a created contact's fields; `wf`, one per field changed). A digest of one field — a
// phone, an e-mail, a name — is an unsalted hash anyone can confirm a guess against: personal data.
// Once the contact is erased there is nothing for the undo to compare: `--purge-local` takes the
// erased contacts' digests out with their earlier values, and leaves every other line as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

type Line = { r?: number; d?: { id?: string; w?: string; wf?: Record<string, string> }; i?: { match?: string; b?: Record<string, unknown> } };

test('--purge-local takes the erased contacts\' digests out of an import\'s journal (created and changed), the others\' lines stay byte for byte, and undo still runs', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 4 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const [q, r] = sb.contacts();
  const update = join(dir, 'update.csv');
  writeFileSync(update, `firstName,lastName,phone\nRenamed,Quinn,${q!.phone}\nRenamed,Rivera,${r!.phone}\nZoë,Müller,+44 7911 123456\nAda,Lovelace,+44 7400 654321\n`);
  const imported = await runCli(['import', update, '--check-existing'], { env });
  assert.equal(imported.code, 0, imported.stderr);
  const zoe = sb.contacts().find((c) => c.firstName === 'Zoë')!.id;
  const ada = sb.contacts().find((c) => c.firstName === 'Ada')!.id;
  const journals = join(env.CALLCTL_CONFIG_DIR!, 'journals');
  const journal = join(journals, readdirSync(journals).find((n) => n.endsWith('.jsonl'))!);
  const before = readFileSync(journal, 'utf8').split('\n');
  const digestOf = (lines: string[], id: string) => lines.filter((l) => l !== '').map((l) => JSON.parse(l) as Line).filter((e) => e.d?.id === id && (e.d.w !== undefined || e.d.wf !== undefined));
  for (const id of [q!.id, r!.id, zoe, ada]) assert.equal(digestOf(before, id).length, 1, `the import noted a digest of ${id}`);

  const requests = join(dir, 'requests.txt');
  writeFileSync(requests, `${q!.id}\n+44 7911 123456\n`);
  const erased = await runCli(['contacts', 'rm', '--from', requests, '--confirm', '--purge-local', '--json'], { env });
  assert.equal(erased.code, 0, erased.stderr);
  const copies = JSON.parse(erased.stdout).localCopies as Array<{ file: string; rows: number; purged: boolean }>;
  assert.deepEqual(copies.find((c) => c.file === journal), { file: journal, rows: 4, purged: true }, 'q\'s earlier values, q\'s and Zoë\'s digests, the phone Zoë\'s row was sent with');

  const after = readFileSync(journal, 'utf8').split('\n');
  assert.deepEqual(digestOf(after, q!.id), [], 'no digest of the erased q');
  assert.deepEqual(digestOf(after, zoe), [], 'no digest of the erased Zoë');
  assert.ok(!after.some((l) => l.includes('+447911123456')), 'nor the phone her row was sent with');
  assert.equal(after.length, before.length);
  const touched = after.map((l, i) => (l === before[i] ? -1 : i)).filter((i) => i >= 0);
  const aboutErased = (l: string) => l.includes(q!.id) || l.includes(zoe) || l.includes('"p":"+447911123456"') || /"match":/.test(l);
  assert.ok(touched.every((i) => aboutErased(before[i]!)), 'only the erased contacts\' lines change');
  assert.ok(after.some((l) => l.includes(r!.id) && l.includes('"wf"')) && after.some((l) => l.includes(ada) && l.includes('"w"')), 'the others keep theirs');

  // The undo still runs: r and Ada undone, the erased ones gone.
  const undo = await runCli(['import', 'undo', JSON.parse(after[0]!).job, '--confirm', '--json'], { env });
  assert.equal(undo.code, 0, undo.stderr);
  assert.equal(sb.contacts().find((c) => c.id === r!.id)?.firstName, r!.firstName);
  assert.ok(!sb.contacts().some((c) => c.id === ada));
});
