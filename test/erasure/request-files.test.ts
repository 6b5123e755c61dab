// Request files as operators receive them: every phone column and every e-mail column of a CSV
// (headers named as the import knows them), bare lines that are e-mails or phones written with an
// extension or two numbers, files in Windows-1252 or UTF-16 — each finds every record of the person.
// A person asked for on several lines is erased once and every line's receipt says so (none says
// "found 0", which would tell the person there was no record of them), and each receipt names
// the line of the file the request is on, blank lines before it counted. A workbook of requests
// is read sheet by sheet: every sheet's requests are searched, each named `Sheet!line`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { writeBook as book } from '../helpers/book.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

async function contact(sb: Awaited<ReturnType<typeof startTestSandbox>>, body: Record<string, string>): Promise<string> {
  const r = await sandboxRequest(sb, 'POST', '/contacts', { body });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.id;
}

const receiptsOf = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

test('a CSV row erases what any of its phone and e-mail columns finds; bare lines that are e-mails, or phones with an extension or two numbers, are searched as such', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const zoe = [
    await contact(sb, { firstName: 'Zoë', phone: '+44 7700 900123' }),
    await contact(sb, { firstName: 'Zoë', phone: '+44 7700 900456' }), // her mobile, second phone column
    await contact(sb, { firstName: 'Zoë', email: 'zoe@example.com' }), // only her e-mail
  ];
  const ann = [
    await contact(sb, { firstName: 'Ann', email: 'ann@example.com' }),
    await contact(sb, { firstName: 'Ann', phone: '+44 20 7946 0111 ext. 5' }),
    await contact(sb, { firstName: 'Ann', phone: '+44 20 7946 0222' }),
  ];
  const bystander = await contact(sb, { firstName: 'Bystander', phone: '+44 20 7946 0999', email: 'by@example.com' });

  const csv = join(dir, 'requests.csv');
  writeFileSync(csv, 'Name,Phone 1 - Value,Mobile Phone,E-mail Address\nZoë,+44 7700 900123,+44 7700 900456,ZOE@example.com\n');
  const r1 = await runCli(['contacts', 'rm', '--from', csv, '--confirm', '--json'], { env });
  assert.equal(r1.code, 0, r1.stderr);
  assert.equal(JSON.parse(r1.stdout).erased, 3, r1.stderr);

  const bare = join(dir, 'bare.txt');
  writeFileSync(bare, 'ann@example.com\n+44 20 7946 0111 x5\n+44 7400 000000 / +44 20 7946 0222\n');
  const r2 = await runCli(['contacts', 'rm', '--from', bare, '--confirm', '--json'], { env });
  assert.equal(r2.code, 0, r2.stderr);
  const s2 = JSON.parse(r2.stdout);
  assert.deepEqual([s2.erased, s2.notFound], [3, 0], r2.stderr);

  const left = sb.contacts().map((c) => c.id);
  for (const id of [...zoe, ...ann]) assert.ok(!left.includes(id), `${id} erased`);
  assert.ok(left.includes(bystander));
});

test('a file with one e-mail column, in Windows-1252 or UTF-16 with a BOM, finds the person by e-mail whatever its Unicode form', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const nfc = await contact(sb, { firstName: 'Zoë', email: 'zoë@example.com' });
  const nfd = await contact(sb, { firstName: 'Zoë', email: 'zoe\u0308@example.com' });
  const jose = await contact(sb, { firstName: 'José', email: 'josé@example.com' });

  const cp1252 = join(dir, 'cp1252.csv');
  writeFileSync(cp1252, iconv.encode('email\r\nzoë@example.com\r\n', 'win1252'));
  const dry = await runCli(['contacts', 'rm', '--from', cp1252, '--dry-run', '--json'], { env });
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(JSON.parse(dry.stdout).wouldErase.map((w: { id: string }) => w.id).sort(), [nfc, nfd].sort());

  const utf16 = join(dir, 'utf16.csv');
  writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode('E-mail\r\nJOSÉ@example.com\r\n', 'utf16le')]));
  const real = await runCli(['contacts', 'rm', '--from', utf16, '--confirm', '--json'], { env });
  assert.equal(real.code, 0, real.stderr);
  assert.equal(JSON.parse(real.stdout).erased, 1);
  assert.ok(!sb.contacts().some((c) => c.id === jose));
});

