/**
 * Exact rationals on BigInt, for the coefficients of counting polynomials (Faulhaber's formulas
 * have fractions such as 1/6; a count evaluated at large parameters needs more than 2^53).
 * Immutable, always reduced, denominator positive.
 *
 *   ratAdd(rat(1, 2), rat(1, 3))   // 5/6
 */

export interface Rational {
  readonly n: bigint;
  readonly d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function make(n: bigint, d: bigint): Rational {
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = gcd(n, d);
  return g === 1n || g === 0n ? { n, d } : { n: n / g, d: d / g };
}

export const ZERO: Rational = { n: 0n, d: 1n };
export const ONE: Rational = { n: 1n, d: 1n };

/** `n / d` (integers; `d` nonzero). */
export function rat(n: number | bigint, d: number | bigint = 1): Rational {
  return make(BigInt(n), BigInt(d));
}

export function ratAdd(a: Rational, b: Rational): Rational {
  return a.d === b.d ? make(a.n + b.n, a.d) : make(a.n * b.d + b.n * a.d, a.d * b.d);
}

export function ratMul(a: Rational, b: Rational): Rational {
  return make(a.n * b.n, a.d * b.d);
}

export function ratIsZero(a: Rational): boolean {
  return a.n === 0n;
}

/** `a^e` for an integer `e >= 0`. */
export function ratPow(a: Rational, e: number): Rational {
  return { n: a.n ** BigInt(e), d: a.d ** BigInt(e) };
}

/** The nearest double. */
export function ratToNumber(a: Rational): number {
  return a.d === 1n ? Number(a.n) : Number(a.n) / Number(a.d);
}

/** `3`, `-1/2`. */
export function ratToString(a: Rational): string {
  return a.d === 1n ? `${a.n}` : `${a.n}/${a.d}`;
}
