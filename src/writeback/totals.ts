/**
 * Totals of calls per outcome (and per a field of the call): the number of calls and the sum of
 * `value` per currency, summed exactly in the currency's minor units (its decimals from
 * Intl.NumberFormat) — never in floating point, where 0.1 + 0.2 is not 0.3. Memory grows with the
 * number of groups, not of calls.
 */
import type { ListedCall } from '../api/calls.js';

export const NO_OUTCOME = '(none)';

export interface TotalsRow {
  outcome: string;
  /** The --by field's value, when grouping by one. */
  by?: string;
  calls: number;
  /** Sum of values per currency, in major units. */
  totals: Record<string, number>;
}

const decimalsCache = new Map<string, number>();
/** Minor-unit digits of a currency (USD 2, JPY 0, KWD 3); 2 for a code Intl does not know. */
export function currencyDecimals(code: string): number {
  let d = decimalsCache.get(code);
  if (d === undefined) {
    try {
      d = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      d = 2;
    }
    decimalsCache.set(code, d);
  }
  return d;
}

/** A running total, fed one call at a time. */
export class OutcomeTotals {
  private readonly groups = new Map<string, { outcome: string; by?: string; calls: number; minor: Map<string, bigint> }>();

  constructor(private readonly byField?: string) {}

  add(c: ListedCall): void {
    const outcome = typeof c.outcome === 'string' && c.outcome !== '' ? c.outcome : NO_OUTCOME;
    const byValue = this.byField === undefined ? undefined : c[this.byField] === undefined || c[this.byField] === null || c[this.byField] === '' ? NO_OUTCOME : String(c[this.byField]);
    const key = byValue === undefined ? outcome : `${outcome}\u0000${byValue}`;
    let g = this.groups.get(key);
    if (!g) {
      g = { outcome, ...(byValue !== undefined ? { by: byValue } : {}), calls: 0, minor: new Map() };
      this.groups.set(key, g);
    }
    g.calls += 1;
    const value = typeof c.value === 'number' ? c.value : typeof c.value === 'string' && c.value.trim() !== '' ? Number(c.value) : undefined;
    if (value === undefined || !Number.isFinite(value)) return;
    const currency = typeof c.currency === 'string' && c.currency !== '' ? c.currency.toUpperCase() : '(none)';
    const minor = BigInt(Math.round(value * 10 ** currencyDecimals(currency)));
    g.minor.set(currency, (g.minor.get(currency) ?? 0n) + minor);
  }

  /** The groups, most calls first (then by name). */
  rows(): TotalsRow[] {
    return [...this.groups.values()]
      .sort((a, b) => b.calls - a.calls || a.outcome.localeCompare(b.outcome) || (a.by ?? '').localeCompare(b.by ?? ''))
      .map((g) => {
        const totals: Record<string, number> = {};
        for (const [cur, minor] of [...g.minor].sort(([x], [y]) => x.localeCompare(y))) totals[cur] = Number(minor) / 10 ** currencyDecimals(cur);
        return { outcome: g.outcome, ...(g.by !== undefined ? { by: g.by } : {}), calls: g.calls, totals };
      });
  }
}

/** "1,250.50 USD, 300 EUR" — exact, from the minor units. */
export function formatTotals(totals: Record<string, number>): string {
  return Object.entries(totals)
    .map(([cur, v]) => `${v.toFixed(currencyDecimals(cur))} ${cur}`)
    .join(', ');
}
