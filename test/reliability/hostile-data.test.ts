// Data is shown, not obeyed (docs/cli.md, "Data and files"): a contact whose
// fields hold escape sequences cannot retitle, clear or recolour the operator's terminal through
// any table or message; JSON keeps the data as it is; a CSV cell a spreadsheet would run as a
// formula carries OWASP's `'` guard (off with --csv-raw), and callctl's reader takes it off again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

const TITLE_AND_CLEAR = '\u001b]0;owned\u0007\u001b[2J';
const HOSTILE = {
  firstName: `${TITLE_AND_CLEAR}Eve`,
  lastName: 'Mal\u009b31mory',
  phone: '+447400100555',
  notes: '=HYPERLINK("http://evil.example/?leak","click me")',
  city: '@SUM(1+1)',
  status: '-2+3',
};
/** Any control character a terminal acts on: C0 (but the table's own newlines), DEL, C1. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

async function hostileContact(t: { after(fn: () => unknown): void }) {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const made = await sandboxRequest(sb, 'POST', '/contacts', { body: HOSTILE });
  assert.equal(made.status, 201);
  return { sb, id: made.body.id as string, env: envFor(sb, t) };
}

test('get, ls, find and the erasure preview show control characters escaped; --json keeps them as data', async (t) => {
  const { sb, id, env } = await hostileContact(t);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'requests.txt'), `${HOSTILE.phone}\n`);
  const shown = [
    await runCli(['contacts', 'get', id], { env }),
    await runCli(['contacts', 'ls', '--all'], { env }),
    await runCli(['contacts', 'find', '--phone', HOSTILE.phone], { env }),
    await runCli(['contacts', 'rm', '--phone', HOSTILE.phone], { env }),
    await runCli(['contacts', 'rm', '--from', join(dir, 'requests.txt'), '--dry-run'], { env }),
  ];
  for (const r of shown) {
    assert.ok(r.code === 0 || r.code === 2, r.stderr);
    assert.doesNotMatch(r.stdout, CONTROL, `raw control characters in: ${JSON.stringify(r.stdout)}`);
    assert.doesNotMatch(r.stderr, CONTROL);
    assert.ok(r.stdout.includes('\\e]0;owned\\x07\\e[2JEve'), r.stdout);
  }
  assert.ok(shown[0]!.stdout.includes('Mal\\x9b31mory'), 'C1 escaped');
  assert.equal(sb.contacts().length, 3, 'nobody erased');

  const asJson = await runCli(['contacts', 'get', id, '--json'], { env });
  assert.equal(JSON.parse(asJson.stdout).firstName, HOSTILE.firstName, 'JSON carries the data as it is');
});

test("messages quoting data escape it: a header, an id, the server's words", async (t) => {
  const { env } = await hostileContact(t);
  const dir = tempDir(t);
  const file = join(dir, 'leads.csv');
  writeFileSync(file, `Name,Phone,Sh\u001b[31moe\u001b]0;x\u0007\n"Ann ${TITLE_AND_CLEAR}",+447400100777,9\n`);
  const imp = await runCli(['import', file, '--dry-run'], { env });
  assert.equal(imp.code, 0, imp.stderr);
  assert.match(imp.stderr, /ignoring columns: Sh\\e\[31moe\\e\]0;x\\x07/);
  const missing = await runCli(['contacts', 'get', `ct_\u001b[2Jgone`], { env });
  assert.equal(missing.code, 4, missing.stderr);
  assert.match(missing.stderr, /ct_\\e\[2Jgone/);
  for (const r of [imp, missing]) assert.doesNotMatch(r.stderr, CONTROL);
});

test('--format csv guards formula cells (phones too) unless --csv-raw; the CSV re-imports as the values it held', async (t) => {
  const { sb, id, env } = await hostileContact(t);
  const guarded = await runCli(['contacts', 'get', id, '--format', 'csv'], { env });
  const row = guarded.stdout.trim().split('\n')[1] as string;
  assert.ok(row.includes(`'+447400100555`), row);
  assert.ok(row.includes(`"'=HYPERLINK(""http://evil.example/?leak"",""click me"")"`), row);
  assert.ok(row.includes(`'@SUM(1+1)`) && row.includes(`'-2+3`), row);
  const raw = await runCli(['contacts', 'get', id, '--format', 'csv', '--csv-raw'], { env });
  const rawRow = raw.stdout.trim().split('\n')[1] as string;
  assert.ok(rawRow.includes(',+447400100555,') && rawRow.includes('"=HYPERLINK(') && !rawRow.includes(`'`), rawRow);

  // Every contact out as a guarded CSV, into an empty service: the same values come back.
  const dir = tempDir(t);
  const all = await runCli(['contacts', 'ls', '--all', '--format', 'csv'], { env });
  writeFileSync(join(dir, 'contacts.csv'), all.stdout);
  const other = await startTestSandbox(t, { rateLimit: 0 });
  const imp = await runCli(['import', join(dir, 'contacts.csv'), '--json'], { env: envFor(other, t) });
  assert.equal(imp.code, 0, imp.stderr);
  assert.equal(JSON.parse(imp.stdout).created, 3);
  const strip = ({ id: _i, createdAt: _c, updatedAt: _u, ...fields }: Record<string, unknown>) => fields;
  const byPhone = (list: Array<Record<string, unknown>>) => Object.fromEntries(list.map((c) => [c.phone, strip(c)]));
  assert.deepEqual(byPhone(other.contacts() as never), byPhone(sb.contacts() as never));
});

test('the changes file carries the guard, the rejects file keeps the rows as read, and both re-import as the values they held', async (t) => {
  const { sb, env } = await hostileContact(t);
  const dir = tempDir(t);
  const file = join(dir, 'leads.csv');
  writeFileSync(file, `First Name,Phone,Notes\n=cmd|' /C calc'!A0,+447400100555,-rename\nBad,12,@bad\n`);
  const dry = await runCli(['import', file, '--dry-run', '--json'], { env, cwd: dir });
  assert.equal(dry.code, 6, dry.stderr);
  const s = JSON.parse(dry.stdout);
  const changes = readFileSync(s.changesFile, 'utf8');
  assert.ok(changes.includes(`,firstName,${HOSTILE.firstName},'=cmd|' /C calc'!A0\n`), changes);
  assert.ok(changes.includes(`,notes,"'=HYPERLINK(""http://evil.example/?leak"",""click me"")",'-rename\n`), changes);
  const rejects = readFileSync(s.rejectsFile, 'utf8');
  // The operator's own cells as they were read: only callctl's `error` text would be guarded.
  assert.match(rejects, /\nBad,12,@bad,/);
  // Fixed and fed back: read as written.
  writeFileSync(join(dir, 'fixed.csv'), rejects.replace('Bad,12,', 'Bad,+447400100999,'));
  const again = await runCli(['import', join(dir, 'fixed.csv'), '--json', '--rejects', join(dir, 'again.csv')], { env, cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(sb.contacts().find((c) => c.phone === '+447400100999')?.notes, '@bad');
});
