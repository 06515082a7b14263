/** addPrefetch and precompute: loopy's examples (OpenCL as loopy generates it), errors, equivalence. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { TransformError } from "../../src/errors.js";
import { exprToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { printSet } from "../../src/poly/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { accessFootprint } from "../../src/analysis/index.js";
import { prioritizeLoops, splitIname } from "../../transforms/index.js";
import { addPrefetch, precompute } from "../../transforms/index.js";

const text = (k: Kernel) => k.instructions.map((insn) => (insn.kind === "assign" ? `${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}` : insn.kind));
const cl = (k: Kernel) => generateCode(k, "opencl").deviceCode;

const matmulRef = (assume = true) => makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b, c: float32[n,n]", "n: int32"],
  { name: "matmul", ...(assume ? { assumptions: "n mod 16 = 0 and n >= 16" } : {}) });
const tiled = (ref: Kernel, t = 16, tk = t) => {
  let k = splitIname(ref, "i", t, { outerTag: "g.0", innerTag: "l.1" });
  k = splitIname(k, "j", t, { outerTag: "g.1", innerTag: "l.0" });
  return splitIname(k, "k", tk);
};
const matmulPrefetched = (ref = matmulRef(), t = 16, tk = t, tags: { a?: never; b?: never } | Record<string, unknown> = {}) => {
  let k = tiled(ref, t, tk);
  k = addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"], ...(tags.a as object) });
  return addPrefetch(k, "b", { sweepInames: ["k_inner", "j_inner"], ...(tags.b as object) });
};
const stencilRef = () => makeKernel("{[i,j]: 0<=i,j<n}", "z[i+1,j+1] = -4*a[i+1,j+1] + a[i+1,j] + a[i+1,j+2] + a[i,j+1] + a[i+2,j+1]",
  ["a, z: float32[n+2,n+2]", "n: int32"], { name: "stencil5" });
const stencilPrefetched = (t = 16) => {
  let k = splitIname(stencilRef(), "i", t, { outerTag: "g.1", innerTag: "l.1" });
  k = splitIname(k, "j", t, { outerTag: "g.0", innerTag: "l.0" });
  return addPrefetch(k, "a", { sweepInames: ["i_inner", "j_inner"], fetchBoundingBox: true });
};
const transposeRef = () => makeKernel("{[i,j]: 0<=i,j<n}", "out[i,j] = a[j,i]", ["a, out: float32[n,n]", "n: int32"], { name: "transpose" });

describe("addPrefetch: tiled matmul (loopy's matmul_tiled_prefetch)", () => {
  it("adds a_fetch, a_dim_0/a_dim_1 on l.1/l.0, the fetch a_fetch_rule and rewrites the reads", () => {
    const k = matmulPrefetched();
    expect(text(k)).toEqual([
      "a_fetch[a_dim_0, a_dim_1] = a[a_dim_0 + 16*i_outer, a_dim_1 + 16*k_outer]",
      "b_fetch[b_dim_0, b_dim_1] = b[b_dim_0 + 16*k_outer, b_dim_1 + 16*j_outer]",
      "c[i_inner + i_outer*16, j_inner + j_outer*16] = sum((k_outer, k_inner), a_fetch[i_inner, k_inner]*b_fetch[k_inner, j_inner])",
    ]);
    expect(k.instructions.map((i) => i.id)).toEqual(["a_fetch_rule", "b_fetch_rule", "insn"]);
    expect(k.instructions[0]!.withinInames).toEqual(["a_dim_0", "a_dim_1", "i_outer", "k_outer"]);
    expect(k.instructions[2]!.dependsOn).toEqual(["a_fetch_rule", "b_fetch_rule"]);
    expect(k.inameTags).toMatchObject({ a_dim_0: { kind: "l", axis: 1 }, a_dim_1: { kind: "l", axis: 0 }, b_dim_0: { kind: "l", axis: 1 }, b_dim_1: { kind: "l", axis: 0 } });
    expect(k.temporaries.map((t) => [t.name, t.addressSpace, t.dtype, t.shape.map(exprToString).join("x")])).toEqual([
      ["a_fetch", "local", "float32", "16x16"], ["b_fetch", "local", "float32", "16x16"]]);
    expect(printSet(k.domains[1]!)).toBe("[n, i_outer, k_outer] -> { [a_dim_0, a_dim_1] : 0 <= a_dim_0 <= 15 and 0 <= a_dim_1 <= 15 }");
  });

  it("generates loopy's OpenCL: __local a_fetch[256], the fetches, two barriers in the k_outer loop", () => {
    const code = cl(matmulPrefetched());
    expect(code).toContain("__kernel void __attribute__ ((reqd_work_group_size(16, 16, 1))) matmul(");
    expect(code).toContain("__local float a_fetch[256];");
    expect(code).toContain("__local float b_fetch[256];");
    expect(code).toContain("for (int k_outer = 0; k_outer <= (n - 1) / 16; ++k_outer)");
    expect(code).toContain("a_fetch[16 * lid(1) + lid(0)] = a[n * (16 * gid(0) + lid(1)) + 16 * k_outer + lid(0)];");
    expect(code).toContain("b_fetch[16 * lid(1) + lid(0)] = b[n * (16 * k_outer + lid(1)) + 16 * gid(1) + lid(0)];");
    expect(code).toContain("barrier(CLK_LOCAL_MEM_FENCE) /* for a_fetch (insn_k_outer_k_inner_update depends on a_fetch_rule) */;");
    expect(code).toContain("barrier(CLK_LOCAL_MEM_FENCE) /* for a_fetch (a_fetch_rule rev-depends on insn_k_outer_k_inner_update) */;");
    expect(code).toContain("acc_k_outer_k_inner = acc_k_outer_k_inner + a_fetch[16 * lid(1) + k_inner] * b_fetch[16 * k_inner + lid(0)];");
    expect(code).not.toContain("if (");
  });

  it("explicit tags give the same kernel as l.auto; null leaves the fetch loops sequential", () => {
    const explicit = matmulPrefetched(matmulRef(), 16, 16, { a: { defaultTag: { a_dim_0: "l.1", a_dim_1: "l.0" } }, b: { defaultTag: ["l.1", "l.0"] } });
    expect(cl(explicit)).toBe(cl(matmulPrefetched()));
    const seq = addPrefetch(tiled(matmulRef()), "a", { sweepInames: ["i_inner", "k_inner"], defaultTag: null });
    expect(seq.inameTags.a_dim_0).toBeUndefined();
    expect(cl(seq)).toContain("for (int a_dim_0 = 0; a_dim_0 <= 15; ++a_dim_0)");
  });

  it("leaves its input unchanged and honours names and address space", () => {
    const k0 = tiled(matmulRef());
    const before = JSON.stringify(k0);
    const k = addPrefetch(k0, "a", { sweepInames: "i_inner,k_inner", temporaryName: "as", dimArgNames: ["p", "q"], temporaryAddressSpace: "private", defaultTag: null });
    expect(JSON.stringify(k0)).toBe(before);
    expect(text(k)[0]).toBe("as[p, q] = a[16*i_outer + p, 16*k_outer + q]");
    expect(k.temporaries[0]!.addressSpace).toBe("private");
  });

  it("is equivalent to the untiled kernel (interp, js)", async () => {
    for (const backend of ["interp", "js"] as const) {
      for (const n of [16, 48]) expect((await autoTestVsRef(matmulRef(), matmulPrefetched(), { params: { n }, backend })).ok).toBe(true);
    }
  });

  it("fetches into an existing temporary when it fits (after its readers), else says why", async () => {
    const ref = makeKernel("{[i]: 0<=i<n}", "out1[i] = 2*a[i] {id=s1}\nout2[i] = 3*b[i] {id=s2, dep=s1}",
      ["a, b, out1, out2: float32[n]", "n: int32"], { name: "two", assumptions: "n mod 16 = 0 and n >= 16" });
    const k0 = splitIname(ref, "i", 16, { outerTag: "g.0", innerTag: "l.0" });
    const k1 = addPrefetch(k0, "a", { sweepInames: ["i_inner"], temporaryName: "buf" });
    const k2 = addPrefetch(k1, "b", { sweepInames: ["i_inner"], temporaryName: "buf" });
    expect(k2.temporaries.map((t) => t.name)).toEqual(["buf"]);
    expect(k2.instructions.find((i) => i.id === "b_fetch_rule")!.dependsOn).toContain("s1");
    for (const backend of ["interp", "js"] as const) {
      for (const n of [16, 48]) expect((await autoTestVsRef(ref, k2, { params: { n }, backend })).ok).toBe(true);
    }
    // One element per work-item does not fill a 16-element buffer's shape.
    expect(() => addPrefetch(k1, "b", { sweepInames: [], temporaryName: "buf" }))
      .toThrow(/addPrefetch: cannot fetch into the existing temporary "buf" of shape \(16\).*needs 0 axes/);
    // The readers of the new values may not be readers of the old ones.
    const both = splitIname(makeKernel("{[i]: 0<=i<n}", "out1[i] = a[i] + b[i] {id=s}", ["a, b, out1: float32[n]", "n: int32"], { name: "both" }),
      "i", 16, { outerTag: "g.0", innerTag: "l.0" });
    expect(() => addPrefetch(addPrefetch(both, "a", { sweepInames: ["i_inner"], temporaryName: "buf" }), "b", { sweepInames: ["i_inner"], temporaryName: "buf" }))
      .toThrow(/cannot fetch into the existing temporary "buf".*instruction\(s\) "s" already use it/);
  });
});