test('a person asked for on several lines is erased once, and every line gets the receipt of that erasure', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const intl = await contact(sb, { firstName: 'Dup', phone: '+44 7400 111222', email: 'dup@example.com' });
  const national = await contact(sb, { firstName: 'Dup', phone: '07400 111222' });
  const file = join(dir, 'twice.txt');
  writeFileSync(file, '\n+44 7400 111222\n07400 111222\ndup@example.com\n+44 7400 111222\n');
  const dry = await runCli(['contacts', 'rm', '--from', file, '--country', 'GB', '--dry-run', '--json'], { env });
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(JSON.parse(dry.stdout).contacts, 2, 'the dry run counts contacts as the real run does');
  const r = await runCli(['contacts', 'rm', '--from', file, '--country', 'GB', '--confirm', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.deepEqual([s.requests, s.contacts, s.erased, s.notFound], [4, 2, 2, 0], r.stderr);
  const receipts = receiptsOf(`${file}.erasures.jsonl`);
  assert.ok(!receipts.some((x) => x.found === 0), JSON.stringify(receipts));
  const byLine = (line: number) => receipts.filter((x) => x.request === line).map((x) => x.id).sort();
  // Line numbers are the file's: its first line is blank.
  for (const line of [2, 3, 5]) assert.deepEqual(byLine(line), [intl, national].sort(), `line ${line}`);
  assert.deepEqual(byLine(4), [intl]);
  const at = new Map(receipts.map((x) => [x.id, x.at]));
  for (const x of receipts) assert.equal(x.at, at.get(x.id), 'the time the contact was erased');
});

test('a workbook of requests is read sheet by sheet: the second sheet\'s person is found and erased too, each receipt names its sheet; a sheet that names no request column is refused before anything is sent', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const ada = await contact(sb, { firstName: 'Ada', phone: '+44 7400 120001' });
  const bea = await contact(sb, { firstName: 'Bea', email: 'bea@example.com' });
  const cai = await contact(sb, { firstName: 'Cai', phone: '+44 7400 120003' });
  const bystander = await contact(sb, { firstName: 'Bystander', phone: '+44 7400 120009' });
  const kept = sb.contacts().map((c) => c.id).filter((id) => ![ada, bea, cai].includes(id)); // the bystander, and the seed's
  assert.ok(kept.includes(bystander));
  // January's requests by phone; February's by e-mail, and a hidden sheet of bare lines; an empty sheet.
  const file = await book(join(dir, 'requests.xlsx'), [
    { name: 'Jan', rows: [['Phone'], ['+44 7400 120001']] },
    { name: 'Feb', rows: [['Name', 'E-mail'], ['Bea', 'BEA@example.com']] },
    { name: 'Empty', rows: [] },
    { name: 'Late', hidden: true, rows: [['+44 7400 120003']] },
  ]);
  const dry = await runCli(['contacts', 'rm', '--from', file, '--dry-run', '--json'], { env });
  assert.equal(dry.code, 0, dry.stderr);
  assert.deepEqual(JSON.parse(dry.stdout).wouldErase.map((w: { id: string }) => w.id).sort(), [ada, bea, cai].sort());
  assert.match(dry.stderr, /requests\.xlsx: reading hidden worksheet "Late" too/);

  const r = await runCli(['contacts', 'rm', '--from', file, '--confirm', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([JSON.parse(r.stdout).requests, JSON.parse(r.stdout).erased], [3, 3]);
  // Receipts are written as the DELETEs are answered, in any order.
  assert.deepEqual(receiptsOf(`${file}.erasures.jsonl`).map((x) => [x.request, x.id]).sort(), [['Feb!2', bea], ['Jan!2', ada], ['Late!1', cai]]);
  assert.deepEqual(sb.contacts().map((c) => c.id), kept);

  const notes = await book(join(dir, 'with-notes.xlsx'), [{ name: 'Jan', rows: [['Phone'], ['+44 7400 120009']] }, { name: 'Notes', rows: [['Remark', 'Date'], ['called back', '2024-03-01']] }]);
  const refused = await runCli(['contacts', 'rm', '--from', notes, '--confirm'], { env });
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /^callctl: .*with-notes\.xlsx, worksheet "Notes": no id, phone or e-mail column among: Remark, Date \(/m);
  assert.deepEqual(sb.contacts().map((c) => c.id), kept, 'nothing sent');
});

test('a request file\'s columns the import reads as phones or e-mails by their name (Direct Line, Person - Phone - Mobile, Private Email) are searched too; a fax column is not', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const env = envFor(sb, t);
  const dir = tempDir(t);
  const ann = await contact(sb, { firstName: 'Ann', phone: '+44 20 7946 0333' });
  const bea = await contact(sb, { firstName: 'Bea', phone: '+44 7700 900777' });
  const cai = await contact(sb, { firstName: 'Cai', email: 'cai@example.com' });
  const office = await contact(sb, { firstName: 'Reception', phone: '+44 20 7946 0000' });
  const csv = join(dir, 'requests.csv');
  writeFileSync(csv, 'Name,Direct Line,Person - Phone - Mobile,Private Email,Business Fax\nAnn,+44 20 7946 0333,,,+44 20 7946 0000\nBea,,+44 7700 900777,,\nCai,,,cai@example.com,\n');
  const r = await runCli(['contacts', 'rm', '--from', csv, '--confirm', '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).erased, 3, r.stderr);
  const left = sb.contacts().map((c) => c.id);
  for (const id of [ann, bea, cai]) assert.ok(!left.includes(id), `${id} erased`);
  assert.ok(left.includes(office), 'the office fax line is no person\'s request');
});
