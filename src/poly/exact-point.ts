/**
 * Whether parameter values satisfy a parameter-only set, evaluated exactly in BigInt (containsPoint,
 * enumerate.ts, computes in Numbers, exact only up to 2^53): each constraint with the parameters
 * substituted, its existentials (mod and floor) solved one at a time. run's assumption check uses it.
 *
 *   satisfiesExactly(parseSet("[n] -> { : n mod 2 = 0 }"), { n: 2n ** 53n + 1n }) === false
 */
import type { BasicSet } from "./types.js";

const floorDivBig = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
};
const ceilDivBig = (a: bigint, b: bigint): bigint => -floorDivBig(-a, b);

/**
 * Whether the integer parameter values `point` satisfy the parameter-only set `s` (no set
 * dimensions), evaluated exactly; undefined when its existentials are coupled in a way this
 * one-at-a-time solution cannot decide (two unknowns in every constraint left).
 */
export function satisfiesExactly(s: BasicSet, point: Readonly<Record<string, bigint>>): boolean | undefined {
  if (s.dims.length > 0) return undefined;
  const np = s.params.length;
  const ne = s.exists.length;
  // Each constraint as its existentials' coefficients and a constant with the parameters substituted.
  const rows = s.constraints.map((c) => {
    let k = BigInt(c.constant);
    for (let j = 0; j < np; j++) if (c.coeffs[j]) k += BigInt(c.coeffs[j]!) * point[s.params[j]!]!;
    return { eq: c.eq, e: c.coeffs.slice(np, np + ne).map((v) => BigInt(v ?? 0)), k };
  });
  const known = new Array<boolean>(ne).fill(false);
  const unknownsOf = (r: (typeof rows)[number]) => r.e.flatMap((a, j) => (a !== 0n && !known[j] ? [j] : []));
  /** Give existential `j` the value `v`: fold it into every constant. */
  const fix = (j: number, v: bigint) => {
    for (const r of rows) {
      r.k += r.e[j]! * v;
      r.e[j] = 0n;
    }
    known[j] = true;
  };
  for (;;) {
    for (const r of rows) if (unknownsOf(r).length === 0 && (r.eq ? r.k !== 0n : r.k < 0n)) return false;
    const left = known.flatMap((x, j) => (x ? [] : [j]));
    if (left.length === 0) return true;
    // An equality with one unknown determines it (a mod or an exact division).
    const eq = rows.find((r) => r.eq && unknownsOf(r).length === 1);
    if (eq) {
      const j = unknownsOf(eq)[0]!;
      if (eq.k % eq.e[j]! !== 0n) return false;
      fix(j, -eq.k / eq.e[j]!);
      continue;
    }
    // An existential whose every constraint has no other unknown: feasible iff its bounds meet.
    const alone = left.find((j) => rows.every((r) => r.e[j] === 0n || unknownsOf(r).length === 1));
    if (alone === undefined) return undefined;
    let lo: bigint | undefined;
    let hi: bigint | undefined;
    for (const r of rows) {
      const a = r.e[alone]!;
      if (a > 0n) lo = lo === undefined || ceilDivBig(-r.k, a) > lo ? ceilDivBig(-r.k, a) : lo;
      if (a < 0n) hi = hi === undefined || floorDivBig(r.k, -a) < hi ? floorDivBig(r.k, -a) : hi;
    }
    if (lo !== undefined && hi !== undefined && lo > hi) return false;
    fix(alone, lo ?? hi ?? 0n);
  }
}
