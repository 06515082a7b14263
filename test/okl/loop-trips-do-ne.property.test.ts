/**
 * The law of the host trip counts that growing `do … while` loops and `while (s)` shift loops take
 * (src/run/derived-args.ts `okl_trip_<type>_<op>_<cmp>_do` and `…_shr_ne`, made by geometric.ts
 * whileGrowingTrip and whileTruthyTrips): for starts and bounds among 0, ±1, ±2, the int32 limits and
 * their neighbours, and any int32, the count is the number of trips C runs, computed here with BigInt;
 * where C's loop is undefined (a left shift of a negative value, a value past int's range) or never
 * ends, an ExecutionError: never a count of a loop C does not have.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ExecutionError } from "../../src/errors.js";
import { c, type Expr } from "../../src/ir/index.js";
import { evalDerived } from "../../src/run/derived-args.js";

const MIN = -(2n ** 31n);
const MAX = 2n ** 31n - 1n;
const int32 = fc.oneof(fc.constantFrom(0, 1, -1, 2, -2, 2 ** 30, 2 ** 31 - 1, 2 ** 31 - 2, -(2 ** 31), -(2 ** 31) + 1), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));

/** C's trips of `do { v OP= k } while (v CMP e)` (or `while`), or undefined where C's loop is undefined or endless. */
function cTrips(op: "shl" | "mul" | "shr", cmp: "lt" | "le" | "ne", doWhile: boolean, start: bigint, e: bigint, k: bigint): bigint | undefined {
  const holds = (x: bigint) => (cmp === "lt" ? x < e : cmp === "le" ? x <= e : x !== e);
  let v = start;
  let n = 0n;
  while ((doWhile && n === 0n) || holds(v)) {
    if (++n > 100n) return undefined; // never ends (a fixpoint: 0 << k, -1 >> k)
    if (op === "shl" && v < 0n) return undefined;
    v = op === "shl" ? v << k : op === "mul" ? v * k : v >> k;
    if (v < MIN || v > MAX) return undefined;
  }
  return n;
}

describe("host trip counts of growing do-while loops and while (s) shift loops: C's trips, or an ExecutionError", () => {
  it("okl_trip_int32_{shl,mul}_{lt,le}_do and okl_trip_int32_shr_ne[_do]", () => {
    const form = fc.oneof(
      fc.record({ op: fc.constantFrom("shl" as const, "mul" as const), cmp: fc.constantFrom("lt" as const, "le" as const), doWhile: fc.constant(true) }),
      fc.record({ op: fc.constant("shr" as const), cmp: fc.constant("ne" as const), doWhile: fc.boolean() }),
    );
    fc.assert(fc.property(form, int32, int32, fc.integer({ min: 1, max: 3 }), ({ op, cmp, doWhile }, start, bound, k0) => {
      const k = op === "mul" ? k0 + 1 : k0;
      const end = cmp === "ne" ? 0 : bound;
      const call: Expr = { kind: "call", fn: `okl_trip_int32_${op}_${cmp}${doWhile ? "_do" : ""}`, args: [c(start), c(end), c(k), c(64)] };
      const want = cTrips(op, cmp, doWhile, BigInt(start), BigInt(end), BigInt(k));
      const got = (): number => evalDerived(call, {}, "the law's loop");
      if (want === undefined) expect(got).toThrow(ExecutionError);
      else expect(got()).toBe(Number(want));
    }), { numRuns: 400 });
  });
});
