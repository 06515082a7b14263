/**
 * addPrefetch (and precompute, which shares its core) fetch the exact footprint of the reads by
 * default and its bounding box only with fetchBoundingBox: true, as loopy does; the temporary has
 * the box's shape either way. A footprint of several pieces (a stencil's reads) is fetched as its
 * box, and a stride (`a[2*i]`) is not kept in the fetch's domain.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { exprToString, iterationDomain, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { predicateConditions } from "../../src/analysis/index.js";
import { addConstraints, count, printSet } from "../../src/poly/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { addPrefetch, precompute, splitIname } from "../../transforms/index.js";

const RUNS = { numRuns: Number(process.env.LOOM_PROPERTY_RUNS ?? 60) };
const BACKENDS = ["interp", "js"] as const;
const cl = (k: Kernel) => generateCode(k, "opencl").deviceCode;
const shape = (k: Kernel) => k.temporaries.map((t) => t.shape.map(exprToString).join("x"));

/**
 * How many elements the store instruction fetches for the given parameters: the points of its
 * domain (fetch inames within its outer loops) where its predicates hold (bounds tied to an outer
 * loop and clips to the array's shape are predicates of the store).
 */
function fetchCount(k: Kernel, insnId: string, params: Record<string, number> = {}): number {
  const insn = k.instructions.find((i) => i.id === insnId)!;
  const dom = iterationDomain(k, insn.withinInames);
  const names = new Set([...dom.params, ...dom.dims]);
  const conds = insn.predicates.flatMap((p) => predicateConditions(p, (x) => names.has(x)));
  expect(conds.length, "every predicate of the store is affine").toBe(insn.predicates.length);
  return count(addConstraints(dom, conds), params);
}

async function equivalent(ref: Kernel, k: Kernel, params: Record<string, number>, backend: (typeof BACKENDS)[number]): Promise<void> {
  const r = await autoTestVsRef(ref, k, { params, backend });
  expect(r.mismatches, `${backend} ${JSON.stringify(params)}`).toEqual([]);
  expect(r.ok).toBe(true);
}

const tri8 = () => makeKernel("{[i,j]: 0<=j<=i<8}", "out[i,j] = 2*a[i,j]", ["a, out: float32[8,8]"], { name: "tri" });
const triN = () => makeKernel("{[i,j]: 0<=j<=i<n}", "out[i,j] = 2*a[i,j] + 1", ["a, out: float32[n,n]", "n: int32"], { name: "trin" });

