// A workbook's lines name their sheet (`Referrals!2`) everywhere callctl shows one — rejects,
// the changes file, the undo table and its receipts, a refused title row — one sheet or several
// (docs/files.md, "Lines"); a CSV's stay plain numbers. fixtures/leads-sheets.xlsx: "Leads" (Ada,
// Charles, a bad phone on row 4), "Referrals" (Nellie on row 2, Ida, Ada again on row 4).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

test('--sheet all: rejects, changes, the undo table and its receipts say Leads!4 and Referrals!2, never a bare 2 twice', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const file = join(dir, 'leads-sheets.xlsx');
  copyFileSync(join(ROOT, 'fixtures/leads-sheets.xlsx'), file);
  // Nellie is known already, under another name: the import changes her first name.
  assert.equal((await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Elizabeth', lastName: 'Bly', phone: '+447400700011' } })).status, 201);

  const r = await runCli(['import', file, '--sheet', 'all', '--country', 'GB', '--check-existing', '--json'], { env });
  assert.equal(r.code, 6, r.stderr);
  const rejects = parse(readFileSync(`${file}.rejects.csv`, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;
  assert.deepEqual(rejects.map((x) => x.line), ['Leads!4', 'Referrals!4']);
  const changes = parse(readFileSync(`${file}.changes.csv`, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;
  assert.deepEqual(changes.map((c) => [c.line, c.field, c.old, c.new]).sort(), [['Referrals!2', 'email', '', 'nb@example.com'], ['Referrals!2', 'firstName', 'Elizabeth', 'Nellie']]);

  const job = (JSON.parse((await runCli(['jobs', 'ls', '--json'], { env })).stdout) as Array<{ id: string }>)[0]!.id;
  const table = await runCli(['import', 'undo', job, '--format', 'csv'], { env });
  assert.equal(table.code, 2, table.stderr);
  const planned = parse(table.stdout, { columns: true }) as Array<Record<string, string>>;
  assert.deepEqual(planned.map((p) => p.line), ['Leads!2', 'Leads!3', 'Referrals!2', 'Referrals!3']);

  const undo = await runCli(['import', 'undo', job, '--confirm', '--json'], { env });
  assert.equal(undo.code, 0, undo.stderr);
  const receipts = readFileSync(`${file}.undo.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { item: unknown; did: string });
  assert.deepEqual(receipts.map((x) => [x.item, x.did]).sort(), [['Leads!2', 'erased'], ['Leads!3', 'erased'], ['Referrals!2', 'restored'], ['Referrals!3', 'erased']]);
  assert.deepEqual(sb.contacts().map((c) => [c.firstName, c.phone]), [['Elizabeth', '+447400700011']]);
});

test('one sheet: its lines name it too; a sheet name with a space is quoted as a spreadsheet quotes it', async (t) => {
  const dir = tempDir(t);
  const env = { CALLCTL_CONFIG_DIR: tempDir(t) };
  const file = join(dir, 'leads.xlsx');
  copyFileSync(join(ROOT, 'fixtures/leads.xlsx'), file);
  const first = await runCli(['import', file, '--country', 'GB', '--dry-run'], { env });
  assert.equal(first.code, 6, first.stderr);
  assert.deepEqual((parse(readFileSync(`${file}.rejects.csv`, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>).map((x) => x.line), ['Leads!8']);
  const march = await runCli(['import', file, '--country', 'US', '--dry-run', '--sheet', 'March leads', '--rejects', join(dir, 'march.csv')], { env });
  assert.equal(march.code, 6, march.stderr);
  assert.deepEqual((parse(readFileSync(join(dir, 'march.csv'), 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>).map((x) => x.line), ["'March leads'!2", "'March leads'!3"]);
});
