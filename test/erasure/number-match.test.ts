// The same person is libphonenumber's match, at least (docs/people.md, "How numbers are compared").
// The pairs are google/libphonenumber's own isNumberMatch test pairs (PhoneNumberUtilTest.java,
// testIsNumberMatch*; its PhoneNumber protos written as the numbers they hold), each judged here
// with real metadata by npm's google-libphonenumber (a devDependency: the oracle, never callctl's
// runtime). callctl's comparison must find every EXACT_MATCH and NSN_MATCH pair, never a NO_MATCH
// one, and do with each SHORT_NSN_MATCH pair what docs/people.md says. Then every extension label
// libphonenumber knows, in each of its languages, against every other: two extensions are two
// people, one extension on one side only is `near` (named, never taken for the person).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import lib from 'google-libphonenumber';
import { compareNumbers, NumberIndex, type NumberKey, numberKey } from '../../src/phone/compare.js';

const util = lib.PhoneNumberUtil.getInstance();
const MATCH = lib.PhoneNumberUtil.MatchType;
const oracle = (a: string, b: string): string => Object.keys(MATCH).find((k) => MATCH[k as keyof typeof MATCH] === util.isNumberMatch(a, b)) as string;

const NZ = '+64 3 331 6005';
const US = '+1 650 253 0000';

/** [a, b, what libphonenumber says with real metadata]. */
const PAIRS: Array<[string, string, string]> = [
  // testIsNumberMatchMatches
  ['+64 3 331 6005', '+64 03 331 6005', 'EXACT_MATCH'],
  ['+800 1234 5678', '+80012345678', 'EXACT_MATCH'],
  ['+64 03 331-6005', '+64 03331 6005', 'EXACT_MATCH'],
  ['+643 331-6005', '+64033316005', 'EXACT_MATCH'],
  ['+643 331-6005', '+6433316005', 'EXACT_MATCH'],
  ['+64 3 331-6005', '+6433316005', 'EXACT_MATCH'],
  ['+64 3 331-6005', 'tel:+64-3-331-6005;isub=123', 'EXACT_MATCH'],
  ['+1800 siX-Flags', '+1 800 7493 5247', 'EXACT_MATCH'],
  ['+64 3 331-6005 extn 1234', '+6433316005#1234', 'EXACT_MATCH'],
  ['+64 3 331-6005 ext. 1234', '+6433316005;1234', 'EXACT_MATCH'],
  ['+7 423 202-25-11 ext 100', '+7 4232022511 \u0434\u043E\u0431. 100', 'EXACT_MATCH'],
  [NZ, '+6403 331 6005', 'EXACT_MATCH'],
  ['+64 3 331 6005 ext 3456', '+643 331 6005 ext 3456', 'EXACT_MATCH'],
  // testIsNumberMatchNonMatches
  ['03 331 6005', '03 331 6006', 'NO_MATCH'],
  ['+800 1234 5678', '+1 800 1234 5678', 'NO_MATCH'],
  ['+64 3 331-6005', '+16433316005', 'NO_MATCH'],
  ['+64 3 331-6005', '+6133316005', 'NO_MATCH'],
  ['+64 3 331-6005 extn 1234', '0116433316005#1235', 'NO_MATCH'],
  ['+64 3 331-6005 extn 1234', 'tel:+64-3-331-6005;ext=1235', 'NO_MATCH'],
  ['+64 3 331-6005 ext.1235', '3 331 6005#1234', 'NO_MATCH'],
  ['4', '3 331 6043', 'NOT_A_NUMBER'],
  ['+43', '+64 3 331 6005', 'NOT_A_NUMBER'],
  ['+43', '64 3 331 6005', 'NOT_A_NUMBER'],
  ['Dog', '64 3 331 6005', 'NOT_A_NUMBER'],
  // testIsNumberMatchNsnMatches
  ['+64 3 331-6005', '03 331 6005', 'NSN_MATCH'],
  ['+64 3 331-6005', 'tel:03-331-6005;isub=1234;phone-context=abc.nz', 'NSN_MATCH'],
  [NZ, '03 331 6005', 'NSN_MATCH'],
  [NZ, '(64-3) 331 6005', 'NSN_MATCH'],
  [US, '1-650-253-0000', 'NSN_MATCH'],
  [US, '6502530000', 'NSN_MATCH'],
  ['+1 650-253 0000', '1 650 253 0000', 'NSN_MATCH'],
  ['1 650-253 0000', '1 650 253 0000', 'NSN_MATCH'],
  ['1 650-253 0000', '+1 650 253 0000', 'NSN_MATCH'],
  ['+41 650 253 0000', '1-650-253-0000', 'SHORT_NSN_MATCH'],
  // testIsNumberMatchShortNsnMatches
  ['+64 3 331-6005', '331 6005', 'SHORT_NSN_MATCH'],
  ['+64 3 331-6005', 'tel:331-6005;phone-context=abc.nz', 'SHORT_NSN_MATCH'],
  ['+64 3 331-6005', 'tel:331-6005;isub=1234;phone-context=abc.nz', 'SHORT_NSN_MATCH'],
  ['+64 3 331-6005', 'tel:331-6005;isub=1234;phone-context=abc.nz;a=%A1', 'SHORT_NSN_MATCH'],
  ['3 331-6005', '03 331 6005', 'SHORT_NSN_MATCH'],
  ['3 331-6005', '331 6005', 'SHORT_NSN_MATCH'],
  ['3 331-6005', 'tel:331-6005;phone-context=abc.nz', 'SHORT_NSN_MATCH'],
  ['3 331-6005', '+64 331 6005', 'SHORT_NSN_MATCH'],
  ['03 331-6005', '331 6005', 'SHORT_NSN_MATCH'],
  ['1 234 345 6789', '345 6789', 'SHORT_NSN_MATCH'],
  ['+1 (234) 345 6789', '345 6789', 'SHORT_NSN_MATCH'],
  ['+64 3 331-6005', '3 331 6005#1234', 'SHORT_NSN_MATCH'],
];