describe("addPrefetch fetches the exact footprint unless fetchBoundingBox", () => {
  const fetch = (bb: boolean) => addPrefetch(tri8(), "a", { sweepInames: ["i", "j"], temporaryAddressSpace: "private", defaultTag: null, fetchBoundingBox: bb });

  it("a triangle: its 36 points by default, the 8x8 box (64) with fetchBoundingBox; the temporary is 8x8 either way", () => {
    const exact = fetch(false);
    const box = fetch(true);
    expect(printSet(exact.domains[exact.domains.length - 1]!)).toBe("{ [a_dim_0, a_dim_1] : a_dim_0 <= 7 and 0 <= a_dim_1 <= a_dim_0 }");
    expect(printSet(box.domains[box.domains.length - 1]!)).toBe("{ [a_dim_0, a_dim_1] : 0 <= a_dim_0 <= 7 and 0 <= a_dim_1 <= 7 }");
    expect(fetchCount(exact, "a_fetch_rule")).toBe(36);
    expect(fetchCount(box, "a_fetch_rule")).toBe(64);
    expect(shape(exact)).toEqual(["8x8"]);
    expect(shape(box)).toEqual(["8x8"]);
    expect(exact.instructions.map((i) => i.id)).toEqual(box.instructions.map((i) => i.id));
    expect(cl(exact)).toContain("for (int a_dim_1 = 0; a_dim_1 <= a_dim_0; ++a_dim_1)");
    expect(cl(box)).toContain("for (int a_dim_1 = 0; a_dim_1 <= 7; ++a_dim_1)");
    // The reads are the same: offsets from the box's base.
    expect(cl(exact)).toContain("out[8 * i + j] = 2.0f * a_fetch[8 * i + j];");
    expect(cl(box)).toContain("out[8 * i + j] = 2.0f * a_fetch[8 * i + j];");
  });

  it("both are equivalent to the original kernel (interp, js)", async () => {
    for (const backend of BACKENDS) {
      await equivalent(tri8(), fetch(false), {}, backend);
      await equivalent(tri8(), fetch(true), {}, backend);
    }
  });

  it("precompute shares the behaviour: a rule over a triangle is computed on the triangle only", async () => {
    const ref = makeKernel("{[i,j]: 0<=j<=i<8}", ["f(x, y) := 2*a[x, y] + 1", "out[i,j] = f(i, j)"], ["a, out: float32[8,8]"], { name: "pr" });
    const exact = precompute(ref, "f", ["i", "j"]);
    const box = precompute(ref, "f", ["i", "j"], { fetchBoundingBox: true });
    expect(fetchCount(exact, "compute_f")).toBe(36);
    expect(fetchCount(box, "compute_f")).toBe(64);
    expect(shape(exact)).toEqual(["8x8"]);
    for (const backend of BACKENDS) {
      await equivalent(ref, exact, {}, backend);
      await equivalent(ref, box, {}, backend);
    }
  });

  it("a union that one of its pieces holds (a read repeated) is that piece: a diagonal fetches 8 of its 8x8 box", async () => {
    const ref = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i, i]*a[i, i] + 1", ["a: float64[n,n]", "out: float64[n]", "n: int32"], { name: "diag" });
    for (const space of ["private", "local"] as const) {
      const k0 = splitIname(ref, "i", 8, { outerTag: "g.0", ...(space === "local" ? { innerTag: "l.0" } : {}) });
      const exact = addPrefetch(k0, "a", { sweepInames: ["i_inner"], temporaryAddressSpace: space });
      const box = addPrefetch(k0, "a", { sweepInames: ["i_inner"], temporaryAddressSpace: space, fetchBoundingBox: true });
      expect(shape(exact)).toEqual(["8x8"]);
      for (const n of [0, 3, 8, 13]) {
        expect(fetchCount(exact, "a_fetch_rule", { n })).toBe(n);
        expect(fetchCount(box, "a_fetch_rule", { n })).toBe(Math.min(n, 8) ** 2 + Math.max(n - 8, 0) ** 2);
      }
      for (const backend of BACKENDS) {
        for (const n of [0, 3, 8, 13]) {
          await equivalent(ref, exact, { n }, backend);
          await equivalent(ref, box, { n }, backend);
        }
      }
    }
  });

  it("a stride is not kept: a[2*i] fetches its 15-element box either way (and runs on the CPU targets)", async () => {
    const ref = makeKernel("{[i]: 0<=i<n}", "out[i] = a[2*i+1]", ["a: float32[2*n+2]", "out: float32[n]", "n: int32"], { name: "st" });
    const k0 = splitIname(ref, "i", 8, { outerTag: "g.0", innerTag: "l.0" });
    const exact = addPrefetch(k0, "a", { sweepInames: ["i_inner"] });
    const box = addPrefetch(k0, "a", { sweepInames: ["i_inner"], fetchBoundingBox: true });
    expect(shape(exact)).toEqual(["15"]);
    expect(cl(exact)).toBe(cl(box));
    for (const backend of BACKENDS) for (const n of [0, 5, 8, 21]) await equivalent(ref, exact, { n }, backend);
  });
});

