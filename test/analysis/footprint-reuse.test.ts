/**
 * accessFootprint's `from` (a fetch's lean footprint, then the full one over more sweep inames):
 * where it reuses the lean pieces, the footprint is the one computed without `from`, field by field.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accessFootprint, findAccesses, instructionInames, type Footprint } from "../../src/analysis/index.js";
import { footprintReuses } from "../../src/analysis/footprint.js";
import { exprToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { setContentId } from "../../src/poly/index.js";
import { LoomError } from "../../src/errors.js";
import { splitIname } from "../../transforms/index.js";
import { genKernel } from "../transforms/gen-kernels.js";

/** Everything a footprint says, as comparable text (sets by content). */
const view = (f: Footprint) => ({
  dims: f.dims, set: f.set.map(setContentId), boxSet: setContentId(f.boxSet), isBox: f.isBox, dependsOn: f.dependsOn,
  box: f.box.map((b) => [exprToString(b.base), typeof b.extent === "number" ? b.extent : exprToString(b.extent), b.lowers.length, b.uppers.length]),
  accesses: f.accesses.map((a) => [a.insnId, a.indices.map(exprToString), a.inames]),
});

/** The full footprint over `wider` with `from: lean`, and without. */
function both(k: Kernel, array: string, sweep: readonly string[], wider: readonly string[]): [Footprint, Footprint, boolean] {
  const lean = accessFootprint(k, array, { sweepInames: sweep, dependsOnly: true });
  const before = footprintReuses();
  const fast = accessFootprint(k, array, { sweepInames: wider, from: lean });
  const reused = footprintReuses() > before;
  return [fast, accessFootprint(k, array, { sweepInames: wider }), reused];
}

const tiledMatmul = (ti: number, tj: number, tk: number): Kernel => {
  let k = makeKernel("{[i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a, b, c: float32[n,n]", "n: int32"], { name: "matmul", assumptions: "n mod 64 = 0 and n >= 64" });
  k = splitIname(k, "i", ti);
  k = splitIname(k, "j", tj);
  return splitIname(k, "k", tk);
};

describe("accessFootprint from a lean footprint", () => {
  it("a tiled matmul's fetch of a: the full footprint over the readers' other inames reuses the lean pieces, and equals the exact one", () => {
    const k = tiledMatmul(16, 8, 4);
    const [fast, exact, reused] = both(k, "a", ["i_inner", "k_inner"], ["i_inner", "k_inner", "j_inner", "j_outer"]);
    expect(reused).toBe(true);
    expect(view(fast)).toEqual(view(exact));
    expect(fast.box.map((b) => b.extent)).toEqual([16, 4]);
  });

  it("insnIds: equal lists reuse; an iterable that is no array is left unread and computed afresh", () => {
    const k = tiledMatmul(8, 8, 8);
    const sweep = ["i_inner", "k_inner"];
    const wider = [...sweep, "j_inner", "j_outer"];
    const ids = k.instructions.map((i) => i.id);
    const lean = accessFootprint(k, "a", { insnIds: ids, sweepInames: sweep, dependsOnly: true });
    const before = footprintReuses();
    const fast = accessFootprint(k, "a", { insnIds: [...ids], sweepInames: wider, from: lean });
    expect(footprintReuses()).toBe(before + 1);
    expect(view(fast)).toEqual(view(accessFootprint(k, "a", { insnIds: ids, sweepInames: wider })));
    const viaSet = accessFootprint(k, "a", { insnIds: new Set(ids), sweepInames: wider, from: lean });
    expect(footprintReuses()).toBe(before + 1);
    expect(view(viaSet)).toEqual(view(fast));
    const iter = accessFootprint(k, "a", { insnIds: ids.values(), sweepInames: wider, from: lean });
    expect(view(iter)).toEqual(view(fast));
  });

  it("a wider sweep over an iname of the lean pieces' domain (k_outer) computes afresh", () => {
    const k = tiledMatmul(16, 8, 4);
    const [fast, exact, reused] = both(k, "a", ["i_inner", "k_inner"], ["i_inner", "k_inner", "k_outer"]);
    expect(reused).toBe(false);
    expect(view(fast)).toEqual(view(exact));
  });

  it("law: over random kernels, splits and sweeps, the footprint with `from` is the one without", () => {
    let taken = 0;
    fc.assert(fc.property(genKernel, fc.array(fc.tuple(fc.nat(), fc.constantFrom(2, 3, 4, 8)), { maxLength: 3 }), fc.nat(), fc.nat(), fc.boolean(),
      ({ gk }, splits, pickArray, pickSweep, fetchLike) => {
        let k = gk.kernel;
        for (const [pick, factor] of splits) {
          const names = k.domains.flatMap((d) => d.dims).filter((n) => k.inameTags[n] === undefined);
          if (names.length === 0) break;
          try {
            k = splitIname(k, names[pick % names.length]!, factor);
          } catch (e) {
            if (!(e instanceof LoomError)) throw e;
          }
        }
        const arrays = [...new Set(k.instructions.flatMap((i) => (i.kind === "assign" ? k.args.filter((a) => a.kind === "array").map((a) => a.name) : [])))];
        const array = arrays[pickArray % Math.max(1, arrays.length)];
        if (array === undefined) return;
        let readers: string[];
        try {
          readers = [...new Set(findAccesses(k, array).map((a) => a.insnId))];
        } catch (e) {
          if (e instanceof LoomError) return;
          throw e;
        }
        if (readers.length === 0) return;
        const inames = [...new Set(readers.flatMap((id) => instructionInames(k.instructions.find((i) => i.id === id)!)))];
        const sweep = inames.filter((_, j) => (pickSweep >> j) & 1);
        let wider: string[];
        let lean: Footprint;
        try {
          lean = accessFootprint(k, array, { sweepInames: sweep, dependsOnly: true });
        } catch (e) {
          if (e instanceof LoomError) return;
          throw e;
        }
        // As a fetch does: sweep every iname the lean footprint does not depend on; or a random superset.
        if (fetchLike) wider = inames.filter((n) => sweep.includes(n) || !lean.dependsOn.includes(n));
        else wider = [...new Set([...sweep, ...inames.filter((_, j) => (pickSweep >> (j + 8)) & 1)])];
        let exact: Footprint;
        try {
          exact = accessFootprint(k, array, { sweepInames: wider });
        } catch (e) {
          if (!(e instanceof LoomError)) throw e;
          expect(() => accessFootprint(k, array, { sweepInames: wider, from: lean })).toThrow(e.constructor as new () => Error);
          return;
        }
        const before = footprintReuses();
        const fast = accessFootprint(k, array, { sweepInames: wider, from: lean });
        if (footprintReuses() > before) taken++;
        expect(view(fast)).toEqual(view(exact));
      }), { numRuns: 80 });
    // The law is about the fast path: it must be taken often enough to be tested.
    expect(taken).toBeGreaterThan(10);
  });
});
