// The one comparison of numbers (src/phone/compare.ts) that find, rm and dupes share: by their
// digits, valid or not; and the index the file requests and dupes use finds exactly what the
// comparison calls equal — never more, never less.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareNumbers, type NumberKey, NumberIndex, numberKey, sameNumber } from '../../src/phone/compare.js';

const READINGS: Array<[string, string | undefined]> = [
  ['+44 7700 900123', undefined],
  ['07700 900123', 'GB'],
  ['07700 900123', undefined],
  ['7700 900123', undefined],
  ['447700900123', undefined],
  ['0044 7700 900123', undefined],
  ['+44 (0) 7700 900123', undefined],
  ['+1 770 090 0123', undefined],
  ['(770) 090-0123', 'US'],
  ['+33 7 70 09 01 23', undefined],
  ['+1 286 555 0123', undefined],
  ['(286) 555-0123', undefined],
  ['1 286 555 0123', undefined],
  ['(286) 555-0123', 'GB'],
  ['+39 06 1234 5678', undefined],
  ['06 1234 5678', undefined],
  ['+999 123 456 789', undefined],
  ['+999123456789', undefined],
  // Readings beside the first (an impossible national number, several numbers), dialling prefixes, extensions.
  ['+52 1 55 1234 5678', undefined],
  ['+52 55 1234 5678', undefined],
  ['044 55 1234 5678', undefined],
  ['+54 9 11 1234 5678', undefined],
  ['+54 11 1234 5678', undefined],
  ['0044 7700 900123', 'US'],
  ['1-286-555-0123', 'GB'],
  ['+44 7700 900555 / +44 20 7946 0958', undefined],
  ['020 7946 0958', undefined],
  ['+44 20 7946 0000 x12', undefined],
  ['+44 20 7946 0000 ext. 34', undefined],
  ['+44 20 7946 0000', undefined],
];

const key = ([text, region]: [string, string | undefined]) => numberKey(text, region) as NumberKey;

test('numbers libphonenumber calls invalid still read to their country code and national number, trunk prefix dropped', () => {
  assert.deepEqual([key(['07700 900123', 'GB']).e164, key(['07700 900123', 'GB']).valid], ['+447700900123', false]);
  assert.equal(key(['+44 20 7946 095', undefined]).e164, '+44207946095');
  assert.equal(key(['(286) 555-0123', 'US']).e164, '+12865550123');
  assert.equal(key(['07700 900123', undefined]).e164, undefined, 'no country code, no region: national digits only');
  assert.equal(numberKey('12345', 'GB'), undefined, 'five digits identify no one');
  assert.equal(numberKey('call me', 'GB'), undefined);
  assert.equal(numberKey('4.477E+11', 'GB'), undefined, 'digits Excel rounded away');
});

test('which readings are one number', () => {
  const same = (a: number, b: number) => sameNumber(key(READINGS[a]!), key(READINGS[b]!));
  for (const i of [1, 2, 3, 4, 5, 6]) assert.ok(same(0, i), `${READINGS[i]![0]} is +44 7700 900123`);
  assert.ok(!same(0, 7) && !same(0, 8) && !same(0, 9), 'the same national digits in another country are another number');
  assert.ok(same(7, 8));
  for (const i of [11, 12]) assert.ok(same(10, i), `${READINGS[i]![0]} is +1 286 555 0123`);
  assert.ok(!same(10, 13), 'read with GB, it is a GB number');
  assert.ok(same(14, 15), 'an Italian number keeps its leading 0');
  assert.ok(same(16, 17), 'an unknown country code: the digits');
  assert.ok(same(18, 19) && same(19, 20), "Mexico's old mobile 1 and 044 reach the same line");
  assert.ok(same(21, 22), "Argentina's mobile 9");
  assert.ok(same(0, 23), '0044 cannot be a US number: read without the region');
  assert.ok(same(10, 24), '1 286 555 0123 cannot be a GB number: read without the region');
  assert.ok(same(25, 26), 'a field with two numbers is each of them');
  assert.ok(!same(27, 28), 'different extensions are different lines');
  assert.ok(!same(27, 29) && !same(28, 29), 'an extension on one side only is near, not the same');
  assert.equal(compareNumbers(key(READINGS[27]!), key(READINGS[29]!)), 'near');
});

test('the index finds exactly what sameNumber calls equal', () => {
  const keys = READINGS.map(key);
  const index = new NumberIndex<number>();
  keys.forEach((k, i) => index.add(k, i));
  keys.forEach((k, i) => {
    const expected = keys.map((o, j) => (sameNumber(k, o) ? j : -1)).filter((j) => j >= 0);
    assert.deepEqual(index.find(k).sort((a, b) => a - b), expected, `${READINGS[i]![0]} ${READINGS[i]![1] ?? ''}`);
  });
});