describe("addPrefetch of a triangular footprint into local memory, tiled", () => {
  /** Split i and j by 4 (g/l; `swap` puts i_inner on l.0 so that the fetch and the reads are by different work-items). */
  const tiled = (bb: boolean, swap = false) => {
    let k = splitIname(triN(), "i", 4, { outerTag: "g.0", innerTag: swap ? "l.0" : "l.1" });
    k = splitIname(k, "j", 4, { outerTag: "g.1", innerTag: swap ? "l.1" : "l.0" });
    return addPrefetch(k, "a", { sweepInames: ["i_inner", "j_inner"], fetchBoundingBox: bb });
  };
  /** The points of the boxes of the 4x4 tiles (i_outer >= j_outer) clipped to n: what the box fetch reads. */
  const boxPoints = (n: number) => {
    let s = 0;
    for (let io = 0; 4 * io < n; io++) for (let jo = 0; jo <= io; jo++) s += Math.min(4, n - 4 * io) * Math.min(4, n - 4 * jo);
    return s;
  };

  it("fetches the triangle's n(n+1)/2 elements, the clipped tiles' boxes with fetchBoundingBox; 4x4 local temporary", () => {
    for (const swap of [false, true]) {
      const exact = tiled(false, swap);
      const box = tiled(true, swap);
      expect(exact.temporaries.map((t) => `${t.addressSpace} ${t.shape.map(exprToString).join("x")}`)).toEqual(["local 4x4"]);
      expect(box.temporaries.map((t) => `${t.addressSpace} ${t.shape.map(exprToString).join("x")}`)).toEqual(["local 4x4"]);
      expect(exact.inameTags).toMatchObject({ a_dim_0: { kind: "l" }, a_dim_1: { kind: "l", axis: 0 } });
      for (const n of [0, 1, 5, 8, 13]) {
        expect(fetchCount(exact, "a_fetch_rule", { n }), `n=${n}`).toBe((n * (n + 1)) / 2);
        expect(fetchCount(box, "a_fetch_rule", { n }), `n=${n}`).toBe(boxPoints(n));
      }
    }
    // The exact fetch guards on the diagonal; the box fetch on the array's bounds.
    expect(cl(tiled(false))).toContain("if (4 * gid(0) + lid(1) < n && 4 * gid(1) + lid(0) <= 4 * gid(0) + lid(1))\n    a_fetch[4 * lid(1) + lid(0)] = a[");
    expect(cl(tiled(true))).toContain("if (4 * gid(1) + lid(0) < n && 4 * gid(0) + lid(1) < n && gid(1) <= gid(0))\n    a_fetch[4 * lid(1) + lid(0)] = a[");
    // Read by other work-items than those that fetch: a barrier between.
    expect(cl(tiled(false, true))).toContain("barrier(CLK_LOCAL_MEM_FENCE) /* for a_fetch (insn depends on a_fetch_rule) */;");
  });

  it("is equivalent to the reference (interp, js), n a multiple of the tile or not", async () => {
    for (const backend of BACKENDS) {
      for (const bb of [false, true]) {
        for (const swap of [false, true]) {
          for (const n of [0, 1, 5, 8, 13]) await equivalent(triN(), tiled(bb, swap), { n }, backend);
        }
      }
    }
  });

  it("fetch inames longer than the work-group are split over it (l.auto) and still fetch the triangle", async () => {
    // 8x8 tiles on an 8x2 work-group: the fetch's row iname (8) is split by 2.
    const mk = (bb: boolean) => {
      let k = splitIname(triN(), "i", 8, { outerTag: "g.0", innerTag: "l.0" });
      k = splitIname(k, "j", 8, { outerTag: "g.1" });
      k = splitIname(k, "j_inner", 2, { innerTag: "l.1" });
      return addPrefetch(k, "a", { sweepInames: ["i_inner", "j_inner_outer", "j_inner_inner"], fetchBoundingBox: bb });
    };
    const exact = mk(false);
    expect(Object.keys(exact.inameTags)).toContain("a_dim_0_inner");
    expect(shape(exact)).toEqual(["8x8"]);
    for (const n of [1, 9, 17]) {
      expect(fetchCount(exact, "a_fetch_rule", { n })).toBe((n * (n + 1)) / 2);
      // The box of each 8x8 tile with i_outer >= j_outer, clipped to n.
      let boxes = 0;
      for (let io = 0; 8 * io < n; io++) for (let jo = 0; jo <= io; jo++) boxes += Math.min(8, n - 8 * io) * Math.min(8, n - 8 * jo);
      expect(fetchCount(mk(true), "a_fetch_rule", { n })).toBe(boxes);
    }
    for (const backend of BACKENDS) {
      for (const n of [0, 1, 9, 17]) {
        await equivalent(triN(), exact, { n }, backend);
        await equivalent(triN(), mk(true), { n }, backend);
      }
    }
  });
});

