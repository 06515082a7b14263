/**
 * A fetch whose store's domain is a piece of its footprint finds that domain, its clip and its
 * moved predicates in a memo by content (transforms/fetch-domain.ts), filled by an earlier fetch
 * of a sweep's sibling variant (another tile size of an iname the footprint does not depend on,
 * or another tag for the new inames). The law: the same kernel (JSON, field order too) or the
 * same refusal as computing it anew, over tiled kernels, sweeps, assumptions and tags.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoomError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { clearPolyMemos } from "../../src/poly/index.js";
import { addPrefetch, splitIname, type PrefetchOptions } from "../../transforms/index.js";
import { storeDomainMemoHits, useStoreDomainMemo } from "../../transforms/fetch-domain.js";

const FACTORS = [2, 3, 4, 8, 16] as const;
const ASSUME = [undefined, "n mod 16 = 0 and n >= 16", "n >= 5"] as const;
const TAGS = [undefined, null, "l.auto"] as const;

function tiledKernel(shape: string, ti: number, tj: number, tk: number, assume: string | undefined, groups: boolean): Kernel {
  const opts = { name: shape, ...(assume === undefined ? {} : { assumptions: assume }) };
  let k = shape === "matmul"
    ? makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])", ["a, b, c: float32[n,n]", "n: int32"], opts)
    : shape === "stencil"
      ? makeKernel("{[i,j]: 1<=i<n-1 and 1<=j<n-1}", "z[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1] - 4*a[i,j]", ["a, z: float32[n,n]", "n: int32"], opts)
      : makeKernel("{[i,j]: 0<=i<n and 0<=j<=i}", "z[i,j] = 2*a[i,j]", ["a, z: float32[n,n]", "n: int32"], opts);
  k = splitIname(k, "i", ti, { innerTag: "l.1", ...(groups ? { outerTag: "g.0" } : {}) });
  k = splitIname(k, "j", tj, { innerTag: "l.0", ...(groups ? { outerTag: "g.1" } : {}) });
  return shape === "matmul" ? splitIname(k, "k", tk) : k;
}

/** The kernel as JSON, or the refusal's class and message. */
function outcome(run: () => Kernel): string {
  try {
    return JSON.stringify(run());
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    return `${e.constructor.name}: ${e.message}`;
  }
}

const SWEEPS: Record<string, readonly (readonly string[])[]> = {
  matmul: [["i_inner", "k_inner"], ["k_inner"], ["i_inner"], ["i_inner", "k_inner", "k_outer"], []],
  stencil: [["i_inner", "j_inner"], ["j_inner"], ["i_inner", "i_outer", "j_inner"]],
  triangle: [["i_inner", "j_inner"], ["j_inner"], ["i_inner"]],
};

describe("storeDomain's memo of a piece's store domain", () => {
  it("law: a fetch after a sibling variant's is the kernel (or refusal) computed anew", () => {
    const before = storeDomainMemoHits();
    fc.assert(fc.property(
      fc.constantFrom("matmul", "stencil", "triangle"), fc.constantFrom(...FACTORS), fc.constantFrom(...FACTORS), fc.constantFrom(...FACTORS),
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
        let fresh: string;
        let remembered: string;
        try {
          clearPolyMemos();
          useStoreDomainMemo(false);
          fresh = outcome(() => addPrefetch(k, array, opts(tag)));
          clearPolyMemos();
          useStoreDomainMemo(true);
          outcome(() => addPrefetch(sibling, array, opts(tagSibling)));
          remembered = outcome(() => addPrefetch(k, array, opts(tag)));
        } finally {
          useStoreDomainMemo(true);
        }
        expect(remembered).toBe(fresh);
      },
    ), { numRuns: 30 });
    // The memo answered in most cases (siblings share the footprint unless the sweep involves j).
    expect(storeDomainMemoHits() - before).toBeGreaterThan(4);
  });
});