describe("addPrefetch: 5-point stencil with fetchBoundingBox (loopy's stencil5_2d_prefetch)", () => {
  it("fetches the 18x18 bounding box, its inames split to the 16x16 work-group", () => {
    const k = stencilPrefetched();
    expect(k.temporaries[0]!.shape.map(exprToString)).toEqual(["18", "18"]);
    expect(k.inameTags).toMatchObject({ a_dim_0_inner: { kind: "l", axis: 1 }, a_dim_1_inner: { kind: "l", axis: 0 } });
    const code = cl(k);
    expect(code).toContain("__local float a_fetch[324];");
    expect(code).toMatch(/for \(int a_dim_0_outer = 0; a_dim_0_outer <= min\(loopy_floor_div_int32\(n - 16 \* gid\(1\) - lid\(1\) \+ 1, 16\), \(-lid\(1\) \+ 17\) \/ 16\); \+\+a_dim_0_outer\)/);
    expect(code).toContain("a_fetch[18 * (16 * a_dim_0_outer + lid(1)) + 16 * a_dim_1_outer + lid(0)] = a[(n + 2) * (16 * gid(1) + 16 * a_dim_0_outer + lid(1)) + 16 * gid(0) + 16 * a_dim_1_outer + lid(0)];");
    expect(code).toContain("barrier(CLK_LOCAL_MEM_FENCE) /* for a_fetch (insn depends on a_fetch_rule) */;");
    expect(code).toContain("-4.0f * a_fetch[18 * (lid(1) + 1) + lid(0) + 1] + a_fetch[18 * (lid(1) + 1) + lid(0)]");
  });

  it("without fetchBoundingBox a footprint of several pieces (the five reads) is still fetched as its box; one convex piece exactly", () => {
    let k = splitIname(stencilRef(), "i", 16, { outerTag: "g.1", innerTag: "l.1" });
    k = splitIname(k, "j", 16, { outerTag: "g.0", innerTag: "l.0" });
    const union = addPrefetch(k, "a", { sweepInames: ["i_inner", "j_inner"] });
    expect(union.temporaries[0]!.shape.map(exprToString)).toEqual(["18", "18"]);
    expect(cl(union)).toBe(cl(stencilPrefetched()));
    // A triangle is one piece: fetched exactly by default, its box with fetchBoundingBox; the temporary is the box either way.
    const tri = makeKernel("{[i,j]: 0<=j<=i<8}", "out[i,j] = a[i,j]", ["a, out: float32[8,8]"], { name: "tri" });
    const fetched = (fetchBoundingBox: boolean) => {
      const t = addPrefetch(tri, "a", { sweepInames: ["i", "j"], temporaryAddressSpace: "private", fetchBoundingBox });
      return [printSet(t.domains[t.domains.length - 1]!), t.temporaries[0]!.shape.map(exprToString).join("x")];
    };
    expect(fetched(false)).toEqual(["{ [a_dim_0, a_dim_1] : a_dim_0 <= 7 and 0 <= a_dim_1 <= a_dim_0 }", "8x8"]);
    expect(fetched(true)).toEqual(["{ [a_dim_0, a_dim_1] : 0 <= a_dim_0 <= 7 and 0 <= a_dim_1 <= 7 }", "8x8"]);
  });

  it("is equivalent to the reference for n not a multiple of the tile (interp, js)", async () => {
    for (const backend of ["interp", "js"] as const) {
      for (const n of [1, 16, 21, 40]) expect((await autoTestVsRef(stencilRef(), stencilPrefetched(), { params: { n }, backend })).ok).toBe(true);
    }
  });
});