describe("law: exact and bounding-box fetches of triangular and skewed footprints (fast-check)", () => {
  /** Rows `0 <= j <= i + c` (a triangle shifted by c), or `i + c <= j <= i + c + w` (a skewed band). */
  const ref = (kind: "tri" | "skew", c: number, w: number) => makeKernel(
    kind === "tri" ? `{[i,j]: 0<=i<n and 0<=j<=i+${c}}`.replace("+-", "-") : `{[i,j]: 0<=i<n and i+${c}<=j<=i+${c + w}}`,
    "out[i,j] = 2*a[i,j] + 1", ["a, out: float64[n,n+6]", "n: int32"], { name: kind });

  it("both modes equal the reference (interp); the exact fetch reads each element once, the box at least as many", async () => {
    await fc.assert(fc.asyncProperty(
      fc.constantFrom("tri" as const, "skew" as const), fc.integer({ min: -2, max: 2 }), fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 1, max: 4 }), fc.boolean(), fc.integer({ min: 0, max: 9 }),
      async (kind, c0, w, t, whole, n0) => {
        const c = kind === "skew" ? Math.abs(c0) : c0;
        // A global temporary's parametric shape (n - 2 for c = -2) must not be negative.
        const n = whole ? Math.max(n0, 2) : n0;
        const r0 = ref(kind, c, w);
        const make = (bb: boolean): Kernel => {
          // Whole: sweep i and j (a parametric extent: a global temporary). Tiled: split i (and for
          // the triangle j) by t and sweep the tile, a private temporary of constant shape.
          if (whole) return addPrefetch(r0, "a", { sweepInames: ["i", "j"], temporaryAddressSpace: "global", defaultTag: null, fetchBoundingBox: bb });
          let k = splitIname(r0, "i", t);
          if (kind === "tri") k = splitIname(k, "j", t);
          return addPrefetch(k, "a", { sweepInames: kind === "tri" ? ["i_inner", "j_inner"] : ["i_inner", "j"], temporaryAddressSpace: "private", fetchBoundingBox: bb });
        };
        const exact = make(false);
        const box = make(true);
        const reads = count(iterationDomain(r0, ["i", "j"]), { n });
        expect(fetchCount(exact, "a_fetch_rule", { n })).toBe(reads);
        expect(fetchCount(box, "a_fetch_rule", { n })).toBeGreaterThanOrEqual(reads);
        expect(shape(exact)).toEqual(shape(box));
        for (const k of [exact, box]) {
          const res = await autoTestVsRef(r0, k, { params: { n }, backend: "interp" });
          expect(res.mismatches, `${kind} c=${c} w=${w} t=${t} whole=${whole} n=${n}`).toEqual([]);
        }
      }), RUNS);
  }, 120_000);
});

describe("a global temporary sized by its footprint", () => {
  it("is empty, not an error, where the footprint is (n - 1 at n = 0)", async () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<=i-1}", "out[i] = sum(j, a[j])", ["a, out: float32[n]", "n: int32"]);
    const t = addPrefetch(k, "a", { sweepInames: ["i", "j"], temporaryAddressSpace: "global" });
    expect(t.temporaries.map((x) => x.shape!.map(exprToString))).toEqual([["n - 1"]]);
    for (const n of [0, 1, 4]) {
      for (const backend of ["interp", "js"] as const) expect((await autoTestVsRef(k, t, { params: { n }, backend })).mismatches).toEqual([]);
    }
  });
});
