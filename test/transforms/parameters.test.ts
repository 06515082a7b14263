/**
 * assume and fixParameters (loopy/transform/parameter.py): what they do to the kernel, each error,
 * and the laws: assume(k, A).assumptions = k.assumptions ∩ A; run(fixParameters(k, {n}))(x) = run(k)(x, n).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TransformError } from "../../src/errors.js";
import { exprToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { containsPoint, printSet } from "../../src/poly/index.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { splitIname } from "../../transforms/index.js";
import { assume, fixParameters } from "../../transforms/parameters.js";

const RUNS = { numRuns: Number(process.env.LOOM_PROPERTY_RUNS ?? 100) };

const elementwise = () => makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] + n {id=s}", ["a: float64[n]", "out: float64[n]", "n: int32"], { name: "k" });
const scaled = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i,j] = alpha*a[i,j] {id=s, if=i+j<m}", ["a, out: float64[n,m]", "n, m: int32", "alpha: float64"], { name: "sc" });
const text = (k: Kernel) => k.instructions.map((insn) => (insn.kind === "assign" ? `${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}` : insn.kind));

describe("assume", () => {
  it("intersects the constraints into the kernel's assumptions (loopy's example)", () => {
    const k = assume(elementwise(), "n mod 16 = 0 and n >= 16");
    expect(printSet(k.assumptions)).toBe("[n] -> { [] : 16 <= n and exists (e0 : 16*e0 = n) }");
    const k2 = assume(k, "n <= 1024");
    expect(containsPoint(k2.assumptions, { n: 1024 })).toBe(true);
    expect(containsPoint(k2.assumptions, { n: 1040 })).toBe(false);
    expect(containsPoint(k2.assumptions, { n: 24 })).toBe(false);
  });

  it("accepts a parameter set and leaves the input unchanged", () => {
    const k = elementwise();
    const before = JSON.stringify(k);
    const k2 = assume(k, "[n] -> { : n >= 1 }");
    expect(containsPoint(k2.assumptions, { n: 0 })).toBe(false);
    expect(JSON.stringify(k)).toBe(before);
  });

  it("refuses names that are not parameters, naming the parameters", () => {
    expect(() => assume(elementwise(), "m >= 1")).toThrow(TransformError);
    expect(() => assume(elementwise(), "m >= 1")).toThrow(/"m" is not a parameter of kernel "k"; parameters are n/);
    expect(() => assume(elementwise(), "i >= 1")).toThrow(/"i" is not a parameter/);
  });

  it("refuses sets with dimensions, unreadable text and contradictions", () => {
    expect(() => assume(elementwise(), "{ [i]: 0 <= i < n }")).toThrow(/may only constrain parameters/);
    expect(() => assume(elementwise(), "n >= ")).toThrow(TransformError);
    expect(() => assume(elementwise(), "n * n >= 1")).toThrow(TransformError);
    expect(() => assume(assume(elementwise(), "n >= 4"), "n <= 2")).toThrow(/contradicts the assumptions/);
    expect(() => assume(elementwise(), 3 as unknown as string)).toThrow(/expected constraints text/);
  });
});

describe("fixParameters", () => {
  it("substitutes the value in domains, instructions, shapes and assumptions, and removes the argument", () => {
    const k = fixParameters(assume(elementwise(), "n mod 4 = 0"), { n: 1024 });
    expect(printSet(k.domains[0]!)).toBe("{ [i] : 0 <= i <= 1023 }");
    expect(text(k)).toEqual(["out[i] = 2*a[i] + 1024"]);
    expect(k.args.map((a) => a.name)).toEqual(["a", "out"]);
    expect(k.args.map((a) => (a.kind === "array" ? a.shape!.map(exprToString).join(",") : ""))).toEqual(["1024", "1024"]);
    expect(k.assumptions.params).toEqual([]);
  });

  it("fixes predicates, folds shapes and strides, and keeps a float value's precision", () => {
    const k0 = makeKernel("{[i]: 0<=i<n}", "out[i] = alpha*a[i] {if=i<n-1}", ["a: float64[n*4]", "out: float64[n]", "n: int32", "alpha: float64"]);
    const k = fixParameters(k0, { n: 3, alpha: 0.5 });
    expect(exprToString(k.instructions[0]!.predicates[0]!)).toBe("i < 3 - 1");
    const a = k.args.find((x) => x.name === "a");
    expect(a?.kind === "array" ? a.shape!.map(exprToString) : []).toEqual(["12"]);
    expect(text(k)[0]).toMatch(/^out\[i\] = 0\.5d?\*a\[i\]$/);
  });

  it("refuses unknown names, non-numbers, non-integers for integer parameters, and contradictions", () => {
    expect(() => fixParameters(elementwise(), { m: 3 })).toThrow(/"m" is not a parameter of kernel "k"; parameters are n/);
    expect(() => fixParameters(elementwise(), { i: 3 })).toThrow(TransformError);
    expect(() => fixParameters(elementwise(), { n: 2.5 })).toThrow(/must be an integer; got 2.5/);
    expect(() => fixParameters(elementwise(), { n: "3" as unknown as number })).toThrow(/must be a finite number/);
    expect(() => fixParameters(assume(elementwise(), "n mod 16 = 0"), { n: 24 })).toThrow(/n = 24 contradicts the assumptions/);
    expect(() => fixParameters(elementwise(), null as unknown as Record<string, number>)).toThrow(TransformError);
  });

  it("with no values returns the kernel, and never changes its input", () => {
    const k = scaled();
    const before = JSON.stringify(k);
    expect(fixParameters(k, {})).toBe(k);
    fixParameters(k, { n: 3, m: 2, alpha: 2 });
    expect(JSON.stringify(k)).toBe(before);
  });
});

// ---- laws -------------------------------------------------------------------------------------

const FAMILIES: readonly (() => Kernel)[] = [
  elementwise,
  scaled,
  () => makeKernel("{[i,j]: 0<=j<=i<n}", "out[i] = sum(j, a[i,j]*(j + n))", ["a: float64[n,n]", "out: float64[n]", "n: int32"]),
  () => makeKernel(["{[i]: 0<=i<n}", "{[j]: i<=j<m}"], "out[i] = sum(j, a[j]) {id=r}", ["a: float64[m]", "out: float64[n]", "n, m: int32"]),
];

/** Random float64 inputs for the arrays `k` reads, with the parameter values `p`. */
function inputs(k: Kernel, p: Record<string, number>, seed: number): Record<string, Float64Array> {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const out: Record<string, Float64Array> = {};
  for (const a of k.args) {
    if (a.kind !== "array" || a.name === "out") continue;
    const size = a.shape!.reduce((acc, e) => acc * Number(new Function(...Object.keys(p), `return ${exprToString(e)}`)(...Object.values(p))), 1);
    out[a.name] = Float64Array.from({ length: size }, rnd);
  }
  return out;
}

