/**
 * Parsers for option values: commander hands every value over as a string, and a bad one must be
 * a usage error (exit 2) naming what was expected, never NaN flowing into a request.
 */
import { InvalidArgumentError } from 'commander';
import { UsageError } from '../errors.js';

/** An integer in [min, max]. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `expected a whole number ≥ ${min}` : `expected a whole number from ${min} to ${max}`);
    }
    return n;
  };
}

/** A finite number in [min, max]; `exclusiveMin` makes the lower bound open. */
export function decimal(min: number, max = Number.POSITIVE_INFINITY, exclusiveMin = false): (value: string) => number {
  return (value) => {
    const n = Number(value);
    const low = exclusiveMin ? n <= min : n < min;
    if (value.trim() === '' || !Number.isFinite(n) || low || n > max) {
      const range = Number.isFinite(max) ? ` up to ${max}` : '';
      throw new InvalidArgumentError(`expected a number ${exclusiveMin ? '>' : '≥'} ${min}${range}`);
    }
    return n;
  };
}

/** Collects a repeatable option into an array. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * A positional commander requires (`<id>`): always there when the action runs, so the usage error
 * is commander's own line — this only gives the typed options a string without a cast.
 */
export function required(args: string[], i: number, name: string): string {
  const value = args[i];
  if (value === undefined) throw new UsageError(`missing required argument '${name}'`);
  return value;
}

/** A value commander checked with `.choices(choices)`, typed without a cast; undefined when not given. */
export function choice<T extends string>(value: unknown, choices: readonly T[]): T | undefined {
  return choices.find((c) => c === value);
}