describe("addPrefetch: transpose (2-D prefetch of a transposed read)", () => {
  it("stores a tile of a and reads it transposed", async () => {
    let k = splitIname(transposeRef(), "i", 16, { outerTag: "g.0", innerTag: "l.1" });
    k = splitIname(k, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
    k = addPrefetch(k, "a", { sweepInames: ["i_inner", "j_inner"] });
    expect(text(k)).toEqual([
      "a_fetch[a_dim_0, a_dim_1] = a[a_dim_0 + 16*j_outer, a_dim_1 + 16*i_outer]",
      "out[i_inner + i_outer*16, j_inner + j_outer*16] = a_fetch[j_inner, i_inner]",
    ]);
    const code = cl(k);
    expect(code).toContain("a_fetch[16 * lid(1) + lid(0)] = a[n * (16 * gid(1) + lid(1)) + 16 * gid(0) + lid(0)];");
    expect(code).toContain("= a_fetch[16 * lid(0) + lid(1)];");
    for (const backend of ["interp", "js"] as const) {
      for (const n of [1, 16, 21]) expect((await autoTestVsRef(transposeRef(), k, { params: { n }, backend })).ok).toBe(true);
    }
  });
});

describe("addPrefetch: errors", () => {
  it("a non-affine subscript", () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i*i]", ["a, out: float32[n]", "n: int32"]);
    expect(() => addPrefetch(k, "a", { sweepInames: ["i"] })).toThrow(TransformError);
    expect(() => addPrefetch(k, "a", { sweepInames: ["i"] })).toThrow(/addPrefetch: the subscript 0 of a .* not affine/);
  });

  it("a non-constant extent names the axis and why", () => {
    const k = makeKernel("{[i,j]: 0<=j<=i<n}", "out[i] = sum(j, a[j])", ["a, out: float32[n]", "n: int32"]);
    expect(() => addPrefetch(k, "a", { sweepInames: ["j"] })).toThrow(/axis 0 of the footprint of a has extent i \+ 1, which is not a constant/);
  });

  it("a write race across an l iname the footprint depends on", () => {
    const k = tiled(matmulRef());
    expect(() => addPrefetch(k, "a", { sweepInames: ["k_inner"] })).toThrow(/cannot be made local because a write race across the iname\(s\) i_inner would emerge/);
    // private storage has no race
    expect(() => addPrefetch(k, "a", { sweepInames: ["k_inner"], temporaryAddressSpace: "private" })).not.toThrow();
  });

  it("a written array, an unknown array, a sweep iname the readers do not use", () => {
    const w = makeKernel("{[i]: 0<=i<n}", "a[i] = a[i] + 1", ["a: float32[n]", "n: int32"]);
    expect(() => addPrefetch(w, "a", { sweepInames: ["i"] })).toThrow(/"insn" read and write a; a fetched copy would miss their own updates/);
    const k = tiled(matmulRef());
    expect(() => addPrefetch(k, "x", {})).toThrow(/no array "x"/);
    expect(() => addPrefetch(k, "a", { sweepInames: ["j_nope"] })).toThrow(/not an iname/);
  });
});

