// Data is shown, not obeyed (docs/cli.md, "Data and files"): bidi controls and the other invisible format
// characters (Unicode's Cf) in a name or an id are escaped in tables and messages as C0 and C1
// are — a U+202E printed raw turned the rest of the row around, the phone with it — the erasure
// preview included; JSON keeps them as data. A header of 20,000 columns is one short line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, sandboxRequest, startTestSandbox } from '../helpers/sandbox.js';

/** Every format character (Cf) and the line and paragraph separators. */
const INVISIBLE = /[\p{Cf}\u2028\u2029]/u;
const NAME = { firstName: 'Eve\u202Egnp.exe', lastName: '\u2066Mal\u2069\u200Bory\u200E', phone: '+447400100666' };

test('bidi controls and zero-width characters are escaped in get, ls, find, the erasure preview and messages; --json keeps them', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0, seed: 2 });
  const made = await sandboxRequest(sb, 'POST', '/contacts', { body: NAME });
  assert.equal(made.status, 201);
  const id = made.body.id as string;
  const env = envFor(sb, t);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'requests.txt'), `${NAME.phone}\n`);
  const shown = [
    await runCli(['contacts', 'get', id], { env }),
    await runCli(['contacts', 'ls', '--all'], { env }),
    await runCli(['contacts', 'find', '--phone', NAME.phone], { env }),
    await runCli(['contacts', 'rm', '--phone', NAME.phone], { env }),
    await runCli(['contacts', 'rm', '--from', join(dir, 'requests.txt'), '--dry-run'], { env }),
  ];
  for (const r of shown) {
    assert.ok(r.code === 0 || r.code === 2, r.stderr);
    assert.doesNotMatch(r.stdout, INVISIBLE, JSON.stringify(r.stdout));
    assert.doesNotMatch(r.stderr, INVISIBLE, JSON.stringify(r.stderr));
    assert.ok(r.stdout.includes('Eve\\u202egnp.exe'), r.stdout);
    assert.ok(r.stdout.includes('\\u2066Mal\\u2069\\u200bory\\u200e'), r.stdout);
    assert.ok(r.stdout.includes(NAME.phone), 'the phone reads as it is');
  }
  assert.equal(sb.contacts().length, 3, 'nobody erased');

  const missing = await runCli(['contacts', 'get', 'ct_\u202E\u2067gone'], { env });
  assert.equal(missing.code, 4, missing.stderr);
  assert.match(missing.stderr, /ct_\\u202e\\u2067gone/);
  assert.doesNotMatch(missing.stderr, INVISIBLE);

  const asJson = await runCli(['contacts', 'get', id, '--json'], { env });
  assert.equal(JSON.parse(asJson.stdout).firstName, NAME.firstName, 'JSON carries the data as it is');
});

test('a header of 20,000 columns: the columns not imported are one short line, the first few named and the rest counted', async (t) => {
  const sb = await startTestSandbox(t, { rateLimit: 0 });
  const dir = tempDir(t);
  const extra = Array.from({ length: 20_000 }, (_, i) => `custom_field_${i}`);
  const file = join(dir, 'wide.csv');
  writeFileSync(file, `Name,Phone,${extra.join(',')}\nAnn,+447400100777,${extra.map(() => 'x').join(',')}\n`);
  const r = await runCli(['import', file, '--dry-run'], { env: envFor(sb, t) });
  assert.equal(r.code, 0, r.stderr);
  const line = r.stderr.split('\n').find((l) => l.startsWith('ignoring columns:'));
  assert.equal(line, 'ignoring columns: custom_field_0, custom_field_1, custom_field_2, custom_field_3, custom_field_4, custom_field_5, custom_field_6, custom_field_7, custom_field_8, custom_field_9 and 19,990 more');
  assert.ok(r.stderr.length < 2_000, `${r.stderr.length} characters on stderr`);

  const noPhone = join(dir, 'no-phone.csv');
  writeFileSync(noPhone, `${extra.join(',')}\n${extra.map(() => 'x').join(',')}\n`);
  const refused = await runCli(['import', noPhone, '--dry-run'], { env: envFor(sb, t) });
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /^callctl: no phone column among: custom_field_0, .*, custom_field_9 and 19,990 more \(/);
  assert.ok(refused.stderr.length < 1_000, `${refused.stderr.length} characters on stderr`);
});
