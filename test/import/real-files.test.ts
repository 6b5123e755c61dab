// Lead lists shaped like real exports: Google's multi-value cells, address blocks, phone columns
// and the numbers spreadsheets make of phones. Each test imports through the real CLI into the
// sandbox and asserts the contacts it holds afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

type T = Parameters<typeof tempDir>[0];

/** Imports `name` (a fixture, or the bytes given) and returns what the operator sees. */
async function importFile(t: T, name: string, args: string[] = [], bytes?: Buffer | string) {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  if (bytes !== undefined) writeFileSync(join(dir, name), bytes);
  else copyFileSync(join(ROOT, 'fixtures', name), join(dir, name));
  const r = await runCli(['import', join(dir, name), '--json', ...args], { env: envFor(sb, t), cwd: dir });
  const summary = r.stdout ? JSON.parse(r.stdout) : undefined;
  const rejectsPath = join(dir, `${name}.rejects.csv`);
  const rejects = existsSync(rejectsPath) ? readFileSync(rejectsPath, 'utf8') : undefined;
  const byPhone = new Map(sb.contacts().map((c) => [c.phone, c]));
  return { r, summary, rejects, contacts: sb.contacts(), byPhone };
}

test('Google " ::: " cells: a field takes the first value (a phone or e-mail the first of its type), tags take all but the system labels', async (t) => {
  const { r, summary, byPhone, contacts } = await importFile(t, 'google-multivalue.csv');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(summary.created, 3);
  assert.equal(contacts.length, 3);
  const dorothy = byPhone.get('+447400200001')!;
  assert.ok(dorothy, `the mobile is the number: ${JSON.stringify(contacts)}`);
  // Her e-mails are typed "* Work ::: Home": home comes first (docs/commands/import.md, "Which phone, which e-mail").
  assert.equal(dorothy.email, 'dv@example.org');
  assert.deepEqual(dorothy.tags, ['Leads', 'West Area']);
  assert.equal(byPhone.get('+447400200002')?.tags, undefined, 'only "* myContacts": no tags');
  assert.deepEqual(byPhone.get('+447400200003')?.tags, ['Leads']);
});

test('Google Address 1 empty, Address 2 filled: the whole second block is taken', async (t) => {
  const { r, byPhone } = await importFile(t, 'google-multivalue.csv');
  assert.equal(r.code, 0, r.stderr);
  const dorothy = byPhone.get('+447400200001')!;
  assert.deepEqual([dorothy.address, dorothy.city, dorothy.state, dorothy.zipCode], ['1 Langley Rd', 'Hampton', 'VA', '23681']);
  const katherine = byPhone.get('+447400200002')!;
  assert.deepEqual([katherine.address, katherine.city, katherine.state, katherine.zipCode], ['2 Mercury Way', 'Houston', 'TX', '77058']);
  // Only a formatted address: it stands in for the street.
  assert.equal(byPhone.get('+447400200003')?.address, '5 Orbit Lane, Cape Town 8001');
});

test('Outlook address blocks: the first non-empty block whole, never mixed with another', async (t) => {
  const { r, summary, byPhone } = await importFile(t, 'outlook-blocks.csv', ['--country', 'US']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(summary.created, 3);
  const pick = (p: string) => {
    const c = byPhone.get(p)!;
    return [c.address, c.city, c.state, c.zipCode];
  };
  assert.deepEqual(pick('+13105550111'), ['10202 W Washington Blvd, Suite 4', 'Culver City', 'CA', '90232'], 'business only');
  assert.deepEqual(pick('+17815550112'), ['5 Cambridge St', 'Winchester', 'MA', '01890'], 'home only');
  assert.deepEqual(pick('+12165550113'), ['21000 Brookpark Rd', 'Cleveland', 'OH', '44135'], 'other only');
  assert.doesNotMatch(r.stderr, /a second city column/);
});

test('phone columns "Contact Number" and "Mobile No.", extensions kept in the notes, Excel notation', async (t) => {
  const { r, summary, byPhone, rejects } = await importFile(t, 'crm-phones.csv', ['--country', 'GB']);
  assert.equal(r.code, 6, r.stderr);
  assert.deepEqual([summary.rows, summary.created, summary.rejected], [6, 5, 1]);
  assert.match(r.stderr, /Contact Number → phone/);
  assert.match(r.stderr, /Mobile No\. → phone/);
  assert.equal(byPhone.get('+442079460958')?.notes, 'Ask for accounts\nPhone extension: 12');
  assert.equal(byPhone.get('+442079460959')?.notes, 'Phone extension: 34');
  assert.equal(byPhone.get('+442079460960')?.notes, 'Phone extension: 56');
  assert.equal(byPhone.get('+447400300001')?.lastName, 'First', 'the mobile column is preferred');
  assert.equal(byPhone.get('+447400300002')?.lastName, 'Exact', '4.47400300002E+11 has every digit');
  assert.match(rejects!, /Sci Rounded,4\.47400E\+11,,,"phone ""4\.47400E\+11"": Excel rounded this number: re-export the column as text"/);
});

for (const eol of ['\n', '\r\n']) {
  test(`the rejects name each row's own line, after blank lines and a cell over two lines (${eol === '\n' ? 'LF' : 'CRLF'})`, async (t) => {
    const lines = ['Name,Phone', 'Ann,07400100001', '', '', 'Bob,not a phone', '"Cy', 'Dee",call me', '', 'Eve,nope', 'Fay,07400100002'];
    const { r, rejects, contacts } = await importFile(t, 'gaps.csv', ['--country', 'GB'], lines.join(eol) + eol);
    assert.equal(r.code, 6, r.stderr);
    assert.deepEqual(contacts.map((c) => c.phone).sort(), ['+447400100001', '+447400100002']);
    const rows = parse(rejects!, { columns: true, bom: true }) as Array<{ Name: string; line: string }>;
    // Bob is on line 5, "Cy/Dee" starts on line 6, Eve is on line 9.
    assert.deepEqual(rows.map((row) => [row.Name.split(/\r?\n/)[0], row.line]), [['Bob', '5'], ['Cy', '6'], ['Eve', '9']]);
  });
}