describe("precompute", () => {
  const ruleRef = () => makeKernel("{[i]: 0<=i<n}", ["f(x) := 2*a[x] + 1", "out[i] = f(i) + f(i+1)"], ["a: float32[n+1]", "out: float32[n]", "n: int32"], { name: "pre" });

  it("stores a rule's values over the swept footprint and replaces its uses", async () => {
    let k = splitIname(ruleRef(), "i", 8, { outerTag: "g.0", innerTag: "l.0" });
    k = precompute(k, "f", ["i_inner"], { defaultTag: "l.auto" });
    expect(text(k)).toEqual([
      "f_0[f_dim_0_inner + f_dim_0_outer*8] = 2*a[f_dim_0_inner + f_dim_0_outer*8 + 8*i_outer] + 1",
      "out[i_inner + i_outer*8] = f_0[i_inner] + f_0[i_inner + 1]",
    ]);
    expect(k.instructions[0]!.id).toBe("compute_f");
    expect(cl(k)).toContain("__local float f_0[9];");
    for (const backend of ["interp", "js"] as const) {
      for (const n of [1, 8, 13]) expect((await autoTestVsRef(ruleRef(), k, { params: { n }, backend })).ok).toBe(true);
    }
  });

  it("sequential and auto (private) by default; a parametric extent makes the temporary global", async () => {
    const k = precompute(splitIname(ruleRef(), "i", 4), "f", ["i_inner"]);
    expect(k.temporaries[0]!.addressSpace).toBe("auto");
    expect(k.temporaries[0]!.shape.map(exprToString)).toEqual(["5"]);
    expect(k.inameTags.f_dim_0).toBeUndefined();
    for (const n of [1, 4, 7]) expect((await autoTestVsRef(ruleRef(), k, { params: { n } })).ok).toBe(true);
    expect(precompute(ruleRef(), "f", ["i"]).temporaries.map((t) => `${t.addressSpace} ${t.shape.map(exprToString)}`)).toEqual(["global n + 1"]);
    expect(() => precompute(ruleRef(), "f", ["i"], { temporaryAddressSpace: "private" })).toThrow(/axis 0 of the footprint of f has extent n \+ 1, which is not a constant/);
  });

  it("errors: unknown rule; a rule used in another rule is reached through it (a private parametric sweep is then refused)", () => {
    expect(() => precompute(ruleRef(), "g", [])).toThrow(/no substitution rule "g"/);
    const nested = makeKernel("{[i]: 0<=i<n}", ["f(x) := 2*a[x]", "g(x) := f(x) + 1", "out[i] = g(i)"], ["a, out: float32[n]", "n: int32"]);
    expect(() => precompute(nested, "f", ["i"], { temporaryAddressSpace: "private" })).toThrow(/footprint of f has extent n, which is not a constant/);
  });
});