describe("law: running fixParameters(k, v) is running k with v passed", () => {
  it("for every family, every subset of parameters and values", async () => {
    await fc.assert(fc.asyncProperty(
      fc.nat({ max: FAMILIES.length - 1 }), fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 7 }),
      fc.double({ min: -4, max: 4, noNaN: true }), fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }), fc.nat(),
      async (f, n, m, alpha, which, seed) => {
        const k = FAMILIES[f]!();
        const all: Record<string, number> = Object.fromEntries(
          Object.entries({ n, m, alpha }).filter(([name]) => k.args.some((a) => a.name === name)));
        const fixed = Object.fromEntries(Object.entries(all).filter((_, x) => which[x]));
        const rest = Object.fromEntries(Object.entries(all).filter((_, x) => !which[x]));
        const t = fixParameters(k, fixed);
        for (const name of Object.keys(fixed)) expect(t.args.some((a) => a.name === name)).toBe(false);
        const data = inputs(k, all, seed);
        const want = await run(k, { ...data, ...all });
        const got = await run(t, { ...data, ...rest });
        expect([...(got.out as Float64Array)]).toEqual([...(want.out as Float64Array)]);
      }), RUNS);
  });
});

describe("law: assume(k, A).assumptions = k.assumptions ∩ A, and the kernel computes the same", () => {
  it("for divisibility and bound assumptions", async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 4 }),
      async (d, lo, n, factor) => {
        const k0 = assume(elementwise(), `n >= ${lo}`);
        const k = assume(k0, `n mod ${d} = 0`);
        expect(containsPoint(k.assumptions, { n })).toBe(n >= lo && n % d === 0);
        if (n >= lo && n % d === 0) {
          const r = await autoTestVsRef(elementwise(), splitIname(k, "i", factor), { params: { n }, seed: n });
          expect(r.mismatches).toEqual([]);
        }
      }), RUNS);
  });
});

describe("fixParameters refuses values no target can run (issue 16, point 12)", () => {
  const tiled = () => splitIname(elementwise(), "i", 16, { outerTag: "g.0", innerTag: "l.0" });
  it("a value that leaves an l iname empty (a work-group size of 0), naming the iname", () => {
    expect(() => fixParameters(tiled(), { n: 0 })).toThrow(/n = 0 leaves the work-item iname i_inner .*work-group size would be 0/);
    expect(fixParameters(tiled(), { n: 1 }).args.map((a) => a.name)).toEqual(["a", "out"]);
  });
  it("a value outside the parameter's integer dtype, naming the dtype and its range", () => {
    expect(() => fixParameters(tiled(), { n: 2 ** 40 })).toThrow(/"n" .* is int32; 1099511627776 is outside its range -2147483648…2147483647/);
    expect(() => fixParameters(tiled(), { n: -(2 ** 31) - 1 })).toThrow(TransformError);
    const wide = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] {id=s}", ["a, out: float64[n]", "n: int64"]);
    expect(() => fixParameters(wide, { n: 2 ** 40 })).not.toThrow();
    const byte = makeKernel("{[i]: 0<=i<4}", "out[i] = b*a[i] {id=s}", ["a, out: float64[4]", "b: uint8"]);
    expect(() => fixParameters(byte, { b: 256 })).toThrow(/uint8; 256 is outside its range 0…255/);
  });
  it("values at the int32 limits are accepted", () => {
    expect(() => fixParameters(tiled(), { n: 2 ** 31 - 1 })).not.toThrow();
  });
});

describe("a work-group of size 0 is refused whichever comes first, fixParameters or the l tag", () => {
  it("fixParameters({n: 0}) then an l.0 split is refused at the tag, naming the iname", () => {
    expect(() => splitIname(fixParameters(elementwise(), { n: 0 }), "i", 16, { outerTag: "g.0", innerTag: "l.0" }))
      .toThrow(/iname "i_inner" has no value .*work-group of size 0/);
    expect(() => splitIname(fixParameters(elementwise(), { n: 0 }), "i", 16, { outerTag: "g.0" })).not.toThrow();
  });
});
