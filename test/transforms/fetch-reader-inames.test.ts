/**
 * A fetch's readers keep their inames (issue 21): the reader a fetch rewrites (its reads redirected
 * to the temporary) has the loops and reductions of the reader it was made from, and is given that
 * reader's inames (src/ir's sameInsnInames) instead of walking its expressions again at the next
 * fetch. Law: what is remembered is what a walk of the instruction finds.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoomError } from "../../src/errors.js";
import { insnInames, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { addPrefetch, splitIname } from "../../transforms/index.js";

const matmul = (): Kernel => makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
  ["a, b, c: float32[n,n]", "n: int32"], { name: "matmul" });

/** insnInames of an unfrozen copy: walked, never remembered. */
const walked = (k: Kernel): string[][] => k.instructions.map((i) => [...insnInames({ ...i })]);

describe("a fetch's readers keep their inames", () => {
  it("the rewritten reader of a tiled matmul has its reader's inames, the same array (not walked again)", () => {
    let k = splitIname(matmul(), "i", 16, { outerTag: "g.0", innerTag: "l.1" });
    k = splitIname(k, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
    k = splitIname(k, "k", 8);
    const before = insnInames(k.instructions[0]!);
    const out = addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"] });
    const reader = out.instructions.find((i) => i.id === k.instructions[0]!.id)!;
    expect(reader).not.toBe(k.instructions[0]);
    expect(insnInames(reader)).toBe(before);
    expect(walked(out)).toEqual(out.instructions.map((i) => [...insnInames(i)]));
  });

  it("law: through two fetches of random tiles and sweeps, every instruction's remembered inames are those a walk finds", () => {
    fc.assert(fc.property(
      fc.constantFrom(2, 3, 4, 8, 16), fc.constantFrom(2, 4, 8, 16), fc.constantFrom(2, 8, 16), fc.boolean(), fc.boolean(),
      (ti, tj, tk, wide, reductionInner) => {
        let k = splitIname(matmul(), "i", ti, { outerTag: "g.0", innerTag: "l.1" });
        k = splitIname(k, "j", tj, { outerTag: "g.1", innerTag: "l.0" });
        k = splitIname(k, "k", tk);
        try {
          k = addPrefetch(k, "a", { sweepInames: wide ? ["i_inner", "k_inner", "k_outer"] : ["i_inner", "k_inner"] });
          expect(walked(k)).toEqual(k.instructions.map((i) => [...insnInames(i)]));
          k = addPrefetch(k, "b", { sweepInames: reductionInner ? ["k_inner", "j_inner"] : ["j_inner"] });
        } catch (e) {
          if (e instanceof LoomError) return;
          throw e;
        }
        expect(walked(k)).toEqual(k.instructions.map((i) => [...insnInames(i)]));
      }), { numRuns: 30 });
  });
});
