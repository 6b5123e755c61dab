/**
 * The rules of an outcome, the same for `calls outcome` and every row of `calls outcome --from`:
 * calls are grouped and totalled by the outcome's name, so it must be snake_case (anything else
 * is refused with the spelling to use); a value is a plain number ≥ 0 — nothing is guessed from
 * `$1,250` or `1.250,00`; a value needs an ISO 4217 currency (case-insensitive in, upper-case out);
 * and when the profile has an outcome vocabulary, the name must be one of it.
 */
import type { Outcome } from '../api/calls.js';

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const PLAIN_NUMBER = /^\d+(\.\d+)?$/;

/** `Booked Job` → `booked_job`, `noAnswer` → `no_answer`. */
export function snakeCase(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** ISO 4217 codes this Node knows, upper-case. */
export function isCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && Intl.supportedValuesOf('currency').includes(code);
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j] as number;
      row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length] as number;
}

/** The known name closest to `name` (undefined when none is close). */
export function nearest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = distance(name, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

export interface OutcomeInput {
  outcome: string;
  /** As typed: a number for the flag, the cell's text for a row. */
  value?: string | number | undefined;
  currency?: string | undefined;
}

export interface OutcomeDefaults {
  /** --currency, else the profile's `currency`: for a value given without one. */
  currency?: string | undefined;
  /** The profile's `outcomes`, when set. */
  vocabulary?: readonly string[] | undefined;
}

export type CheckedOutcome = { ok: true; outcome: Outcome } | { ok: false; reason: string; hint?: string };

/** Checks one outcome; the reason names the fix. */
export function checkOutcome(input: OutcomeInput, defaults: OutcomeDefaults = {}): CheckedOutcome {
  const name = input.outcome.trim();
  if (name === '') return { ok: false, reason: 'no outcome given', hint: 'e.g. booked_job' };
  if (!SNAKE.test(name)) {
    const suggestion = snakeCase(name);
    return { ok: false, reason: `outcome "${name}" is not snake_case`, hint: suggestion ? `use ${suggestion}` : 'e.g. booked_job' };
  }
  const vocabulary = defaults.vocabulary;
  if (vocabulary && vocabulary.length > 0 && !vocabulary.includes(name)) {
    const close = nearest(name, vocabulary);
    return { ok: false, reason: `outcome "${name}" is not in this profile's outcomes`, hint: close ? `did you mean ${close}? (callctl config get outcomes)` : `use one of ${vocabulary.join(', ')}` };
  }
  const outcome: Outcome = { outcome: name };
  const rawValue = typeof input.value === 'string' ? input.value.trim() : input.value;
  if (rawValue === undefined || rawValue === '') return { ok: true, outcome };
  let value: number;
  if (typeof rawValue === 'number') value = rawValue;
  else if (PLAIN_NUMBER.test(rawValue)) value = Number(rawValue);
  else return { ok: false, reason: `value "${rawValue}" is not a plain number`, hint: 'write it as 250 or 250.50: no currency sign, no thousands separator' };
  if (!Number.isFinite(value) || value < 0) return { ok: false, reason: `value ${String(rawValue)} must be a finite number ≥ 0` };
  const raw = (input.currency?.trim() || undefined) ?? defaults.currency;
  if (raw === undefined) return { ok: false, reason: 'a value needs a currency', hint: 'add --currency USD, or set a default: callctl config set currency USD' };
  const currency = raw.toUpperCase();
  if (!isCurrency(currency)) return { ok: false, reason: `"${raw}" is not an ISO 4217 currency code`, hint: 'e.g. USD, EUR, GBP' };
  outcome.value = value;
  outcome.currency = currency;
  return { ok: true, outcome };
}
