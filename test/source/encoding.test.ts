// Reading files as operators have them: the encoding told from the bytes without --encoding, and
// a broken quote reported on the line it was opened. Each test runs the real CLI against the sandbox.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';
import { incompleteTail, Utf8Check } from '../../src/source/encoding.js';

type T = Parameters<typeof tempDir>[0];

async function importFile(t: T, name: string, args: string[] = [], bytes?: Buffer, input?: Buffer) {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  if (name !== '-') {
    if (bytes !== undefined) writeFileSync(join(dir, name), bytes);
    else copyFileSync(join(ROOT, 'fixtures', name), join(dir, name));
  }
  const file = name === '-' ? '-' : join(dir, name);
  const r = await runCli(['import', file, '--json', ...args], { env: envFor(sb, t), cwd: dir, ...(input ? { input } : {}) });
  const summary = r.stdout ? JSON.parse(r.stdout) : undefined;
  return { r, summary, contacts: sb.contacts(), byPhone: new Map(sb.contacts().map((c) => [c.phone, c])) };
}

/** Windows-1252 bytes of text whose characters are all in Latin-1 (as in the fixtures). */
const cp1252 = (text: string) => Buffer.from(text, 'latin1');

test('Excel on Windows (Windows-1252, semicolons) without --encoding: detected, said once on stderr', async (t) => {
  const { r, summary, byPhone } = await importFile(t, 'excel-semicolon-1252.csv', ['--country', 'FR']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(summary.created, 5);
  assert.deepEqual([byPhone.get('+33612345678')?.firstName, byPhone.get('+33734567890')?.city], ['Amélie', 'Besançon']);
  assert.equal(byPhone.get('+33656789012')?.lastName, 'Müller');
  const notes = r.stderr.split('\n').filter((l) => /Windows-1252/.test(l));
  assert.equal(notes.length, 1, r.stderr);
  assert.match(notes[0]!, /not valid UTF-8, read as Windows-1252.*--encoding/);
});

test('UTF-8 with accents and no BOM is read as UTF-8, with no note', async (t) => {
  const { r, summary, byPhone } = await importFile(t, 'utf8-accents-nobom.csv');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(summary.created, 3);
  assert.deepEqual([byPhone.get('+33611223344')?.firstName, byPhone.get('+33611223344')?.lastName, byPhone.get('+33611223344')?.city], ['Zoë', 'Brontë', 'Orléans']);
  assert.deepEqual([byPhone.get('+905327654321')?.firstName, byPhone.get('+905327654321')?.city], ['Çağrı', 'İzmir']);
  assert.doesNotMatch(r.stderr, /Windows-1252/);
});

test('Windows-1252 whose only non-ASCII byte is on the last line, megabytes in: still detected', async (t) => {
  // Over 2 MB of ASCII (an ignored column) before the one accented byte, so no first chunk sees it.
  const pad = 'x'.repeat(60_000);
  const lines = ['Name,Phone,Padding'];
  for (let i = 0; i < 40; i++) lines.push(`Person ${i},+44 7400 5${String(i).padStart(5, '0')},${pad}`);
  lines.push('Zoë Last,+44 7400 599999,end');
  const { r, summary, byPhone } = await importFile(t, 'late-accent.csv', [], cp1252(lines.join('\r\n') + '\r\n'));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(summary.created, 41);
  assert.equal(byPhone.get('+447400599999')?.firstName, 'Zoë');
  assert.match(r.stderr, /read as Windows-1252/);
});

test('stdin in Windows-1252 without --encoding: detected from its first bytes', async (t) => {
  const text = 'Prénom;Nom;Portable\r\nAmélie;Poulain;+33 6 12 34 56 78\r\n';
  const { r, byPhone } = await importFile(t, '-', [], undefined, cp1252(text));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(byPhone.get('+33612345678')?.firstName, 'Amélie');
  assert.match(r.stderr, /stdin: not valid UTF-8, read as Windows-1252/);
});

test('--encoding windows-1252 and --delimiter are taken as given (no note)', async (t) => {
  const text = 'Name|Phone|City\r\nJosé Núñez|+34 612 34 56 78|Málaga\r\n';
  const { r, byPhone } = await importFile(t, 'pipes.csv', ['--encoding', 'windows-1252', '--delimiter', '|'], cp1252(text));
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([byPhone.get('+34612345678')?.firstName, byPhone.get('+34612345678')?.city], ['José', 'Málaga']);
  assert.doesNotMatch(r.stderr, /not valid UTF-8/);
});

test('a quote opened on line 5 and never closed: exit 1 naming line 5, rows above imported', async (t) => {
  const { r, contacts } = await importFile(t, 'broken-quote.csv');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /broken-quote\.csv: line 5: a quote is never closed/);
  assert.deepEqual(contacts.map((c) => c.phone).sort(), ['+447400400001', '+447400400002', '+447400400003']);
});

test('UTF-8 validity across chunk boundaries', () => {
  const text = Buffer.from('aé€😀b');
  for (let cut = 0; cut <= text.length; cut++) {
    const check = new Utf8Check();
    assert.ok(check.push(text.subarray(0, cut)) && check.push(text.subarray(cut)) && check.end(), `cut at ${cut}`);
  }
  assert.equal(incompleteTail(Buffer.from([0x61, 0xf0, 0x9f])), 2);
  const bad = new Utf8Check();
  assert.equal(bad.push(cp1252('caf\u00e9!')), false);
  const truncated = new Utf8Check();
  assert.ok(truncated.push(Buffer.from([0x61, 0xc3])));
  assert.equal(truncated.end(), false);
});
