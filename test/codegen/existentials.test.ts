/**
 * Domains with existentials (`exists e: …`, left by joinInames, by prefetch footprints projected
 * through splits, and by iname projections): code generation guards them exactly — divisibility
 * `(7*j) % 6 <= 1`, floor comparisons, affine rows where a projection step is exact — and keeps the
 * loop bounds a superset. Each case is a counterexample the random-pipeline law found (seed noted);
 * each runs on the js backend over a range of parameters and compiles as C with gcc -Wall -Werror.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { dimBounds, intersect, parseSet, projectOut } from "../../src/poly/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { applyPipeline, type PipelineJSON } from "../../transforms/pipeline.js";
import { compile, GCC_FLAGS, hasGcc } from "./compile-helpers.js";

interface Source { family: string; domains: string[]; instructions: string[]; args: string[] }

const triangularNest: Source = { family: "triangular", domains: ["{[i,j]: 0<=j<=i<n}"], instructions: ["out[i,j] = a[i,j] + j"], args: ["a, out: float64[n,n]", "n: int32"] };
const triangularSum: Source = { family: "triangular", domains: ["{[i,j]: 0<=j<=i<n}"], instructions: ["out[i] = sum(j, a[i,j]*(j + 1))"], args: ["a: float64[n,n]", "out: float64[n]", "n: int32"] };
const parametric: Source = { family: "parametric", domains: ["{[i]: m<=i<n}"], instructions: ["out[i] = a[i] + m"], args: ["a, out: float64[n]", "n, m: int32"] };
const elementwise: Source = { family: "elementwise", domains: ["{[i]: 0<=i<n}"], instructions: ["out[i] = 2*a[i] + 1"], args: ["a, out: float64[n]", "n: int32"] };
const stencil1d: Source = { family: "stencil1d", domains: ["{[i]: 1<=i<n-1}"], instructions: ["out[i] = a[i-1] - 2*a[i] + a[i+1]"], args: ["a, out: float64[n]", "n: int32"] };
const stencil2d: Source = {
  family: "stencil2d", domains: ["{[i,j]: 1<=i<n-1 and 1<=j<m-1}"],
  instructions: ["out[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1] - 4*a[i,j]"], args: ["a, out: float64[n,m]", "n, m: int32"],
};
const twoStage: Source = {
  family: "twoStage", domains: ["{[i]: 0<=i<n}"], instructions: ["t[i] = 2*a[i] {id=first}", "out[i] = t[i] + a[i] {id=second, dep=first, nosync=first}"],
  args: ["a, t, out: float64[n]", "n: int32"],
};
const elementwise2d: Source = { family: "elementwise2d", domains: ["{[i,j]: 0<=i<n and 0<=j<m}"], instructions: ["out[i,j] = a[i,j]*2 + j"], args: ["a, out: float64[n,m]", "n, m: int32"] };

const prefetch = (sweep?: string[]) => ({ op: "addPrefetch", args: ["a", { ...(sweep ? { sweepInames: sweep } : {}), temporaryAddressSpace: "private", defaultTag: "for" }] });

interface Case { seed: number; source: Source; pipeline: PipelineJSON; params: Record<string, number>[]; what: string }

const ns = (hi: number) => Array.from({ length: hi + 1 }, (_, n) => ({ n }));
const nms = (hiN: number, hiM: number) => ns(hiN).flatMap(({ n }) => Array.from({ length: hiM + 1 }, (_, m) => ({ n, m })));

const CASES: Case[] = [
  {
    seed: 1, source: triangularNest, params: ns(19), what: "dimBounds: an existential named like the loop's iname (prefetch, split, g tag)",
    pipeline: [{ op: "splitIname", args: ["j", 4] }, { op: "splitIname", args: ["j_outer", 16] }, prefetch(["j_outer_inner"]),
      { op: "splitIname", args: ["j_outer_inner", 1] }, { op: "tagInames", args: [{ j_outer_inner_outer: "g.0" }] }] as PipelineJSON,
  },
  {
    seed: 3, source: triangularSum, params: ns(19), what: "joinInames on a triangular reduction: divisibility and floor guards",
    pipeline: [{ op: "tile", args: [["i"], [2], { outerTags: ["g.0"] }] }, { op: "splitIname", args: ["i_inner", 7] },
      { op: "joinInames", args: [["i_inner_inner", "i_inner_outer"], "i_inner_inner_i_inner_outer_j"] }] as PipelineJSON,
  },
  {
    seed: 4, source: parametric, params: nms(19, 6), what: "prefetch and splits on a parametric kernel",
    pipeline: [{ op: "splitIname", args: ["i", 5] }, { op: "splitIname", args: ["i_outer", 4] }, prefetch(["i_outer_inner"]),
      { op: "splitIname", args: ["i_outer_outer", 1] }] as PipelineJSON,
  },
  {
    seed: 9, source: stencil2d, params: nms(8, 8), what: "a joined fetch iname",
    pipeline: [prefetch(), { op: "chunkIname", args: ["a_dim_0", 1] },
      { op: "joinInames", args: [["a_dim_0_inner", "a_dim_0_outer"], "a_dim_0_inner_a_dim_0_outer_j"] }, { op: "splitIname", args: ["i", 1] }] as PipelineJSON,
  },
  {
    seed: 10, source: stencil1d, params: ns(19), what: "chunk, split and join",
    pipeline: [{ op: "chunkIname", args: ["i", 2] }, { op: "splitIname", args: ["i_outer", 5] },
      { op: "joinInames", args: [["i_outer_inner", "i_outer_outer"], "i_outer_inner_i_outer_outer_j"] },
      { op: "splitIname", args: ["i_outer_inner_i_outer_outer_j", 1] }] as PipelineJSON,
  },
  {
    seed: 15, source: parametric, params: nms(19, 6), what: "prefetch swept over a split inner iname",
    pipeline: [{ op: "splitIname", args: ["i", 8] }, { op: "splitIname", args: ["i_outer", 1] }, prefetch(["i_inner"]),
      { op: "splitIname", args: ["i_inner", 3] }] as PipelineJSON,
  },
  {
    seed: 16, source: elementwise, params: ns(19), what: "join under a group axis",
    pipeline: [{ op: "splitIname", args: ["i", 3] }, { op: "tagInames", args: [{ i_outer: "g.0" }] }, { op: "splitIname", args: ["i_inner", 7] },
      { op: "joinInames", args: [["i_inner_inner", "i_inner_outer"], "i_inner_inner_i_inner_outer_j"] },
      { op: "splitIname", args: ["i_inner_inner_i_inner_outer_j", 1] }] as PipelineJSON,
  },
  {
    seed: 17, source: twoStage, params: ns(19), what: "prefetch swept over an l-tagged iname",
    pipeline: [{ op: "splitIname", args: ["i", 8] }, { op: "splitIname", args: ["i_outer", 3] }, prefetch(["i_outer_inner"]),
      { op: "tagInames", args: ["i_outer_inner:l.0"] }] as PipelineJSON,
  },
  {
    seed: 20, source: elementwise2d, params: nms(19, 7).filter((_, k) => k % 3 === 0), what: "prefetch swept over a g-tagged iname of a tile",
    pipeline: [{ op: "tile", args: [["i", "j"], [2, 5], { innerTags: ["l.1", "l.0"] }] }, { op: "splitIname", args: ["j_outer", 7] },
      { op: "tagInames", args: [{ j_outer_outer: "g.0", j_outer_inner: "g.1" }] }, { op: "splitIname", args: ["i_outer", 1] }, prefetch(["j_outer_inner"])] as PipelineJSON,
  },
  {
    seed: 27, source: parametric, params: nms(19, 6), what: "prefetch over the middle of two splits",
    pipeline: [{ op: "splitIname", args: ["i", 7] }, { op: "splitIname", args: ["i_outer", 4] }, prefetch(["i_outer_inner"])] as PipelineJSON,
  },
];

function build(c: Case): { ref: Kernel; k: Kernel } {
  const ref = makeKernel(c.source.domains, c.source.instructions, c.source.args, { name: c.source.family });
  return { ref, k: applyPipeline(ref, c.pipeline) };
}

describe("code generation guards domains with existentials exactly", () => {
  for (const c of CASES) {
    it(`seed ${c.seed}: ${c.source.family}, ${c.what}`, async () => {
      const { ref, k } = build(c);
      expect(() => generateCode(k, "js")).not.toThrow();
      for (const params of c.params) {
        const r = await autoTestVsRef(ref, k, { params, backend: "js", seed: 7 });
        expect(r.mismatches.slice(0, 3), JSON.stringify(params)).toEqual([]);
        expect(r.ok).toBe(true);
      }
    }, 60_000);
  }

  it("a divisibility guard uses the floor-mod helper", () => {
    const { k } = build(CASES[1]!);
    const js = generateCode(k, "js").deviceCode;
    expect(js).toMatch(/H\.imod\(\(7 \* i_inner_inner_i_inner_outer_j\), 6, "index"\) <= 1/);
    const cCode = generateCode(k, "c").deviceCode;
    expect(cCode).toMatch(/loopy_mod_int32\(7 \* i_inner_inner_i_inner_outer_j, 6\) <= 1/);
  });

  it("intersect renames an existential that a projection named after a dim of the other set", () => {
    const whole = parseSet("[n] -> {[i, j]: 0 <= i < 16 and 0 <= 16*j + i < n}");
    const onI = projectOut(whole, ["j"]);
    expect(onI.exists).toEqual(["j"]);
    const both = intersect(onI, parseSet("{[j]: 0 <= j < 4}"));
    expect(both.dims).toEqual(["i", "j"]);
    expect(both.exists).not.toContain("j");
    const b = dimBounds(both, "j", []);
    expect(b.lower.map((x) => x.aff.constant + 0)).toEqual([0]);
    expect(b.upper.map((x) => x.aff.constant)).toEqual([3]);
  });
});

describe.skipIf(!hasGcc)("existential guards compile as C with gcc -Wall -Werror", () => {
  for (const c of CASES) {
    it(`seed ${c.seed}: ${c.source.family}`, () => {
      const { k } = build(c);
      compile({ ...k, name: `${k.name}_s${c.seed}` }, "c", "c", "gcc", GCC_FLAGS);
    });
  }
});
