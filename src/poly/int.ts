/**
 * Checked integer arithmetic on safe integers. Every coefficient of a set stays a safe integer;
 * leaving that range would silently lose exactness, so it is a LoomError instead.
 */
import { LoomError } from "../errors.js";

function overflow(): never {
  throw new LoomError("integer overflow: a coefficient left the safe-integer range (±2^53)");
}

/** a * b, or a LoomError on overflow. `mul(3, 4) === 12` */
export function mul(a: number, b: number): number {
  const r = a * b;
  if (!Number.isSafeInteger(r)) overflow();
  return r === 0 ? 0 : r; // no -0: rows are compared by value and printed
}

/** a + b, or a LoomError on overflow. */
export function add(a: number, b: number): number {
  const r = a + b;
  if (!Number.isSafeInteger(r)) overflow();
  return r === 0 ? 0 : r;
}

/** a*x + b*y, checked: the core of every row combination. */
export function lin(a: number, x: number, b: number, y: number): number {
  return add(mul(a, x), mul(b, y));
}

/** Greatest common divisor of |a| and |b| (gcd(0, 0) = 0). */
export function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/** floor(a / b) for b > 0, exact on safe integers. */
export function floorDiv(a: number, b: number): number {
  const q = Math.floor(a / b);
  // Division of large safe integers may round; correct by one step if needed.
  const r = a - q * b;
  if (r < 0) return q - 1;
  if (r >= b) return q + 1;
  return q === 0 ? 0 : q;
}

/** ceil(a / b) for b > 0. */
export function ceilDiv(a: number, b: number): number {
  return -floorDiv(-a, b) || 0;
}

/** Check that `x` is a safe integer (a user-given coefficient or value). */
export function checkInt(x: number, what: string | (() => string)): number {
  if (!Number.isSafeInteger(x)) {
    if (Number.isInteger(x)) overflow();
    throw new LoomError(`${typeof what === "string" ? what : what()}: expected an integer, got ${x}`);
  }
  return x;
}
