// The API does not show the form of a contact's id: a service may number its contacts. A request
// file of such ids, one a line, has lines of digits that read as phones and find no one — the
// person would be told "found 0" and their record kept. A bare line of digits that is the id of a
// listed contact, and no contact's phone, is that id; one that is both is exit 2, nothing sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

const at = '2026-10-01T09:00:00.000Z';
const contact = (id: string, firstName: string, phone: string) => ({ id, firstName, phone, createdAt: at, updatedAt: at });

/** A sandbox loaded with these contacts (its state file's folder outlives it: it saves there when closed). */
async function numberedService(t: Parameters<typeof startTestSandbox>[0], contacts: ReturnType<typeof contact>[]) {
  const dir = mkdtempSync(join(tmpdir(), 'callctl-test-'));
  const dataFile = join(dir, 'state.json');
  writeFileSync(dataFile, JSON.stringify({ contacts, calls: [] }));
  const sb = await startTestSandbox(t, { rateLimit: 0, dataFile });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { sb, dir };
}

test('a file of numeric ids, one a line, erases those contacts (each line says it was read as an id), with receipts of their erasure', async (t) => {
  const { sb, dir } = await numberedService(t, [contact('48213377', 'Zoë', '+44 7700 900123'), contact('48213378', 'Ann', '+44 7400 123456'), contact('48213379', 'Bea', '+44 7400 654321')]);
  const env = envFor(sb, t);
  const file = join(dir, 'ids.txt');
  writeFileSync(file, '48213377\n48213378\n');
  const r = await runCli(['contacts', 'rm', '--from', file, '--confirm', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).erased, 2);
  assert.equal(JSON.parse(r.stdout).notFound, 0);
  assert.match(r.stderr, /line 1: 48213377 is read as the id of contact 48213377/);
  assert.deepEqual(sb.contacts().map((c) => c.id), ['48213379']);
  const receipts = readFileSync(`${file}.erasures.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(receipts.map((x) => x.id ?? `found ${x.found}`), ['48213377', '48213378']);
});

test('a bare line of digits that is both a contact\'s id and another\'s phone is exit 2, nothing sent', async (t) => {
  const { sb, dir } = await numberedService(t, [contact('7700900123', 'Zoë', '+44 7400 111111'), contact('2', 'Ann', '07700 900123')]);
  const env = envFor(sb, t);
  const file = join(dir, 'ids.txt');
  writeFileSync(file, '7700900123\n');
  const r = await runCli(['contacts', 'rm', '--from', file, '--country', 'GB', '--confirm'], { env });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /line 1: 7700900123 is the id of contact 7700900123 and the phone of contact 2 .*nothing was sent/);
  assert.equal(sb.contacts().length, 2);
});