/**
 * What callctl does with each SHORT_NSN_MATCH pair (docs/people.md): the same digits but for the
 * leading zeros of a trunk prefix, neither with a country code, are the same number; an extension
 * on one side only is near; one number a tail of the other (its area code or country code missing)
 * is another number — a local number identifies no one.
 */
const SHORT: Record<string, 'same' | 'near' | undefined> = {
  '3 331-6005|03 331 6005': 'same',
  '+64 3 331-6005|3 331 6005#1234': 'near',
};

const read = (text: string): NumberKey | undefined => numberKey(text, undefined);

test('every public isNumberMatch pair: libphonenumber (real metadata) says what the table says, and callctl finds EXACT and NSN matches, never a NO_MATCH', () => {
  for (const [a, b, expected] of PAIRS) {
    assert.equal(oracle(a, b), expected, `libphonenumber on ${a} | ${b}`);
    const ka = read(a);
    const kb = read(b);
    if (expected === 'NOT_A_NUMBER') {
      assert.ok(ka === undefined || kb === undefined, `${a} | ${b}: one is no number to callctl either`);
      continue;
    }
    assert.ok(ka && kb, `${a} | ${b}: both read`);
    const ours = compareNumbers(ka, kb);
    assert.equal(compareNumbers(kb, ka), ours, `${a} | ${b}: the same both ways`);
    if (expected === 'EXACT_MATCH' || expected === 'NSN_MATCH') assert.equal(ours, 'same', `${a} | ${b} is ${expected}`);
    else if (expected === 'NO_MATCH') assert.equal(ours, undefined, `${a} | ${b} is NO_MATCH`);
    else assert.equal(ours, SHORT[`${a}|${b}`], `${a} | ${b} is SHORT_NSN_MATCH`);
  }
});

/**
 * Every extension label libphonenumber reads (its explicit, ambiguous and auto-dialling ones, the
 * full-width forms), in the languages it knows them in: English, Spanish, Russian.
 */
const LABELS = [
  ' ext 12', ' ext. 12', ' ext:12', ' extn 12', ' extn. 12', ' xtn 12', ' extension 12', ' Extension: 12',
  ' extensión 12', ' extensio\u0301n 12', ' anexo 12', ' \u0434\u043E\u0431 12', ' \u0434\u043E\u0431. 12',
  ' x12', ' x. 12', ' #12', '#12', ' ~12', ' int 12', ' int. 12', ',,12', ',12', ';12', ';ext=12',
  ' \uFF45\uFF58\uFF54 12', ' \uFF58 12', ' \uFF03 12', ' \uFF5E 12', ' \uFF49\uFF4E\uFF54 12', ' - 12#',
];

test('every extension label libphonenumber knows: the same extension is the same number, another is another person, none on one side is near', () => {
  const base = '+44 20 7946 0958';
  const forms = LABELS.map((label) => `${base}${label}`);
  const other = LABELS.map((label) => `${base}${label.replace('12', '13')}`);
  for (let i = 0; i < forms.length; i++) {
    const a = forms[i] as string;
    assert.equal(oracle(a, `${base} ext 12`), 'EXACT_MATCH', `libphonenumber reads ${JSON.stringify(a)} as extension 12`);
    assert.equal(compareNumbers(read(a)!, read(`${base} ext 12`)!), 'same', `${JSON.stringify(a)} is extension 12`);
    assert.equal(oracle(a, base), 'SHORT_NSN_MATCH');
    assert.equal(compareNumbers(read(a)!, read(base)!), 'near', `${JSON.stringify(a)} against the number without an extension`);
    for (let j = 0; j < other.length; j++) {
      const b = other[j] as string;
      assert.equal(oracle(a, b), 'NO_MATCH', `libphonenumber on ${JSON.stringify(a)} | ${JSON.stringify(b)}`);
      assert.equal(compareNumbers(read(a)!, read(b)!), undefined, `${JSON.stringify(a)} | ${JSON.stringify(b)}: two extensions, two people`);
    }
  }
  // A national form with a region, and one without: the extension is read all the same.
  const gb = numberKey('020 7946 0958 extn 12', 'GB')!;
  assert.equal(compareNumbers(gb, read(`${base} ext 12`)!), 'same');
  assert.equal(compareNumbers(read('020 7946 0958 extn 12')!, read(`${base} x13`)!), undefined);
  assert.equal(compareNumbers(read('020 7946 0958 extn 12')!, read(`${base} x12`)!), 'same');
});

test('the index finds exactly what the comparison calls the same, and near', () => {
  const texts = [...PAIRS.flatMap(([a, b]) => [a, b]), ...LABELS.map((l) => `+44 20 7946 0958${l}`), '+44 20 7946 0958', '020 7946 0958 x13'];
  const keys = [...new Set(texts)].map(read).filter((k): k is NumberKey => k !== undefined);
  const index = new NumberIndex<number>();
  keys.forEach((k, i) => index.add(k, i));
  keys.forEach((k) => {
    const same = keys.flatMap((o, j) => (compareNumbers(k, o) === 'same' ? [j] : []));
    const near = keys.flatMap((o, j) => (compareNumbers(k, o) === 'near' ? [j] : []));
    const found = index.match(k);
    assert.deepEqual([found.same.sort((a, b) => a - b), found.near.sort((a, b) => a - b)], [same, near], k.text);
  });
});
