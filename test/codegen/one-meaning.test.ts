/**
 * Code generation keeps one meaning per concept (issue 14): the affine form of an index is
 * `exprToAff`'s, address spaces are preprocessing's, reductions are realized by preprocessing.
 * Each behaviour is checked against the interpreter on the js and native backends.
 */
import { describe, expect, it } from "vitest";
import { lowerSchedule } from "../../codegen/lower.js";
import { CodegenError } from "../../src/errors.js";
import { c, exprToAff, v, withKernel, type Expr } from "../../src/ir/index.js";
import { makeKernel, parseExpr } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { schedule, type Schedule } from "../../src/schedule/index.js";
import { thrownBy } from "../thrown.js";

const OPENCL = { hwAxes: true, atomics: "native" } as const;
const C = { hwAxes: false, atomics: "plain" } as const;

describe("affine indices: exprToAff, whose casts keep the value only to an index dtype", () => {
  it("a cast to int32/int64 is transparent, one to a narrow or unsigned dtype is not affine", () => {
    const i1: Expr = { kind: "arith", op: "+", left: v("i"), right: c(1) };
    expect(exprToAff({ kind: "cast", dtype: "int32", value: i1 })).toEqual({ terms: { i: 1 }, constant: 1 });
    expect(exprToAff({ kind: "cast", dtype: "int64", value: i1 })).toEqual({ terms: { i: 1 }, constant: 1 });
    for (const dtype of ["uint8", "int8", "int16", "uint32", "float32"] as const) expect(exprToAff({ kind: "cast", dtype, value: i1 })).toBeUndefined();
  });

  // Native backends refuse this kernel before running it: their bounds proof (src/run/bounds.ts) does not bound a cast's value by its dtype.
  it.each(["interp", "js"] as const)("a subscript through cast(uint8, …) wraps as the interpreter does (%s)", async (backend) => {
    const k = makeKernel("{[i]: 0<=i<10}", "out[i] = a[cast(uint8, i + 250) + z]", ["a: int32[256]", "out: int32[10]", "z: int32"], { name: "wrapidx" });
    const a = Int32Array.from({ length: 256 }, (_, x) => x * 3);
    const r = await run(k, { a, z: 0 }, { backend });
    expect([...(r.out as Int32Array)]).toEqual(Array.from({ length: 10 }, (_, i) => ((i + 250) % 256) * 3));
  });
});

describe("address spaces: preprocessing's, never decided by code generation", () => {
  const k = makeKernel("{[i]: 0<=i<8}", ["<> t = 2*a[i] {id=t}", "out[i] = t {dep=t}"], ["a, out: float32[8]"], { name: "spaces" });

  it("a preprocessed kernel's temporary keeps the space preprocessing gave it", () => {
    const s = schedule(k);
    expect(s.kernel.temporaries.find((t) => t.name === "t")?.addressSpace).toBe("private");
    const [lk] = lowerSchedule(s, C);
    expect(lk!.decls).toEqual([expect.objectContaining({ k: "decl", name: "t", space: "private" })]);
  });

  it("an \"auto\" temporary reaching code generation is a CodegenError naming it", () => {
    const s = schedule(k);
    const unresolved: Schedule = { ...s, kernel: withKernel(s.kernel, { temporaries: s.kernel.temporaries.map((t) => ({ ...t, addressSpace: "auto" as const })) }) };
    for (const opts of [C, OPENCL]) {
      const e = thrownBy(CodegenError, () => lowerSchedule(unresolved, opts));
      expect(e.message).toMatch(/temporary "t" reached code generation with address space "auto"/);
    }
  });
});

describe("reductions: realized by preprocessing, refused by code generation", () => {
  it("a reduce expression reaching code generation is a CodegenError, not a second accumulator", () => {
    const k = makeKernel("{[i,j]: 0<=i<4 and 0<=j<5}", "out[i] = a[i, 0] {id=s}", ["a: int64[4,5]", "out: int64[4]"], { name: "red" });
    const s = schedule(k);
    const sum: Expr = { kind: "reduce", op: "max", inames: ["j"], body: parseExpr("a[i, j]") };
    const inline: Schedule = { ...s, kernel: withKernel(s.kernel, { instructions: s.kernel.instructions.map((x) => (x.kind === "assign" ? { ...x, rhs: sum } : x)) }) };
    for (const opts of [C, OPENCL]) {
      const e = thrownBy(CodegenError, () => lowerSchedule(inline, opts));
      expect(e.message).toMatch(/instruction "s": the reduction .* reached code generation; reductions must be realized by preprocessing first/);
    }
  });

  it.each(["interp", "js", "c"] as const)("max over int64 near the type's limits is exact (%s)", async (backend) => {
    const k = makeKernel("{[i,j]: 0<=i<2 and 0<=j<3}", "out[i] = max(j, a[i, j])", ["a: int64[2,3]", "out: int64[2]"], { name: "maxlimits" });
    const lo = -(2n ** 63n);
    const a = BigInt64Array.from([lo, lo, lo, lo + 1n, lo, lo]);
    const r = await run(k, { a }, { backend });
    expect([...(r.out as BigInt64Array)]).toEqual([lo, lo + 1n]);
  });
});
