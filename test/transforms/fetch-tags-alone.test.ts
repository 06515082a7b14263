/**
 * A fetch's new inames tagged on the store alone (tagStoreAlone, before the kernel is built) give
 * the kernel the exact route gives (applyTags on the built kernel: splits, widenings and tags of
 * the whole kernel), or the same refusal: over random kernels, tiles with local and group tags,
 * sweeps and tag specs.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoomError } from "../../src/errors.js";
import { findAccesses, instructionInames } from "../../src/analysis/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { addPrefetch, splitIname, type PrefetchOptions } from "../../transforms/index.js";
import { storeAloneTaggings, useStoreAloneTagging } from "../../transforms/fetch-tags.js";
import { takenNames } from "../../transforms/common.js";
import { genKernelOf } from "./gen-kernels.js";
import { routeOutcome } from "./route-outcome.js";

/** Kernels whose reads have footprints over two axes or more (a fetch tags two inames), and simpler ones. */
const kernels = genKernelOf(["matmul", "elementwise2d", "stencil2d", "reduction", "triangular", "stencil1d", "tempArray"]);

/** The prefetch as JSON (field order too), or its refusal's message. */
const outcome = (k: Kernel, array: string, opts: PrefetchOptions, alone: boolean): string =>
  routeOutcome(useStoreAloneTagging, alone, () => addPrefetch(k, array, opts));

const TAGS = [undefined, "l.auto", null, ["l.0", "l.1"], ["l.1", "l.auto"], ["g.0", "l.0"], "l.0", ["like.i_inner", "l.0"], ["unr", "l.auto"]] as const;

const FACTORS = [2, 3, 4, 8, 16] as const;

/** Mostly the default tag (l.auto), which splits or widens to the work-group's size; the others too. */
const tagsOften = fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: fc.constantFrom(...TAGS) });

/** A tiled matmul or 2-D stencil: tiles of random sizes, the inner inames on random local axes (or none). */
const tiled = fc.record({
  matmul: fc.boolean(), ti: fc.constantFrom(...FACTORS), tj: fc.constantFrom(...FACTORS), tk: fc.constantFrom(...FACTORS),
  axes: fc.constantFrom(["l.1", "l.0"], ["l.0", "l.1"], ["l.0", undefined], [undefined, "l.1"], ["l.0", "l.0"]), groups: fc.boolean(),
}).map(({ matmul, ti, tj, tk, axes, groups }) => {
  let k = matmul
    ? makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])", ["a, b, c: float32[n,n]", "n: int32"], { name: "matmul" })
    : makeKernel("{[i,j]: 1<=i<n-1 and 1<=j<n-1}", "z[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1] - 4*a[i,j]", ["a, z: float32[n,n]", "n: int32"], { name: "stencil" });
  const tag = (t: string | undefined, outer: string) => ({ ...(t === undefined ? {} : { innerTag: t }), ...(groups ? { outerTag: outer } : {}) });
  k = splitIname(k, "i", ti, tag(axes[0], "g.0"));
  if (axes[1] !== axes[0] || axes[1] === undefined) k = splitIname(k, "j", tj, tag(axes[1], "g.1"));
  else k = splitIname(k, "j", tj);
  return matmul ? splitIname(k, "k", tk) : k;
});

