// A receipt for every erasure, whatever the form of the request: `rm <id>`, `rm --phone`,
// `rm --email` (typed on the command line: the config folder's erasures/<date>.jsonl), `rm --from
// <file>` (beside the file), `rm --from -` (the config folder), `--receipts` anywhere. Appended,
// one JSON line per contact erased, no phone, name or e-mail; none for what the API did not answer.
// Every run is one request with an id of its own, printed as it runs and on each of its receipts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

const lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

test('every form of erasure leaves receipts: rm <id>, --phone, --email, --from <file>, --from -, and --receipts', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 12 });
  const people = sb.contacts();
  const config = tempDir(t);
  const env = envFor(sb, t, { CALLCTL_CONFIG_DIR: config });
  const twin = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Twin', phone: `0${String(people[1]!.phone).slice(3)}` } });
  const mailed = await sandboxRequest(sb, 'POST', '/contacts', { body: { firstName: 'Mailed', phone: '+44 7400 999001', email: 'Zoe.Muller@Example.com' } });
  const erasures = () => (existsSync(join(config, 'erasures')) ? readdirSync(join(config, 'erasures')) : []);

  const one = await runCli(['contacts', 'rm', people[0]!.id, '--confirm', '--json'], { env });
  assert.equal(one.code, 0, one.stderr);
  const at = JSON.parse(one.stdout).at as string;
  const requestId = /^receipt → .* \(request ([0-9a-f]{10})\)$/m.exec(one.stderr)?.[1];
  assert.ok(requestId, one.stderr);
  assert.deepEqual(erasures(), [`${at.slice(0, 10)}.jsonl`], 'the UTC date of the erasure');
  const daily = join(config, 'erasures', erasures()[0]!);
  assert.deepEqual(lines(daily), [{ requestId, request: 1, id: people[0]!.id, erased: true, at }]);

  const phone = await runCli(['contacts', 'rm', '--phone', String(people[1]!.phone), '--country', 'GB', '--confirm', '--json'], { env });
  assert.equal(phone.code, 0, phone.stderr);
  assert.equal(JSON.parse(phone.stdout).receiptsFile, daily);
  const email = await runCli(['contacts', 'rm', '--email', ' zoe.muller@example.COM ', '--confirm', '--json'], { env });
  assert.equal(email.code, 0, email.stderr);
  assert.equal(JSON.parse(email.stdout).erased, 1);
  const nobody = await runCli(['contacts', 'rm', '--email', 'nobody@example.com', '--confirm'], { env });
  assert.equal(nobody.code, 0, nobody.stderr);
  const missing = await runCli(['contacts', 'rm', 'ct_missing', '--confirm'], { env });
  assert.equal(missing.code, 4, missing.stderr);
  const erased = lines(daily).filter((r) => r.erased).map((r) => r.id);
  assert.deepEqual(erased.sort(), [people[0]!.id, people[1]!.id, twin.body.id, mailed.body.id].sort(), 'rm <id>, both records of the phone, the e-mail\'s');
  assert.equal(lines(daily).filter((r) => r.found === 0).length, 2, 'the e-mail nobody has, and the 404 of an unknown id');
  assert.ok(lines(daily).every((r) => typeof r.at === 'string' && typeof r.requestId === 'string'), 'a "found 0" has its time too');
  // Five typed requests, all "line 1" of their day: each has an id of its own, shown as it ran.
  const ids = [...new Set(lines(daily).map((r) => r.requestId))];
  assert.equal(ids.length, 5, JSON.stringify(lines(daily)));
  for (const [r, n] of [[phone, 2], [email, 1], [nobody, 1]] as const) {
    const id = /^erasure request ([0-9a-f]{10}): receipts → /m.exec(r.stderr)?.[1];
    assert.ok(id, r.stderr);
    assert.equal(lines(daily).filter((line) => line.requestId === id).length, n, r.stderr);
  }

  const dir = tempDir(t);
  const file = join(dir, 'requests.txt');
  writeFileSync(file, `${people[2]!.id}\n${people[3]!.phone}\n`);
  const fromFile = await runCli(['contacts', 'rm', '--from', file, '--confirm', '--json'], { env });
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.equal(JSON.parse(fromFile.stdout).receiptsFile, `${file}.erasures.jsonl`);
  assert.deepEqual(lines(`${file}.erasures.jsonl`).map((r) => [r.request, r.id]), [[1, people[2]!.id], [2, people[3]!.id]]);
  // A request file is one request: its lines share the id, the erasure job's (jobs show <id>).
  const fileId = /^erasure request ([0-9a-f]{10}): receipts → /m.exec(fromFile.stderr)?.[1] as string;
  assert.match(fromFile.stderr, new RegExp(`receipts → .*erasures\\.jsonl  \\(request ${fileId}\\)`), 'and in the summary');
  assert.deepEqual(lines(`${file}.erasures.jsonl`).map((r) => r.requestId), [fileId, fileId]);
  assert.equal((await runCli(['jobs', 'show', fileId, '--json'], { env })).code, 0);

  const before = lines(daily).length;
  const stdin = await runCli(['contacts', 'rm', '--from', '-', '--confirm', '--json'], { env, input: `${people[4]!.id}\n` });
  assert.equal(stdin.code, 0, stdin.stderr);
  assert.equal(JSON.parse(stdin.stdout).receiptsFile, daily, 'stdin: typed, so the config folder');
  assert.equal(lines(daily).length, before + 1);

  const chosen = join(dir, 'chosen', 'receipts.jsonl');
  const refused = await runCli(['contacts', 'rm', people[5]!.id, '--confirm', '--receipts', chosen], { env });
  assert.equal(refused.code, 1, 'a --receipts folder that does not exist stops the erasure before it starts');
  assert.match(refused.stderr, /cannot write the receipts file .*nothing was erased/);
  assert.ok(sb.contacts().some((c) => c.id === people[5]!.id));
  const own = join(dir, 'receipts.jsonl');
  const chosenRun = await runCli(['contacts', 'rm', people[5]!.id, '--confirm', '--receipts', own], { env });
  assert.equal(chosenRun.code, 0, chosenRun.stderr);
  assert.deepEqual(lines(own).map((r) => r.id), [people[5]!.id]);

  for (const path of [daily, `${file}.erasures.jsonl`, own]) {
    const text = readFileSync(path, 'utf8');
    assert.ok(!/phone|name|mail|@|\+44|07400/i.test(text), `${path} holds no personal data: ${text}`);
  }
});

test('a read-only key: no receipt of an erasure, for the API refused it', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 3 });
  const config = tempDir(t);
  const env = envFor(sb, t, { CALLCTL_CONFIG_DIR: config, CALLCTL_API_KEY: sb.readOnlyKey });
  const r = await runCli(['contacts', 'rm', '--phone', String(sb.contacts()[0]!.phone), '--country', 'GB', '--confirm'], { env });
  assert.equal(r.code, 3, r.stderr);
  const dir = join(config, 'erasures');
  const written = existsSync(dir) ? readdirSync(dir).map((n) => readFileSync(join(dir, n), 'utf8')).join('') : '';
  assert.equal(written, '');
  assert.equal(sb.contacts().length, 3);
});
