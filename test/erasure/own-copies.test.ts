// The operator's own copies of a person: the rejects and changes files of earlier jobs (made here
// by real `callctl import` runs, which the journals remember) are searched after an erasure and its
// dry run, by the person's number in any format a file holds it and by their e-mail (and, in a
// changes file, their contact id); `--purge-local` takes those rows out, each file kept in its own
// encoding and delimiter with every other byte as it was, and the receipt names the files cleaned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

/** The file as it would be with every physical line holding the person taken out (their rows are one line each). */
function without(bytes: Buffer, person: RegExp): { expected: Buffer; removed: number } {
  const lines = bytes.toString('latin1').split(/(?<=\n)/);
  const kept = lines.filter((l) => !person.test(l));
  return { expected: Buffer.from(kept.join(''), 'latin1'), removed: lines.length - kept.length };
}

const ZOE = /900123|zoe@example\.com/i;

test('rejects files of earlier imports (UTF-8 with commas, Windows-1252 with semicolons) that hold the person are named after the dry run and the erasure, and --purge-local removes only their rows', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  for (const phone of ['+44 7700 900123', '07700 900123']) {
    assert.equal((await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Zoë', lastName: 'Müller', phone, email: 'zoe@example.com' } })).status, 201);
  }

  // Rejected rows that hold Zoë: an invalid number, a bad phone with her e-mail (upper case), her
  // number as Excel's scientific notation, her number with "(0)". Rejected rows that do not: the
  // same national digits in another country, a bad e-mail with a cell over two lines, accents and €.
  const leads = join(dir, 'leads.csv');
  writeFileSync(
    leads,
    'First Name,Last Name,Phone,Email,Notes\n' +
      'Anaïs,Dupont,+44 7400 300001,anais@example.com,fine\n' +
      'Zoë,Müller,07700 900123,zoe@example.com,call after 5\n' +
      'Other,Person,+1 770 090 0123,other@example.com,same digits elsewhere\n' +
      'Zed,Mail,+44 7400 300002,not-an-email,"line one\nline two"\n' +
      'Zoe,M,12345,ZOE@EXAMPLE.COM,\n',
  );
  const excel = join(dir, 'excel.csv');
  writeFileSync(
    excel,
    iconv.encode(
      'First Name;Last Name;Phone;Email;Notes\r\n' +
        'Zoë;Müller;4.47700900123E+11;;\r\n' +
        'Björn;Åström;+44 7400 300004;bjorn@example.com;ok\r\n' +
        'Chloë;Brontë;+44 7400 9;chloe@example.com;paid 5€\r\n' +
        'Zoë;Müller;+44 (0) 7700 900123;zoe@example.com;\r\n',
      'win1252',
    ),
  );
  for (const file of [leads, excel]) {
    const r = await runCli(['import', file, '--country', 'GB'], { env });
    assert.equal(r.code, 6, r.stderr);
  }
  const rejects = [`${excel}.rejects.csv`, `${leads}.rejects.csv`]; // sorted, as named
  const before = rejects.map((f) => readFileSync(f));
  assert.deepEqual(before[1]!.subarray(0, 3), Buffer.from([0xef, 0xbb, 0xbf]), 'a UTF-8 rejects file has a BOM');
  assert.ok(before[0]!.includes(Buffer.from('Bront\xeb;', 'latin1')), 'a Windows-1252 rejects file with semicolons');
  const plan = before.map((b) => without(b, ZOE));
  assert.deepEqual(plan.map((p) => p.removed), [2, 2], 'the test data: two rows of Zoë in each');

  const dry = await runCli(['contacts', 'rm', '--phone', '+44 7700 900123', '--country', 'GB', '--dry-run', '--json'], { env });
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(JSON.parse(dry.stdout).localCopies, rejects.map((file) => ({ file, rows: 2, purged: false })));
  for (const f of rejects) assert.match(dry.stderr, new RegExp(`${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}  \\(2 rows\\)`));
  assert.match(dry.stderr, /--purge-local/);
  rejects.forEach((f, i) => assert.deepEqual(readFileSync(f), before[i], 'a dry run changes nothing'));

  const real = await runCli(['contacts', 'rm', '--phone', '+44 7700 900123', '--country', 'GB', '--confirm', '--purge-local', '--json'], { env });
  assert.equal(real.code, 0, real.stderr);
  const s = JSON.parse(real.stdout);
  assert.equal(s.erased, 2);
  assert.deepEqual(s.localCopies, rejects.map((file) => ({ file, rows: 2, purged: true })));
  rejects.forEach((f, i) => {
    const after = readFileSync(f);
    assert.ok(after.equals(plan[i]!.expected), `${f}: only Zoë's rows are gone, every other byte as it was\n${after.toString('latin1')}`);
  });
  assert.ok(readFileSync(rejects[0]!).includes(Buffer.from('paid 5\x80', 'latin1')), 'still Windows-1252');

  const receipts = readFileSync(s.receiptsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(receipts.filter((r) => r.cleaned).map((r) => [r.cleaned, r.rows]), rejects.map((f) => [f, 2]));
  assert.ok(!/900123|zoe|Müller|M\\u00fcller/i.test(readFileSync(s.receiptsFile, 'utf8')));

  const again = await runCli(['contacts', 'rm', '--phone', '+44 7700 900123', '--country', 'GB', '--dry-run'], { env });
  assert.match(again.stderr, /your own copies: none of the 4 files callctl wrote \(rejects, changes, journals\)/);
});

test('a changes file of an import that read the contacts holds a person by their contact id: rm <id> --purge-local takes out their rows and keeps the others', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 4 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const [q, r] = sb.contacts();
  const [qName, rName] = [q!.firstName, r!.firstName];
  const update = join(dir, 'update.csv');
  writeFileSync(update, `firstName,lastName,phone\nRenamed,Quinn,${q!.phone}\nRenamed,Rivera,${r!.phone}\n`);
  const imported = await runCli(['import', update, '--check-existing'], { env });
  assert.equal(imported.code, 0, imported.stderr);
  const changes = `${update}.changes.csv`;
  const before = readFileSync(changes);
  const qRows = before.toString('utf8').split('\n').filter((l) => l.includes(`,${q!.id},`)).length;
  assert.ok(qRows > 0 && before.toString('utf8').includes(`,${r!.id},`), before.toString('utf8'));

  const named = await runCli(['contacts', 'rm', q!.id], { env });
  assert.equal(named.code, 2);
  const erased = await runCli(['contacts', 'rm', q!.id, '--confirm', '--purge-local'], { env });
  assert.equal(erased.code, 0, erased.stderr);
  assert.match(erased.stderr, new RegExp(`${changes.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}  \\(${qRows} rows?, removed\\)`));
  const after = readFileSync(changes, 'utf8');
  assert.equal(after, before.toString('utf8').split(/(?<=\n)/).filter((l) => !l.includes(`,${q!.id},`)).join(''));
  assert.ok(after.includes(`,${r!.id},`));

  // The import's journal kept q's and r's earlier values and digests for `import undo`: q's are blanked, r's stay.
  const journal = /^\s+(\S+\.jsonl)  \(2 rows, removed\)$/m.exec(erased.stderr)?.[1];
  assert.ok(journal, `the journal is named as an own copy\n${erased.stderr}`);
  const notes = readFileSync(journal, 'utf8');
  assert.ok(!notes.includes(JSON.stringify(qName)), 'q\'s earlier first name is gone from the journal');
  assert.ok(notes.includes(JSON.stringify(rName)), 'r\'s earlier first name stays');
  const undo = await runCli(['import', 'undo', JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]!).job, '--confirm', '--json'], { env });
  assert.equal(undo.code, 0, undo.stderr);
  assert.equal(sb.contacts().find((c) => c.id === r!.id)?.firstName, rName, 'r is given back its name');
});
