/**
 * The kernel's assumptions checked against a run's values, exactly. Value arguments of int64 come
 * as BigInt (or Numbers past 2^53 after arithmetic), and a Number is exact only up to 2^53: judged
 * as Numbers, n = 2^53 + 1 (odd) became 2^53 and passed `n mod 2 = 0`, and 2^63 - 1 passed it too.
 * The test is poly's `satisfiesExactly` (BigInt, at any magnitude).
 */
import { ExecutionError } from "../errors.js";
import type { Kernel } from "../ir/index.js";
import { containsPoint, printSet, satisfiesExactly } from "../poly/index.js";

/**
 * The kernel's assumptions (`assume`, makeKernel's `assumptions`) must hold for the run's values:
 * code is generated under them (a split's guards left out where they say the tile divides), so a
 * run outside them would compute something else or write past an array's end.
 */
export function checkAssumptions(k: Kernel, values: ReadonlyMap<string, number | bigint>): void {
  const a = k.assumptions;
  if (a.constraints.length === 0) return;
  const point: Record<string, number | bigint> = {};
  for (const p of a.params) {
    const v = values.get(p);
    if (v === undefined) return;
    point[p] = v;
  }
  const given = a.params.map((p) => `${p} = ${point[p]}`).join(", ");
  const integral = Object.values(point).every((v) => typeof v === "bigint" || Number.isInteger(v));
  let holds = integral ? satisfiesExactly(a, Object.fromEntries(Object.entries(point).map(([p, v]) => [p, BigInt(v)]))) : undefined;
  if (holds === undefined) {
    // Coupled existentials (or a fractional value): Numbers, exact while every value is a safe integer.
    if (Object.values(point).some((v) => typeof v === "bigint" ? v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER) : !Number.isFinite(v) || Math.abs(v) > Number.MAX_SAFE_INTEGER)) {
      throw new ExecutionError(`${given}: cannot check the assumptions of kernel "${k.name}" (${printSet(a)}) exactly for values beyond 2^53; ` +
        `pass values within ±2^53 or state the assumptions with one mod or bound per condition`);
    }
    holds = containsPoint(a, Object.fromEntries(Object.entries(point).map(([p, v]) => [p, Number(v)])));
  }
  if (holds) return;
  throw new ExecutionError(`${given} violates the assumptions of kernel "${k.name}" (${printSet(a)}): its code is generated under them ` +
    `(guards and bounds they make unnecessary are left out); pass values that satisfy them, or make the kernel without the assumption`);
}
