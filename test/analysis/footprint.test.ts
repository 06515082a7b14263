/** accessFootprint: the footprint set equals the accessed indices (brute force), and its bounding box. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accessFootprint, exprToAff, FootprintError } from "../../src/analysis/index.js";
import { affToExpr } from "../../src/ir/index.js";
import { exprToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { affEval, points, printSet } from "../../src/poly/index.js";
import { splitIname } from "../../transforms/index.js";

const matmul = (): Kernel => {
  let k = makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b, c: float32[n,n]", "n: int32"], { name: "matmul" });
  for (const x of ["i", "j", "k"]) k = splitIname(k, x, 16);
  return k;
};
const stencil = (): Kernel => splitIname(splitIname(makeKernel("{[i,j]: 0<=i,j<n}",
  "z[i+1,j+1] = -4*a[i+1,j+1] + a[i+1,j] + a[i+1,j+2] + a[i,j+1] + a[i+2,j+1]", ["a, z: float32[n+2,n+2]", "n: int32"], { name: "stencil5" }), "i", 16), "j", 16);

const boxText = (k: Kernel, array: string, sweep: string[]) =>
  accessFootprint(k, array, { sweepInames: sweep }).box.map((b) => `${exprToString(b.base)}:${typeof b.extent === "number" ? b.extent : exprToString(b.extent)}`);

describe("accessFootprint", () => {
  it("tiled matmul: a over (i_inner, k_inner) is a 16x16 box based at (16*i_outer, 16*k_outer)", () => {
    const f = accessFootprint(matmul(), "a", { sweepInames: ["i_inner", "k_inner"] });
    expect(f.box.map((b) => [exprToString(b.base), b.extent])).toEqual([["16*i_outer", 16], ["16*k_outer", 16]]);
    expect(f.set).toHaveLength(1);
    expect(f.isBox).toBe(true);
    expect(f.dependsOn).toEqual(["i_outer", "k_outer"]);
    expect(boxText(matmul(), "b", ["k_inner", "j_inner"])).toEqual(["16*k_outer:16", "16*j_outer:16"]);
  });

  it("a box is a box under divisibility assumptions (an existential over parameters only), not with a stride (one over an index)", () => {
    let k = makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b, c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" });
    for (const x of ["i", "j", "k"]) k = splitIname(k, x, 16);
    const f = accessFootprint(k, "a", { sweepInames: ["i_inner", "k_inner"] });
    expect(f.set[0]!.exists.length).toBeGreaterThan(0);
    expect(f.isBox).toBe(true);
    const strided = makeKernel("{[i]: 0<=i<n}", "out[i] = a[2*i]", ["a: float32[2*n]", "out: float32[n]", "n: int32"], { name: "strided" });
    const g = accessFootprint(strided, "a", { sweepInames: ["i"] });
    expect(g.set[0]!.exists.length).toBeGreaterThan(0);
    expect(g.isBox).toBe(false);
  });

  it("dependsOnly (fixed inames tied to no index projected out too) depends on what the full footprint does", () => {
    const kernels: [Kernel, string, string[]][] = [
      [matmul(), "a", ["i_inner", "k_inner"]], [matmul(), "b", ["k_inner", "j_inner"]], [matmul(), "a", ["k_inner"]],
      [matmul(), "b", []], [stencil(), "a", ["i_inner"]], [stencil(), "a", ["i_inner", "j_inner"]],
    ];
    for (const [k, array, sweep] of kernels) {
      const lean = accessFootprint(k, array, { sweepInames: sweep, dependsOnly: true });
      expect(lean.dependsOn).toEqual(accessFootprint(k, array, { sweepInames: sweep }).dependsOn);
    }
  });

  it("no sweep: a single element per fixed iname values", () => {
    expect(boxText(matmul(), "a", [])).toEqual(["i_inner + 16*i_outer:1", "k_inner + 16*k_outer:1"]);
  });

  it("5-point stencil: five pieces, an 18x18 bounding box that is not the footprint", () => {
    const f = accessFootprint(stencil(), "a", { sweepInames: ["i_inner", "j_inner"] });
    expect(f.set).toHaveLength(5);
    expect(f.box.map((b) => [exprToString(b.base), b.extent])).toEqual([["16*i_outer", 18], ["16*j_outer", 18]]);
    expect(f.isBox).toBe(false);
    expect(printSet(f.boxSet)).toContain("a_index0 <= n + 1");
  });

  it("a non-constant extent is reported as an expression", () => {
    const k = makeKernel("{[i,j]: 0<=j<=i<n}", "out[i] = sum(j, a[j])", ["a, out: float32[n]", "n: int32"]);
    const f = accessFootprint(k, "a", { sweepInames: ["j"] });
    expect(exprToString(f.box[0]!.base)).toBe("0");
    expect(typeof f.box[0]!.extent).not.toBe("number");
    expect(exprToString(f.box[0]!.extent as never)).toBe("i + 1");
  });

  it("substitution-rule calls are accesses too", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["f(x) := 2*a[x]", "out[i] = f(i) + f(i+2)"], ["a: float32[n+2]", "out: float32[n]", "n: int32"]);
    expect(boxText(k, "f", ["i"])).toEqual(["0:n + 2"]);
  });

  it("non-affine subscripts and linear subscripts are FootprintErrors", () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i*i]", ["a, out: float32[n]", "n: int32"]);
    expect(() => accessFootprint(k, "a", { sweepInames: ["i"] })).toThrow(FootprintError);
    expect(() => accessFootprint(k, "a", { sweepInames: ["i"] })).toThrow(/subscript 0 of a .* not affine/);
    const l = makeKernel("{[i]: 0<=i<n}", "out[i] = a[[i]]", ["a, out: float32[n]", "n: int32"]);
    expect(() => accessFootprint(l, "a", { sweepInames: ["i"] })).toThrow(/linear subscript/);
    expect(() => accessFootprint(k, "out", { sweepInames: ["i"] })).toThrow(/no instruction .*reads out/);
  });

  it("exprToAff / affToExpr round-trip affine expressions and refuse others", () => {
    const k = matmul();
    const insn = k.instructions[0]!;
    if (insn.kind !== "assign" || insn.lhs.kind !== "subscript") throw new Error("unexpected");
    const a = exprToAff(insn.lhs.indices[0]!)!;
    expect(a).toEqual({ terms: { i_inner: 1, i_outer: 16 }, constant: 0 });
    expect(exprToString(affToExpr({ terms: { x: -2, y: 1 }, constant: -3 }))).toBe("-2*x + y - 3");
    expect(exprToAff({ kind: "arith", op: "*", left: { kind: "var", name: "x" }, right: { kind: "var", name: "y" } })).toBeUndefined();
  });
});

// ---- brute force -------------------------------------------------------------------------------

interface Case {
  readonly tri: boolean;
  readonly coef: readonly (readonly [number, number, number])[];
  readonly sweep: readonly boolean[];
  readonly n: number;
  readonly m: number;
}

const termText = (c: number, x: string) => (c === 0 ? "" : `${c >= 0 ? "+" : "-"}${Math.abs(c)}*${x}`);
const idx = ([ci, cj, c0]: readonly [number, number, number]) => `${c0}${termText(ci, "i")}${termText(cj, "j")}`;

describe("accessFootprint: equals the accessed indices (brute force)", () => {
  it("random affine 2-D accesses over rectangular and triangular domains", () => {
    const coef = fc.tuple(fc.integer({ min: -2, max: 2 }), fc.integer({ min: -2, max: 2 }), fc.integer({ min: 0, max: 3 }));
    fc.assert(fc.property(
      fc.record({ tri: fc.boolean(), coef: fc.array(coef, { minLength: 1, maxLength: 2 }), sweep: fc.tuple(fc.boolean(), fc.boolean()), n: fc.integer({ min: 1, max: 5 }), m: fc.integer({ min: 1, max: 4 }) }),
      (cs: Case) => {
        const dom = cs.tri ? "{[i,j]: 0<=i<n and 0<=j<=i and j<m}" : "{[i,j]: 0<=i<n and 0<=j<m}";
        const k = makeKernel(dom, `out[i,j] = a[${cs.coef.map(idx).join(", ")}] {id=s}`, [`a: float32[${cs.coef.map(() => "100").join(",")}]`, "out: float32[n,m]", "n, m: int32"]);
        const sweep = ["i", "j"].filter((_, r) => cs.sweep[r]);
        const fixed = ["i", "j"].filter((x) => !sweep.includes(x));
        const f = accessFootprint(k, "a", { sweepInames: sweep });
        // every value of the fixed inames (and one outside the domain)
        const fixedValues: Record<string, number>[] = [{}];
        for (const x of fixed) {
          const next: Record<string, number>[] = [];
          for (const fv of fixedValues) for (let val = -1; val <= Math.max(cs.n, cs.m); val++) next.push({ ...fv, [x]: val });
          fixedValues.splice(0, fixedValues.length, ...next);
        }
        for (const fv of fixedValues) {
          const expected = new Set<string>();
          for (let i = 0; i < cs.n; i++) {
            for (let j = 0; j < cs.m; j++) {
              if (cs.tri && j > i) continue;
              if (fv.i !== undefined && fv.i !== i) continue;
              if (fv.j !== undefined && fv.j !== j) continue;
              expected.add(cs.coef.map(([ci, cj, c0]) => c0 + ci * i + cj * j).join(","));
            }
          }
          const params = { n: cs.n, m: cs.m, ...fv };
          const got = new Set<string>();
          for (const p of f.set) {
            const vals = Object.fromEntries(p.params.map((q) => [q, params[q as keyof typeof params] ?? 0]));
            for (const pt of points(p, vals)) got.add(pt.join(","));
          }
          expect([...got].sort()).toEqual([...expected].sort());
          for (const pt of expected) {
            pt.split(",").map(Number).forEach((x, r) => {
              const b = f.box[r]!;
              const base = affEval(b.baseAff, params);
              const ext = affEval(b.extentAff, params);
              expect(x).toBeGreaterThanOrEqual(base);
              expect(x).toBeLessThan(base + ext);
            });
          }
        }
      }), { numRuns: 150 });
  });
});