describe("tagging a fetch's inames on the store alone", () => {
  it("law, tiles: the same kernel (or refusal) as tagging the built kernel, splits and widenings to the work-group's size among them", () => {
    const before = storeAloneTaggings();
    fc.assert(fc.property(tiled, fc.boolean(), fc.nat(), tagsOften, (k, second, pickSweep, defaultTag) => {
      const array = second && k.name === "matmul" ? "b" : "a";
      const inames = [...new Set(findAccesses(k, array).flatMap((a) => instructionInames(k.instructions.find((i) => i.id === a.insnId)!)))];
      const sweep = pickSweep % 3 !== 0 ? inames.filter((n) => n.endsWith("_inner")) : inames.filter((_, j) => (pickSweep >> (j + 2)) & 1);
      const opts: PrefetchOptions = { sweepInames: sweep, ...(defaultTag === undefined ? {} : { defaultTag: Array.isArray(defaultTag) ? [...defaultTag] : defaultTag }) };
      expect(outcome(k, array, opts, true)).toBe(outcome(k, array, opts, false));
    }), { numRuns: 40 });
    expect(storeAloneTaggings() - before).toBeGreaterThan(10);
  });

  it("law, tiles: the names a fetch's kernel carries by construction (rememberTakenNames) are those a walk of it finds, through a second fetch", () => {
    fc.assert(fc.property(tiled, tagsOften, (k, defaultTag) => {
      const opts = (sweep: string[]): PrefetchOptions => ({ sweepInames: sweep, ...(defaultTag === undefined ? {} : { defaultTag: Array.isArray(defaultTag) ? [...defaultTag] : defaultTag }) });
      let out = k;
      for (const [array, sweep] of k.name === "matmul" ? [["a", ["i_inner", "k_inner"]], ["b", ["k_inner", "j_inner"]]] as const : [["a", ["i_inner", "j_inner"]]] as const) {
        try {
          out = addPrefetch(out, array, opts([...sweep]));
        } catch (e) {
          if (e instanceof LoomError) return;
          throw e;
        }
        // An unfrozen copy is walked (takenNames remembers only frozen kernels).
        expect([...takenNames(out)].sort()).toEqual([...takenNames({ ...out })].sort());
      }
    }), { numRuns: 20 });
  });

  it("instructions that do not read the array stay the same objects when the fetch's inames are split to the work-group's size (nothing is rebuilt per step)", () => {
    const insns = ["c[i, j] = sum(k, a[i, k]*b[k, j]) {id=mm}", ...[0, 1, 2].map((m) => `d[i, j, ${m}] = e[i, j] + ${m} {id=x${m}}`)];
    let k = makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", insns, ["a, b, c, e: float32[n,n]", "d: float32[n,n,3]", "n: int32"], { name: "many" });
    k = splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.1" });
    k = splitIname(k, "j", 8, { outerTag: "g.1", innerTag: "l.0" });
    k = splitIname(k, "k", 32);
    const before = storeAloneTaggings();
    const out = addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"] });
    expect(storeAloneTaggings()).toBe(before + 1);
    // a_dim_1 (32 long) was split by the 8 work-items of l.0.
    expect(out.inameTags.a_dim_1_inner).toEqual({ kind: "l", axis: 0 });
    for (const id of ["x0", "x1", "x2"]) expect(out.instructions.find((i) => i.id === id)).toBe(k.instructions.find((i) => i.id === id));
    expect(outcome(k, "a", { sweepInames: ["i_inner", "k_inner"] }, true)).toBe(outcome(k, "a", { sweepInames: ["i_inner", "k_inner"] }, false));
  });

  it("law, random kernels and splits: the same kernel (or refusal) as tagging the built kernel", () => {
    const before = storeAloneTaggings();
    fc.assert(fc.property(kernels, fc.array(fc.tuple(fc.nat(), fc.constantFrom(2, 3, 4, 8), fc.constantFrom("l.0", "l.1", "g.0", undefined)), { minLength: 1, maxLength: 3 }),
      fc.nat(), fc.nat(), tagsOften,
      ({ gk }, splits, pickArray, pickSweep, defaultTag) => {
        let k = gk.kernel;
        for (const [pick, factor, innerTag] of splits) {
          const names = k.domains.flatMap((d) => d.dims).filter((n) => k.inameTags[n] === undefined);
          if (names.length === 0) break;
          try {
            k = splitIname(k, names[pick % names.length]!, factor, innerTag === undefined ? {} : { innerTag });
          } catch (e) {
            if (!(e instanceof LoomError)) throw e;
          }
        }
        // An array some instruction reads (affinely).
        const readsOf = (name: string) => {
          try {
            return findAccesses(k, name);
          } catch (e) {
            if (e instanceof LoomError) return [];
            throw e;
          }
        };
        const arrays = k.args.filter((a) => a.kind === "array" && readsOf(a.name).length > 0).map((a) => a.name);
        if (arrays.length === 0) return;
        const array = arrays[pickArray % arrays.length]!;
        const inames = [...new Set(readsOf(array).flatMap((a) => instructionInames(k.instructions.find((i) => i.id === a.insnId)!)))];
        // Mostly the tiles' inner inames (a fetch per tile), sometimes any subset.
        const sweep = pickSweep % 3 !== 0 ? inames.filter((n) => !n.endsWith("_outer")) : inames.filter((_, j) => (pickSweep >> (j + 2)) & 1);
        const opts: PrefetchOptions = { sweepInames: sweep, ...(defaultTag === undefined ? {} : { defaultTag: Array.isArray(defaultTag) ? [...defaultTag] : defaultTag }) };
        expect(outcome(k, array, opts, true)).toBe(outcome(k, array, opts, false));
      }), { numRuns: 30 });
    // The law is about the store-alone route: it must be taken often enough to be tested.
    expect(storeAloneTaggings() - before).toBeGreaterThan(2);
  });
});