describe("addPrefetch: equivalence over tile sizes and n (fast-check)", () => {
  it("tiled matmul with both prefetches equals the reference (interp, js)", async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 13 }), fc.constantFrom("interp" as const, "js" as const),
      async (t, tk, n, backend) => {
        const k = matmulPrefetched(matmulRef(false), t, tk);
        const r = await autoTestVsRef(matmulRef(false), k, { params: { n }, backend });
        expect(r.mismatches).toEqual([]);
        expect(r.ok).toBe(true);
      }), { numRuns: 100 });
  }, 120_000);

  it("stencil with fetchBoundingBox equals the reference (interp, js)", async () => {
    await fc.assert(fc.asyncProperty(
      fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 14 }), fc.constantFrom("interp" as const, "js" as const),
      async (t, n, backend) => {
        const r = await autoTestVsRef(stencilRef(), stencilPrefetched(t), { params: { n }, backend });
        expect(r.ok).toBe(true);
      }), { numRuns: 100 });
  }, 120_000);
});

describe("addPrefetch: fetches placed and guarded correctly (bugs found by the pipeline law)", () => {
  const matmulP = () => makeKernel("{[i,j,k]: 0<=i<n and 0<=j<m and 0<=k<p}", "c[i,j] = sum(k, a[i,k]*b[k,j])",
    ["a: float64[n,p]", "b: float64[p,m]", "c: float64[n,m]", "n, m, p: int32"], { name: "matmul" });

  it("a private fetch depending on an unswept reduction iname runs inside that reduction", async () => {
    const k = addPrefetch(matmulP(), "a", { temporaryAddressSpace: "private" });
    expect(k.instructions[0]!.withinInames).toEqual(["i", "j", "k"]);
    for (const backend of ["interp", "js"] as const) {
      for (const [n, m, p] of [[3, 4, 5], [1, 1, 1], [0, 2, 2]]) {
        const r = await autoTestVsRef(matmulP(), k, { params: { n, m, p }, backend });
        expect(r.mismatches).toEqual([]);
      }
    }
  });

  it("a fetch depending on a loop iname runs within the reader's other loops (any nesting)", async () => {
    const bc = makeKernel("{[i,j]: 0<=i,j<n}", "out[i,j] = a[j] + i", ["a: float64[n]", "out: float64[n,n]", "n: int32"], { name: "bc" });
    const k = addPrefetch(prioritizeLoops(bc, "i,j"), "a", { temporaryAddressSpace: "private" });
    expect(k.instructions[0]!.withinInames).toEqual(["i", "j"]);
    for (const backend of ["interp", "js"] as const) expect((await autoTestVsRef(bc, k, { params: { n: 5 }, backend })).mismatches).toEqual([]);
  });

  it("private fetches are sequential by default; hardware tags on them are refused", async () => {
    const ref = matmulP();
    const k = addPrefetch(splitIname(ref, "k", 4), "a", { sweepInames: ["k_inner"], temporaryAddressSpace: "private" });
    expect(Object.keys(k.inameTags)).toEqual([]);
    for (const backend of ["interp", "js"] as const) {
      expect((await autoTestVsRef(ref, k, { params: { n: 3, m: 2, p: 7 }, backend })).mismatches).toEqual([]);
    }
    expect(() => addPrefetch(splitIname(ref, "k", 4), "a", { sweepInames: ["k_inner"], temporaryAddressSpace: "private", defaultTag: "l.auto" }))
      .toThrow(/is private.*hardware tag\(s\) l\.auto would spread it across work-items/);
    expect(() => addPrefetch(splitIname(ref, "k", 4), "a", { sweepInames: ["k_inner"], temporaryAddressSpace: "private", defaultTag: ["l.0"] }))
      .toThrow(TransformError);
  });

  const guarded = () => makeKernel("{[i]: 0<=i<n}", "out[i] = a[i-1] + a[i+1] {if=i>=1 and i<n-1}", ["a, out: float64[n]", "n: int32"], { name: "guarded" });

  it("the footprint honours the readers' affine predicates", () => {
    const fp = accessFootprint(guarded(), "a", { sweepInames: ["i"] });
    expect(fp.box.map((b) => [exprToString(b.base), typeof b.extent === "number" ? b.extent : exprToString(b.extent)])).toEqual([["0", "n"]]);
  });

  it("a guarded stencil's fetch never reads outside the array (private and local)", async () => {
    for (const [space, tags] of [["private", {}], ["local", { outerTag: "g.0", innerTag: "l.0" }]] as const) {
      for (const t of [1, 3, 4]) {
        const k = addPrefetch(splitIname(guarded(), "i", t, tags), "a", { sweepInames: ["i_inner"], temporaryAddressSpace: space });
        for (const backend of ["interp", "js"] as const) {
          for (const n of [0, 1, 2, 5, 8, 9]) {
            const r = await autoTestVsRef(guarded(), k, { params: { n }, backend });
            expect(r.mismatches, `${space} t=${t} n=${n} ${backend}`).toEqual([]);
          }
        }
      }
    }
  });
});

