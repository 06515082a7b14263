/**
 * Integer intervals for the bounds proof through index arrays (bounds-data.ts): C's integer
 * operations on them, and constant bounds of a loop over a set whose parameters lie in ranges.
 *
 *   arith("*", { min: -2, max: 3, signed: true }, { min: 4, max: 4, signed: true })   // { min: -8, max: 12 }
 */
import { dimBounds, type BasicSet } from "../poly/index.js";

/** An interval of integers; `signed`: no unsigned value took part (C's unsigned arithmetic wraps). */
export interface Interval {
  readonly min: number;
  readonly max: number;
  readonly signed: boolean;
}

export const INT_MIN = -(2 ** 31);
export const INT_MAX = 2 ** 31 - 1;

/** C's integer operation on intervals (`/` truncates, `//` floors, `%` takes the divisor's sign), or undefined. */
export function arith(op: string, a: Interval, b: Interval): Interval | undefined {
  const hull = (xs: number[]): Interval => ({ min: Math.min(...xs), max: Math.max(...xs), signed: true });
  switch (op) {
    case "+": return { min: a.min + b.min, max: a.max + b.max, signed: true };
    case "-": return { min: a.min - b.max, max: a.max - b.min, signed: true };
    case "*": return hull([a.min * b.min, a.min * b.max, a.max * b.min, a.max * b.max]);
    case "//": case "/": {
      if (b.min !== b.max || b.min === 0) return undefined;
      const f = op === "//" ? Math.floor : Math.trunc;
      return hull([f(a.min / b.min), f(a.max / b.min)]);
    }
    case "%":
      return b.min === b.max && b.min > 0 ? { min: 0, max: b.min - 1, signed: true } : undefined;
    default:
      return undefined;
  }
}

/**
 * Constant bounds of `dim` over `s` (a lower and an upper one; wider than its exact range where
 * they hold for a box), its bounds in parameters taken at their extremes over `ranges`; undefined
 * where a side has none.
 */
export function constantBounds(s: BasicSet, dim: string, ranges: ReadonlyMap<string, { min: number; max: number }> = new Map()): { min: number; max: number } | undefined {
  const b = dimBounds(s, dim, []);
  // The least (lower side) or largest (upper side) value of aff / denom over the ranges, or undefined.
  const extreme = (x: (typeof b.upper)[number], upper: boolean): number | undefined => {
    let v = x.aff.constant;
    for (const [p, c] of Object.entries(x.aff.terms)) {
      const r = ranges.get(p);
      if (!r) return undefined;
      v += c * ((c > 0) === upper ? r.max : r.min);
    }
    return (upper ? Math.floor : Math.ceil)(v / x.denom);
  };
  const lo = b.lower.map((x) => extreme(x, false)).filter((x): x is number => x !== undefined);
  const hi = b.upper.map((x) => extreme(x, true)).filter((x): x is number => x !== undefined);
  return lo.length > 0 && hi.length > 0 ? { min: Math.max(...lo), max: Math.min(...hi) } : undefined;
}
