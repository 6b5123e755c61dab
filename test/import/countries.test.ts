// Countries per row: a mixed UK/US Google export with an `Address 1 - Country` column is one run —
// each row's phone read in its own country, `--country` the default for rows without one — and a
// number invalid for its region but valid in another is refused saying where it is valid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

/** The rows of a rejects file, by column. */
const rejectsOf = (path: string) => parse(readFileSync(path, 'utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;

const US_HINT = 'phone "(212) 555-0147" is not a valid number for GB — valid as a US number +1 212 555 0147: fill its Address 1 - Country or use --country US';

test('a mixed-country Google export: one run, each row in its own country, the default for the rest', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const file = join(dir, 'google-mixed-countries.csv');
  copyFileSync(join(ROOT, 'fixtures/google-mixed-countries.csv'), file);
  const r = await runCli(['import', file, '--country', 'GB', '--json'], { env: envFor(sb, t), cwd: dir });
  assert.equal(r.code, 6, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.deepEqual([summary.rows, summary.created, summary.rejected, summary.countryFromFile, summary.countryUnread], [9, 8, 1, 6, 1]);
  assert.deepEqual(sb.contacts().map((c) => c.phone).sort(), [
    '+13122011005', '+14155552671', '+33612345678', '+447400123001', '+447400123002', '+447400123004', '+447400123005', '+493012345678',
  ]);
  assert.match(r.stderr, /Address 1 - Country → country/);
  assert.match(r.stderr, /countries\s+6 from the file, 1 not a country/);
  assert.match(r.stderr, /1 row has a country callctl cannot read \("Atlantis"\): read as GB/);
  assert.deepEqual(rejectsOf(`${file}.rejects.csv`).map((x) => [x['First Name'], x.error, x.line]), [['Hedy', US_HINT, '9']]);
});

test('dry run (phones on a worker thread) gives the same verdicts; a country column with no default still reads its rows', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'mixed.csv');
  copyFileSync(join(ROOT, 'fixtures/google-mixed-countries.csv'), file);
  const env = { CALLCTL_CONFIG_DIR: dir, CALLCTL_PHONE_WORKERS: '1' };
  const dry = await runCli(['import', file, '--dry-run', '--country', 'GB', '--json', '-v'], { env, cwd: dir });
  const s = JSON.parse(dry.stdout);
  assert.deepEqual([s.rows, s.rejected, s.countryFromFile, s.countryUnread], [9, 1, 6, 1]);
  assert.match(readFileSync(`${file}.rejects.csv`, 'utf8'), /valid as a US number \+1 212 555 0147/);

  // Without --country: rows with a country are read in it; the two without one are refused, naming the column.
  const bare = await runCli(['import', file, '--dry-run', '--json', '--rejects', join(dir, 'bare.csv')], { env, cwd: dir });
  assert.deepEqual([JSON.parse(bare.stdout).rejected, JSON.parse(bare.stdout).countryFromFile], [2, 6]);
  assert.deepEqual(rejectsOf(join(dir, 'bare.csv')).map((x) => x.error), [
    'phone "07400 123005" is in national format and the row has no country (fill its Address 1 - Country, or give --country)',
    'phone "(212) 555-0147" is in national format and the row has no country (fill its Address 1 - Country, or give --country)',
  ]);
});

test('no country column: a number valid elsewhere says where, and how to say so', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'leads.csv');
  writeFileSync(file, 'Name,Phone\nGrace Hopper,(312) 201-1005\nAda Lovelace,07400 123001\nNobody,12345\n');
  const r = await runCli(['import', file, '--dry-run', '--country', 'GB', '--json'], { env: { CALLCTL_CONFIG_DIR: dir }, cwd: dir });
  assert.equal(JSON.parse(r.stdout).countryFromFile, undefined, 'no country column: no count');
  assert.deepEqual(rejectsOf(`${file}.rejects.csv`).map((x) => x.error), [
    'phone "(312) 201-1005" is not a valid number for GB — valid as a US number +1 312 201 1005: add a Country column or --country US',
    'phone "12345" is not a valid number for GB',
  ]);
});

test('Outlook blocks: the country of the block the phone came from, else of the address, else any filled; names, codes, native names', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'outlook.csv');
  const rows = [
    ['First Name', 'Business Phone', 'Mobile Phone', 'Business City', 'Business Country/Region', 'Home City', 'Home Country/Region'],
    // The phone is the business one: its block's country, not the home one.
    ['Hedy', '(310) 555-0111', '', 'Culver City', 'United States', 'Vienna', 'Österreich'],
    // A mobile phone (no block): the address's block — the business one comes first in the file.
    ['Claude', '', '(781) 555-0112', 'Boston', 'U.S.', 'London', 'UK'],
    // A mobile phone, the address only at home: the home block's country.
    ['Annie', '', '07400 500001', '', '', 'Leeds', 'GBR'],
    // Only a country, in no block of the phone or address: any filled one.
    ['Emmy', '', '030 12345678', '', '', '', 'Deutschland'],
  ];
  writeFileSync(file, rows.map((r) => r.join(',')).join('\n') + '\n');
  const r = await runCli(['import', file, '--dry-run', '--format', 'ndjson'], { env: { CALLCTL_CONFIG_DIR: dir }, cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const sent = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(sent.filter((x) => x.phone).map((x) => [x.firstName, x.phone]), [
    ['Hedy', '+13105550111'], ['Claude', '+17815550112'], ['Annie', '+447400500001'], ['Emmy', '+493012345678'],
  ]);
});

test('--map "<column>=country" names a country column the aliases do not know', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'crm.csv');
  writeFileSync(file, 'Name,Phone,Nation\nGrace,(312) 201-1005,US\n');
  const r = await runCli(['import', file, '--dry-run', '--json', '--map', 'Nation=country'], { env: { CALLCTL_CONFIG_DIR: dir }, cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).countryFromFile, 1);
});
