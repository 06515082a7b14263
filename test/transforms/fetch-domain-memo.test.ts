/**
 * A fetch whose store's domain is a piece of its footprint finds that domain, its clip and its
 * moved predicates in a memo by content (transforms/fetch-domain.ts), filled by an earlier fetch
 * of a sweep's sibling variant (another tile size of an iname the footprint does not depend on,
 * or another tag for the new inames). The law: the same kernel (JSON, field order too) or the
 * same refusal as computing it anew, over tiled kernels, sweeps, assumptions and tags.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addPrefetch, type PrefetchOptions } from "../../transforms/index.js";
import { storeDomainMemoHits, useStoreDomainMemo } from "../../transforms/fetch-domain.js";
import { outcomeOf, routeOutcome } from "./route-outcome.js";
import { ASSUME, FACTORS, SHAPES, tiledKernel } from "./tiled-shapes.js";

const TAGS = [undefined, null, "l.auto"] as const;


const SWEEPS: Record<string, readonly (readonly string[])[]> = {
  matmul: [["i_inner", "k_inner"], ["k_inner"], ["i_inner"], ["i_inner", "k_inner", "k_outer"], []],
  stencil: [["i_inner", "j_inner"], ["j_inner"], ["i_inner", "i_outer", "j_inner"]],
  triangle: [["i_inner", "j_inner"], ["j_inner"], ["i_inner"]],
};

describe("storeDomain's memo of a piece's store domain", () => {
  it("law: a fetch after a sibling variant's is the kernel (or refusal) computed anew", () => {
    const before = storeDomainMemoHits();
    fc.assert(fc.property(
      fc.constantFrom(...SHAPES), fc.constantFrom(...FACTORS), fc.constantFrom(...FACTORS), fc.constantFrom(...FACTORS),
      fc.constantFrom(...FACTORS), fc.constantFrom(...ASSUME), fc.boolean(), fc.nat(), fc.constantFrom(...TAGS), fc.constantFrom(...TAGS),
      (shape, ti, tj, tjSibling, tk, assume, groups, pick, tag, tagSibling) => {
        const sweeps = SWEEPS[shape]!;
        const sweepInames = sweeps[pick % sweeps.length]!;
        const array = shape === "matmul" && pick % 2 === 1 ? "b" : "a";
        const k = tiledKernel(shape, ti, tj, tk, assume, groups);
        // A sibling: another j tile where the footprint does not depend on j (matmul's a), else another tag only.
        const sibling = tiledKernel(shape, ti, shape === "matmul" && array === "a" ? tjSibling : tj, tk, assume, groups);
        // b is read as b[k, j]: its sweep in j's stead of i's.
        const sweep = array === "b" ? sweepInames.map((n) => n.replace(/^i_/, "j_")) : sweepInames;
        const opts = (t: (typeof TAGS)[number]): PrefetchOptions => ({ sweepInames: [...sweep], ...(t === undefined ? {} : { defaultTag: t }) });
        const fresh = routeOutcome(useStoreDomainMemo, false, () => addPrefetch(k, array, opts(tag)));
        // The sibling fills the memo (emptied first); the kernel's fetch then finds its answer there.
        routeOutcome(useStoreDomainMemo, true, () => addPrefetch(sibling, array, opts(tagSibling)));
        const remembered = outcomeOf(() => addPrefetch(k, array, opts(tag)));
        expect(remembered).toBe(fresh);
      },
    ), { numRuns: 30 });
    // The memo answered in most cases (siblings share the footprint unless the sweep involves j).
    expect(storeDomainMemoHits() - before).toBeGreaterThan(4);
  });
});
