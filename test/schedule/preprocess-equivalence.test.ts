/**
 * Law: preprocessing keeps the meaning. For kernels without hardware tags (and with ilp/unr tags),
 * run(preprocess(k)) == run(k), element for element (same summation order, so exact).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseInameTag, withKernel, type InameTag, type Kernel, type TypedArray } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { preprocess } from "../../src/schedule/index.js";

function tag(k: Kernel, tags: Record<string, string>): Kernel {
  const parsed = Object.fromEntries(Object.entries(tags).map(([i, t]) => [i, parseInameTag(t) as InameTag]));
  return withKernel(k, { inameTags: { ...k.inameTags, ...parsed } });
}

function sameArrays(a: Record<string, TypedArray>, b: Record<string, TypedArray>): boolean {
  const keys = Object.keys(a).sort();
  if (keys.join() !== Object.keys(b).sort().join()) return false;
  return keys.every((key) => a[key]!.length === b[key]!.length && Array.from(a[key]! as ArrayLike<number | bigint>).every((x, idx) => Object.is(x, b[key]![idx])));
}

type Op = "sum" | "product" | "max" | "min";

/** A random sequential reduction kernel: the reduction's shape, op, dtype, domain and an optional ilp/unr tag. */
interface Case {
  readonly shape: "one" | "two" | "nested" | "twoInOne";
  readonly op: Op;
  readonly op2: Op;
  readonly dtype: "float64" | "int32";
  readonly triangular: boolean;
  readonly n: number;
  readonly m: number;
  readonly tag: "none" | "unr" | "ilp" | "ilp.seq";
  readonly seed: number;
}

function kernelOf(c: Case): Kernel {
  // i has the constant extent 3 so it can carry unr/ilp tags.
  const jBound = c.triangular ? "j <= i + m - 3" : "j < m";
  const kBound = c.triangular ? "k <= j" : "k < m";
  const dom = `{[i,j,k]: 0<=i<3 and 0<=j and ${jBound} and 0<=k and ${kBound}}`;
  const body = {
    one: `out[i] = ${c.op}(j, a[i,j]) + 1`,
    two: `out[i] = ${c.op}((j, k), a[i,j] * b[k] - a[i,k])`,
    nested: `out[i] = ${c.op}(j, a[i,j] * ${c.op2}(k, b[k] + a[i,k]))`,
    twoInOne: `out[i] = ${c.op}(j, a[i,j]) - ${c.op2}(k, 2*b[k])`,
  }[c.shape];
  const k = makeKernel(dom, `${body} {id=s}`, [`a: ${c.dtype}[3,m+3]`, `b: ${c.dtype}[m+3]`, `out: ${c.dtype}[3]`, "m: int32"]);
  return c.tag === "none" || (c.tag.startsWith("ilp") && c.triangular) ? k : tag(k, { i: c.tag });
}

function argsOf(c: Case): Record<string, TypedArray | number> {
  const len = 3 * (c.m + 3);
  let x = c.seed;
  // A small LCG: values in -3..3 keep products of int32 and float64 in range most of the time.
  const next = () => ((x = (x * 1103515245 + 12345) % 2147483648), (x % 7) - 3);
  const fill = (n: number) => (c.dtype === "int32" ? Int32Array.from({ length: n }, next) : Float64Array.from({ length: n }, () => next() / 2));
  return { a: fill(len), b: fill(c.m + 3), m: c.m };
}

const ops = fc.constantFrom<Op>("sum", "product", "max", "min");
const cases: fc.Arbitrary<Case> = fc.record({
  shape: fc.constantFrom("one", "two", "nested", "twoInOne"),
  op: ops, op2: ops,
  dtype: fc.constantFrom("float64", "int32"),
  triangular: fc.boolean(),
  n: fc.constant(3),
  m: fc.integer({ min: 0, max: 6 }),
  tag: fc.constantFrom("none", "unr", "ilp", "ilp.seq"),
  seed: fc.integer({ min: 1, max: 1 << 30 }),
});

describe("preprocess keeps the meaning", () => {
  it("for all random sequential reductions k: run(preprocess(k)) == run(k)", async () => {
    await fc.assert(fc.asyncProperty(cases, async (c) => {
      const k = kernelOf(c);
      const args = argsOf(c);
      return sameArrays(await run(preprocess(k), args), await run(k, args));
    }), { numRuns: 250 });
  });

  it("substitution rules, temporaries and an ilp-privatized temporary", async () => {
    const k = tag(makeKernel("{[i,j,l]: 0<=i<n and 0<=j<4 and 0<=l<4}", [
      "sq(x) := x*x",
      "<float32> t = sq(a[i,j]) {id=w}",
      "out[i,j] = t + sum(l, sq(a[i,l])) {id=r, dep=w}",
    ], ["a: float32[n,4]", "out: float32[n,4]", "n: int32"]), { j: "ilp" });
    const p = preprocess(k);
    expect(p.temporaries.map((t) => `${t.name}[${t.shape.length}]`)).toEqual(["t[1]", "acc_l[1]"]);
    const a = Float32Array.from({ length: 20 }, (_, x) => x / 3);
    const f = Math.fround;
    const want = new Float32Array(20);
    for (let i = 0; i < 5; i++) {
      let acc = 0;
      for (let l = 0; l < 4; l++) acc = f(acc + f(a[4 * i + l]! * a[4 * i + l]!));
      for (let j = 0; j < 4; j++) want[4 * i + j] = f(f(a[4 * i + j]! * a[4 * i + j]!) + acc);
    }
    // Compared with the direct loop nest: run(k) of the unprivatized kernel allocates `t` from
    // k's declaration (shape []), while its schedule uses the privatized `t` (shape [4]).
    expect(sameArrays(await run(p, { a, n: 5 }), { out: want })).toBe(true);
  });

  // Pending: the scheduler maps one iname per local axis, so the stage inames (red_k_s0, …, all
  // on l.0 beside k) are not bound yet in the run; enable when it maps several inames to an axis.
  it("a local tree reduction computes the sum and the max", async () => {
    for (const size of [16, 12, 5]) {
      const k = tag(makeKernel(`{[i,k]: 0<=i<n and 0<=k<${size}}`, "out[i] = sum(k, a[i,k]) + max(k, a[i,k]) {id=s}",
        [`a: int32[n,${size}]`, "out: int32[n]", "n: int32"]), { k: "l.0" });
      const args = { a: Int32Array.from({ length: 3 * size }, (_, x) => (x * 7919) % 23 - 11), n: 3 };
      expect(sameArrays(await run(preprocess(k), args), await run(k, args))).toBe(true);
    }
  });
});
