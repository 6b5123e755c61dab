// A CSV export of contacts keeps every field the service returned (docs/commands/contacts.md, "Listing"): the
// contact fields first, so the file re-imports, then the others under their own names — a field
// of the account's own (`leadScore`), an object as JSON, `createdAt`. It dropped them all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { runCli, tempDir } from '../helpers/cli.js';
import { envFor, startTestSandbox } from '../helpers/sandbox.js';

test('contacts ls / get --format csv: the fields the service returned beyond the contact fields are kept', async (t) => {
  const data = join(tempDir(t), 'state.json');
  const at = '2026-10-01T09:00:00.000Z';
  writeFileSync(data, JSON.stringify({
    contacts: [{ id: 'ct_ada', phone: '+447400100001', firstName: 'Ada', leadScore: 5, custom: { plan: 'gold' }, createdAt: at, updatedAt: at }],
    calls: [],
  }));
  const sb = await startTestSandbox(t, { rateLimit: 0, dataFile: data });
  const env = envFor(sb, t);
  for (const args of [['contacts', 'ls'], ['contacts', 'get', 'ct_ada']]) {
    const r = await runCli([...args, '--format', 'csv', '--csv-raw'], { env });
    assert.equal(r.code, 0, r.stderr);
    const [row] = parse(r.stdout, { columns: true }) as Array<Record<string, string>>;
    assert.deepEqual(Object.keys(row!), ['id', 'firstName', 'lastName', 'email', 'phone', 'address', 'city', 'state', 'zipCode', 'tags', 'status', 'notes', 'leadScore', 'custom', 'createdAt', 'updatedAt'], args.join(' '));
    assert.deepEqual([row!.leadScore, row!.custom, row!.createdAt], ['5', '{"plan":"gold"}', at]);
  }
  await sb.close(); // it saves --data: before the folder goes
});