describe("addPrefetch: regressions from the pipeline law", () => {
  it("a fetch whose bounds tie to outer loops keeps its own bounds (nested splits)", async () => {
    const ref = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i] = sum(j, a[i,j]*x[j])", ["a: float64[n,m]", "x: float64[m]", "out: float64[n]", "n, m: int32"]);
    let k = splitIname(splitIname(ref, "j", 5), "j_inner", 5);
    k = splitIname(addPrefetch(k, "a", { sweepInames: ["j_inner_inner"], temporaryAddressSpace: "private" }), "i", 1);
    for (const [n, m] of [[0, 1], [2, 7], [3, 26]]) expect((await autoTestVsRef(ref, k, { params: { n, m } })).mismatches).toEqual([]);
  });

  it("a local fetch within an ilp iname is a race where work-items share it; by default (loopy's) the one-element fetch is private", async () => {
    const ref = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*b[i]", ["b, out: float64[n]", "n: int32"]);
    const k = splitIname(ref, "i", 4, { innerTag: "ilp" });
    // Shared by the work-items of a group: the lanes of each would write their own values into one cell.
    const onItems = splitIname(k, "i_outer", 2, { outerTag: "g.0", innerTag: "l.0" });
    expect(() => addPrefetch(onItems, "b", { temporaryAddressSpace: "local" })).toThrow(/cannot be made local because a write race across the iname\(s\) i_inner, i_outer_inner would emerge/);
    // One work-item's own (no work-items): realizeIlp gives each lane its copy, as a private one.
    const own = addPrefetch(k, "b", { temporaryAddressSpace: "local" });
    expect((await autoTestVsRef(ref, own, { params: { n: 10 }, backend: "js" })).ok).toBe(true);
    const t = addPrefetch(k, "b", {});
    expect(t.temporaries.map((x) => x.addressSpace)).toEqual(["private"]);
    const r = await autoTestVsRef(ref, t, { params: { n: 10 }, backend: "js" });
    expect(r.ok, r.mismatches.join("; ")).toBe(true);
  });
});
