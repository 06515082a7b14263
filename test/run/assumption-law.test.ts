/**
 * The law of run's assumption check (src/run/assumptions.ts): a run is refused exactly when its
 * values violate the kernel's assumptions, judged as integers at any magnitude. Assumptions are
 * random conjunctions of residues (`n mod 3 = 1`), bounds (`n >= 2147483647`), relations of two
 * parameters (`2*n - 3*m >= -5`) and of floors (`floor(n/4) mod 3 = 2`, `floor(n/4) >= m`); values include 0, ±1, the int32 and int64 limits and 2^53 ± 1,
 * where a Number is no longer exact (2^53 + 1 read as 2^53 passed `n mod 2 = 0`).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";

type Cond =
  | { kind: "mod"; p: "n" | "m"; q: number; r: number }
  | { kind: "bound"; p: "n" | "m"; lower: boolean; c: bigint }
  | { kind: "rel"; a: number; b: number; c: bigint }
  | { kind: "floorMod"; p: "n" | "m"; q: number; r: number; s: number }
  | { kind: "floorGe"; p: "n" | "m"; q: number };

const LIMITS = [0n, 1n, -1n, 2n, 3n, 2n ** 31n - 1n, -(2n ** 31n), 2n ** 31n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 53n + 2n,
  -(2n ** 53n) - 1n, 2n ** 63n - 1n, 2n ** 63n - 2n, -(2n ** 63n), -(2n ** 63n) + 1n];
const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
const valueArb = fc.oneof(fc.constantFrom(...LIMITS), fc.bigInt(INT64), fc.bigInt({ min: -50n, max: 50n }));
const constArb = fc.oneof(fc.constantFrom(0n, 1n, -1n, 2n ** 31n - 1n, -(2n ** 31n), 2n ** 52n), fc.bigInt({ min: -20n, max: 20n }));
const param = fc.constantFrom("n" as const, "m" as const);
const condArb: fc.Arbitrary<Cond> = fc.oneof(
  fc.integer({ min: 2, max: 7 }).chain((q) => fc.record({ kind: fc.constant("mod" as const), p: param, q: fc.constant(q), r: fc.integer({ min: 0, max: q - 1 }) })),
  fc.record({ kind: fc.constant("bound" as const), p: param, lower: fc.boolean(), c: constArb }),
  fc.record({ kind: fc.constant("rel" as const), a: fc.integer({ min: -3, max: 3 }), b: fc.integer({ min: -3, max: 3 }), c: constArb }).filter((c) => c.a !== 0 || c.b !== 0),
  fc.integer({ min: 2, max: 5 }).chain((r) => fc.record({ kind: fc.constant("floorMod" as const), p: param, q: fc.integer({ min: 2, max: 6 }), r: fc.constant(r), s: fc.integer({ min: 0, max: r - 1 }) })),
  fc.record({ kind: fc.constant("floorGe" as const), p: param, q: fc.integer({ min: 2, max: 6 }) }),
);
const other = (p: "n" | "m") => (p === "n" ? "m" : "n");
const floorDiv = (a: bigint, q: number) => (a >= 0n ? a / BigInt(q) : -((-a + BigInt(q) - 1n) / BigInt(q)));

const term = (a: number, v: string) => (a === 1 ? v : a === -1 ? `-${v}` : `${a}*${v}`);
function text(c: Cond): string {
  switch (c.kind) {
    case "mod": return `${c.p} mod ${c.q} = ${c.r}`;
    case "bound": return `${c.p} ${c.lower ? ">=" : "<="} ${c.c}`;
    case "rel": {
      const ts = [c.a ? term(c.a, "n") : "", c.b ? term(c.b, "m") : ""].filter((t) => t !== "");
      return `${ts.length === 0 ? "0" : ts.join(" + ").replace("+ -", "- ")} >= ${c.c}`;
    }
    case "floorMod": return `floor(${c.p}/${c.q}) mod ${c.r} = ${c.s}`;
    case "floorGe": return `floor(${c.p}/${c.q}) >= ${other(c.p)}`;
  }
}
/** The condition evaluated directly on the integers. */
function holds(c: Cond, v: { n: bigint; m: bigint }): boolean {
  switch (c.kind) {
    case "mod": return ((v[c.p] % BigInt(c.q)) + BigInt(c.q)) % BigInt(c.q) === BigInt(c.r);
    case "bound": return c.lower ? v[c.p] >= c.c : v[c.p] <= c.c;
    case "rel": return BigInt(c.a) * v.n + BigInt(c.b) * v.m >= c.c;
    case "floorMod": return ((floorDiv(v[c.p], c.q) % BigInt(c.r)) + BigInt(c.r)) % BigInt(c.r) === BigInt(c.s);
    case "floorGe": return floorDiv(v[c.p], c.q) >= v[other(c.p)];
  }
}

const base = lp.makeKernel("{[i]: 0<=i<1}", "out[i] = 1", ["out: int32[1]", "n, m: int64"], { name: "k" });

describe("run's assumption check, as a law", () => {
  it("refuses exactly the values that violate the assumptions, at any int64 magnitude", async () => {
    await fc.assert(fc.asyncProperty(fc.array(condArb, { minLength: 1, maxLength: 3 }), valueArb, valueArb, async (conds, n, m) => {
      let k: lp.Kernel;
      try {
        k = lp.assume(base, conds.map(text).join(" and "));
      } catch (e) {
        // A contradiction (`n >= 5 and n <= 2`) is refused by assume itself, before any run, as is a
        // coefficient past 2^53 in its simplification (`2*n - m >= 0 and n <= 2^52`: exact or refused).
        expect(e).toBeInstanceOf(lp.LoomError);
        expect((e as Error).message).toMatch(/contradicts the assumptions|integer overflow/);
        return;
      }
      const expected = conds.every((c) => holds(c, { n, m }));
      const ran = await lp.run(k, { n, m, out: new Int32Array(1) }, { backend: "interp" }).then(() => true, (e: unknown) => {
        expect(e, String(e)).toBeInstanceOf(lp.ExecutionError);
        expect((e as Error).message).toMatch(/violates the assumptions of kernel "k"/);
        return false;
      });
      expect(ran, `${conds.map(text).join(" and ")} at n = ${n}, m = ${m}`).toBe(expected);
    }), { numRuns: 200 });
  });

  it("2^53 + 1 and 2^63 - 1 are odd", async () => {
    const k = lp.assume(base, "n mod 2 = 0");
    for (const n of [2n ** 53n + 1n, 2n ** 63n - 1n]) {
      await expect(lp.run(k, { n, m: 0n, out: new Int32Array(1) })).rejects.toThrow(`n = ${n} violates the assumptions`);
    }
    await expect(lp.run(k, { n: 2n ** 53n + 2n, m: 0n, out: new Int32Array(1) })).resolves.toBeDefined();
  });
});
