/**
 * A fetch whose store's domain is a piece of its footprint gists that domain (and clips it) in the
 * context of the piece's own parameter constraints, without the outer inames' iteration domain:
 * storeFootprint's proof says it is the same set. The law: the same kernel (JSON, field order
 * too) or the same refusal as the route that intersects that domain, over tiled and random
 * kernels, sweeps, assumptions and tags; and the precompute that shares the core.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoomError } from "../../src/errors.js";
import { findAccesses, instructionInames } from "../../src/analysis/index.js";
import { isEmpty } from "../../src/poly/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { addPrefetch, splitIname, type PrefetchOptions } from "../../transforms/index.js";
import { outerContextShortcuts, useOuterContextShortcut } from "../../transforms/fetch-domain.js";
import { genKernelOf } from "./gen-kernels.js";
import { routeOutcome } from "./route-outcome.js";
import { ASSUME, FACTORS, SHAPES, tiledKernel } from "./tiled-shapes.js";

const outcome = (k: Kernel, array: string, opts: PrefetchOptions, shortcut: boolean): string =>
  routeOutcome(useOuterContextShortcut, shortcut, () => addPrefetch(k, array, opts));

/** A tiled matmul, 2-D stencil or triangle: tiles of random sizes, random assumptions. */
const tiled = fc.record({
  shape: fc.constantFrom(...SHAPES), ti: fc.constantFrom(...FACTORS), tj: fc.constantFrom(...FACTORS), tk: fc.constantFrom(...FACTORS),
  assume: fc.constantFrom(...ASSUME), groups: fc.boolean(),
}).map(({ shape, ti, tj, tk, assume, groups }) => tiledKernel(shape, ti, tj, tk, assume, groups));

const readsOf = (k: Kernel, name: string) => {
  try {
    return findAccesses(k, name);
  } catch (e) {
    if (e instanceof LoomError) return [];
    throw e;
  }
};

/** Mostly the inner inames (a fetch per tile), sometimes any subset of the readers' inames. */
function sweepOf(k: Kernel, array: string, pick: number): string[] {
  const inames = [...new Set(readsOf(k, array).flatMap((a) => instructionInames(k.instructions.find((i) => i.id === a.insnId)!)))];
  return pick % 4 !== 0 ? inames.filter((n) => n.endsWith("_inner")) : inames.filter((_, j) => (pick >> (j + 2)) & 1);
}

describe("a fetch's context without the outer inames' domain, where its domain is a footprint piece", () => {
  it("law, tiles: the same kernel (or refusal) as intersecting the outer inames' domain", () => {
    const before = outerContextShortcuts();
    fc.assert(fc.property(tiled, fc.boolean(), fc.nat(), fc.constantFrom(undefined, null, "l.auto"), fc.nat(3), (k, second, pick, defaultTag, boxPick) => {
      // Now and then the bounding box (no piece: the outer inames' domain is intersected either way).
      const box = boxPick === 0;
      const array = second && k.name === "matmul" ? "b" : "a";
      const opts: PrefetchOptions = { sweepInames: sweepOf(k, array, pick), ...(defaultTag === undefined ? {} : { defaultTag }), ...(box ? { fetchBoundingBox: true } : {}) };
      expect(outcome(k, array, opts, true)).toBe(outcome(k, array, opts, false));
    }), { numRuns: 30 });
    expect(outerContextShortcuts() - before).toBeGreaterThan(4);
  });

  it("law, random kernels and splits: the same kernel (or refusal)", () => {
    fc.assert(fc.property(genKernelOf(), fc.array(fc.tuple(fc.nat(), fc.constantFrom(2, 3, 4, 8)), { minLength: 0, maxLength: 2 }), fc.nat(), fc.nat(),
      ({ gk }, splits, pickArray, pick) => {
        let k = gk.kernel;
        for (const [at, factor] of splits) {
          const names = k.domains.flatMap((d) => d.dims).filter((n) => k.inameTags[n] === undefined);
          if (names.length === 0) break;
          try {
            k = splitIname(k, names[at % names.length]!, factor);
          } catch (e) {
            if (!(e instanceof LoomError)) throw e;
          }
        }
        const arrays = k.args.filter((a) => a.kind === "array" && readsOf(k, a.name).length > 0).map((a) => a.name);
        if (arrays.length === 0) return;
        const array = arrays[pickArray % arrays.length]!;
        const opts: PrefetchOptions = { sweepInames: sweepOf(k, array, pick), defaultTag: null };
        expect(outcome(k, array, opts, true)).toBe(outcome(k, array, opts, false));
      }), { numRuns: 30 });
  });
});

describe("a fetch's domain has points by construction (its local tags need no emptiness test)", () => {
  it("parameters that leave the readers no point are refused by the footprint, before any tag", () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "z[i,j] = 2*a[i,j]", ["a, z: float32[n,n]", "n: int32"], { name: "none", assumptions: "n <= 0" });
    const t = splitIname(splitIname(k, "i", 4, { innerTag: "l.1" }), "j", 8, { innerTag: "l.0" });
    expect(() => addPrefetch(t, "a", { sweepInames: ["i_inner", "j_inner"] })).toThrow(/addPrefetch: the footprint of a is empty: no access runs/);
  });

  it("law: tagged fetches (split or widened to the work-group's size) have a domain with points", () => {
    fc.assert(fc.property(tiled, fc.boolean(), (k, second) => {
      const array = second && k.name === "matmul" ? "b" : "a";
      let out: Kernel;
      try {
        out = addPrefetch(k, array, { sweepInames: sweepOf(k, array, 1) });
      } catch (e) {
        if (e instanceof LoomError) return;
        throw e;
      }
      for (const d of out.domains.filter((x) => x.dims.some((n) => n.startsWith(`${array}_dim`)))) expect(isEmpty(d)).toBe(false);
    }), { numRuns: 15 });
  });
});
