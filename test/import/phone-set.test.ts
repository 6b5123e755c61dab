// The in-file duplicate index holds every E.164 phone exactly once, across growth.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PhoneSet } from '../../src/import/phone-set.js';

test('PhoneSet: add, has, duplicates, growth, 15-digit numbers', () => {
  const set = new PhoneSet(4);
  const keys: number[] = [];
  for (let i = 0; i < 50_000; i++) keys.push(447400000000 + i * 7919, 12125550000 + i);
  for (const k of keys) assert.equal(set.add(k), true);
  assert.equal(set.size, keys.length);
  for (const k of keys) assert.equal(set.has(k), true);
  for (const k of keys.slice(0, 1000)) assert.equal(set.add(k), false, 'a second add is a duplicate');
  assert.equal(set.size, keys.length);
  assert.equal(set.has(447400000001), false);
  const longest = PhoneSet.key('+999999999999999');
  assert.equal(set.add(longest), true);
  assert.equal(set.has(longest), true);
  assert.equal(set.has(longest - 1), false);
  assert.throws(() => set.add(0), RangeError);
});
