/** Generated lead lists for import tests: valid UK mobiles, one per row, in a real CSV file. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The E.164 phone of generated row i. */
export const leadPhone = (i: number) => `+4474001${String(20000 + i).padStart(5, '0')}`;

/** Writes `n` rows (national format when `national`) and returns the path. */
export function writeLeads(dir: string, n: number, name = 'leads.csv', national = false): string {
  const rows = ['First Name,Last Name,Mobile,Email'];
  for (let i = 0; i < n; i++) {
    const phone = national ? `07400 1${String(20000 + i).padStart(5, '0')}` : leadPhone(i);
    rows.push(`Lead${i},Test,${phone},lead${i}@example.com`);
  }
  const path = join(dir, name);
  writeFileSync(path, `${rows.join('\n')}\n`);
  return path;
}

/** Every generated row 0…n-1 stored exactly once (no row lost, none doubled). */
export function assertEachOnce(phones: Array<string | undefined>, n: number): void {
  assert.equal(phones.length, n, `${phones.length} contacts for ${n} rows`);
  assert.equal(new Set(phones).size, n, 'no phone twice');
  for (let i = 0; i < n; i++) assert.ok(phones.includes(leadPhone(i)), `row ${i} stored`);
}
