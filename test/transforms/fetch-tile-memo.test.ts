/**
 * A tile fetch's footprint (transforms/fetch-tile.ts) is remembered by the content it is read
 * off: the iteration domain's rows over the sweep inames, the indices, the shape, the assumptions.
 * Variants of a sweep that share the fetched array's tile (the other tile sizes differ) find it.
 * The law: a run of such variants with the memo gives each the kernel (or refusal) it gets with
 * every footprint read anew, and some of them found it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Kernel } from "../../src/ir/index.js";
import { clearPolyMemos } from "../../src/poly/index.js";
import { addPrefetch, type PrefetchOptions } from "../../transforms/index.js";
import { tileMemoCounts, useTileMemo } from "../../transforms/fetch-tile.js";
import { outcomeOf } from "./route-outcome.js";
import { ASSUME, FACTORS, tiledKernel } from "./tiled-shapes.js";

const SWEEPS: Record<string, Record<string, string[]>> = {
  matmul: { a: ["i_inner", "k_inner"], b: ["k_inner", "j_inner"] },
  stencil: { a: ["i_inner", "j_inner"] },
  triangle: { a: ["i_inner", "j_inner"] },
};

/** Each variant's outcome, in order, with the memo on (one run, memos emptied first) or off. */
function outcomes(kernels: readonly Kernel[], array: string, opts: PrefetchOptions, memo: boolean): string[] {
  clearPolyMemos();
  useTileMemo(memo);
  try {
    return kernels.map((k) => outcomeOf(() => addPrefetch(k, array, opts)));
  } finally {
    useTileMemo(true);
  }
}

describe("tile footprints remembered by content", () => {
  it("law: a run of variants sharing the fetched tile gets the kernels of the footprints read anew", () => {
    const before = tileMemoCounts();
    fc.assert(fc.property(
      fc.constantFrom("matmul", "matmul", "stencil", "triangle"), fc.constantFrom(...FACTORS), fc.constantFrom(...FACTORS),
      fc.array(fc.constantFrom(...FACTORS), { minLength: 2, maxLength: 2 }),
      fc.constantFrom(...ASSUME, "n mod 16 = 0 and n >= 16", "n mod 16 = 0 and n >= 16"), fc.boolean(), fc.boolean(),
      fc.constantFrom(undefined, null, "l.auto"),
      (shape, t1, tk, others, assume, groups, arrayB, tag) => {
        const array = shape === "matmul" && arrayB ? "b" : "a";
        // The tile of the fetched array stays (i and k for a, k and j for b); the other one varies.
        const kernels = others.map((t) => (array === "a" ? tiledKernel(shape, t1, t, tk, assume, groups) : tiledKernel(shape, t, t1, tk, assume, groups)));
        const opts: PrefetchOptions = { sweepInames: SWEEPS[shape]![array]!, ...(tag === undefined ? {} : { defaultTag: tag }) };
        expect(outcomes(kernels, array, opts, true)).toEqual(outcomes(kernels, array, opts, false));
      },
    ), { numRuns: 10 });
    const after = tileMemoCounts();
    // Some variants found their footprint (asked, not read off the rows).
    expect(after.asked - before.asked - (after.read - before.read)).toBeGreaterThan(0);
  });

  it("the sweep's matmul: a variant with a new j tile finds a's footprint, and one with a new i tile does not", () => {
    const assume = "n mod 64 = 0 and n >= 64";
    clearPolyMemos();
    const sweep = { sweepInames: ["i_inner", "k_inner"] };
    addPrefetch(tiledKernel("matmul", 16, 8, 16, assume, true), "a", sweep);
    const c0 = tileMemoCounts();
    addPrefetch(tiledKernel("matmul", 16, 32, 16, assume, true), "a", sweep);
    const c1 = tileMemoCounts();
    expect([c1.asked - c0.asked, c1.read - c0.read]).toEqual([1, 0]);
    addPrefetch(tiledKernel("matmul", 8, 32, 16, assume, true), "a", sweep);
    const c2 = tileMemoCounts();
    expect([c2.asked - c1.asked, c2.read - c1.read]).toEqual([1, 1]);
  });
});
