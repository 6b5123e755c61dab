// A hidden worksheet's tab is not in front of the operator: callctl reads it as the contract says
// (the first sheet by default, every sheet whose header maps with --sheet all) and says that it is
// hidden wherever it names it (docs/commands/import.md, "Workbooks").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeBook as book } from '../helpers/book.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

const LEADS = [['Name', 'Phone'], ['Ada Byron', '07400 700001'], ['Charles Babbage', '07400 700002']];
const OLD = [['Name', 'Phone'], ['Test Lead', '07400 799999']];

test('hidden sheets: named as hidden by default, said when --sheet all reads one, said when the first sheet read is hidden', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const file = await book(join(dir, 'book.xlsx'), [{ name: 'Leads', rows: LEADS }, { name: 'Old', hidden: true, rows: OLD }]);

  const first = await runCli(['import', file, '--country', 'GB', '--dry-run'], { env });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /read worksheet "Leads"; it has other sheets holding rows: "Old" \(hidden, 1 row\)/);

  const all = await runCli(['import', file, '--country', 'GB', '--sheet', 'all', '--json'], { env });
  assert.equal(all.code, 0, all.stderr);
  assert.equal(JSON.parse(all.stdout).created, 3);
  assert.match(all.stderr, /book\.xlsx: reading hidden worksheet "Old" \(hidden, 1 row\) too \(--sheet <name> reads one sheet\)/);

  const lookup = await book(join(dir, 'lookup-first.xlsx'), [{ name: 'Lists', hidden: true, rows: OLD }, { name: 'Leads', rows: LEADS }]);
  const hiddenFirst = await runCli(['import', lookup, '--country', 'GB', '--dry-run', '--json'], { env });
  assert.equal(JSON.parse(hiddenFirst.stdout).rows, 1);
  assert.match(hiddenFirst.stderr, /worksheet "Lists" is hidden in Excel, and first: it is the one read \(--sheet <name> reads another\)/);
});

test('--sheet by number: a tab\'s position from 1, said by name; a sheet named by the number wins; a wrong one lists them numbered', async (t) => {
  const dir = tempDir(t);
  const env = { CALLCTL_CONFIG_DIR: tempDir(t) };
  const file = await book(join(dir, 'book.xlsx'), [{ name: 'Leads', rows: LEADS }, { name: 'Referrals', rows: OLD }]);
  const second = await runCli(['import', file, '--country', 'GB', '--dry-run', '--sheet', '2', '--json'], { env });
  assert.equal(second.code, 0, second.stderr);
  assert.equal(JSON.parse(second.stdout).rows, 1);
  assert.match(second.stderr, /book\.xlsx: --sheet 2 is worksheet "Referrals"/);

  const named = await book(join(dir, 'named.xlsx'), [{ name: 'Leads', rows: LEADS }, { name: '1', rows: OLD }]);
  const byName = await runCli(['import', named, '--country', 'GB', '--dry-run', '--sheet', '1', '--json'], { env });
  assert.equal(JSON.parse(byName.stdout).rows, 1, 'the sheet called "1", not the first tab');

  const wrong = await runCli(['import', file, '--country', 'GB', '--dry-run', '--sheet', '3'], { env });
  assert.equal(wrong.code, 2);
  assert.equal(wrong.stderr, `callctl: ${file} has no worksheet "3" (its worksheets: 1. Leads, 2. Referrals; --sheet takes a name or a number, and all reads every one whose header maps)\n`);
});
