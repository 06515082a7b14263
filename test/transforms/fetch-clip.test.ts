/**
 * A fetch's clip predicates (transforms/fetch-clip.ts): a bound of the array's shape that a face
 * of the footprint's box proves is implied without an emptiness test. Law: whenever `boundByFace`
 * says so, no point of any footprint piece (nor of the box set) lies outside that bound (the exact
 * route's emptiness test on the pieces, of which the store's domain is a subset, agrees), over
 * random affine reads, splits (factors 1 to near int32), shapes and assumptions (parameters 0 and
 * 1 included); a sabotaged proof (one off) fails the same law. End to end: fetches whose reads go
 * past the array keep their predicates.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accessFootprint, exprToAff, FootprintError, type BoxAxis } from "../../src/analysis/index.js";
import { exprToString, findArg, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { aff, affAdd, affIsConstant, affSub, isEmptyWith, type Aff } from "../../src/poly/index.js";
import { addPrefetch, splitIname } from "../../transforms/index.js";
import { boundByFace } from "../../transforms/fetch-clip.js";

interface Case {
  readonly rank: 1 | 2;
  readonly lo: number;
  readonly hi: string;
  readonly coef: number;
  readonly off: number;
  readonly second: string;
  readonly shape: string;
  readonly factor: number;
  readonly assumptions: string;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  rank: fc.constantFrom(1 as const, 2 as const),
  lo: fc.constantFrom(0, 1, -2),
  hi: fc.constantFrom("n", "n + 2", "0", "1", "7"),
  coef: fc.constantFrom(1, 2, -1),
  off: fc.integer({ min: -2, max: 2 }),
  second: fc.constantFrom("j", "j + 1", "i + j", "0"),
  shape: fc.constantFrom("n", "n + 2", "8", "2*n", "1"),
  factor: fc.constantFrom(1, 2, 3, 16, 2 ** 30, 2 ** 31 - 1),
  assumptions: fc.constantFrom("", "n >= 1", "n >= 0", "n >= 64 and n mod 64 = 0", "0 <= n <= 2147483000"),
});

function kernelOf(c: Case): Kernel {
  const idx0 = `${c.coef}*i + ${c.off}`;
  const dom = c.rank === 1 ? `{[i]: ${c.lo} <= i < ${c.hi}}` : `{[i, j]: ${c.lo} <= i < ${c.hi} and 0 <= j < n}`;
  const read = c.rank === 1 ? `a[${idx0}]` : `a[${idx0}, ${c.second}]`;
  const shape = c.rank === 1 ? c.shape : `${c.shape}, n`;
  const out = c.rank === 1 ? "out[i]" : "out[i, j]";
  const k = makeKernel(dom, `${out} = ${read}`, [`a: float32[${shape}]`, `out: float32[${c.rank === 1 ? "n + 9" : "n + 9, n"}]`, "n: int32"],
    c.assumptions === "" ? { name: "clip" } : { name: "clip", assumptions: c.assumptions });
  return splitIname(k, "i", c.factor);
}

type Prove = (b: BoxAxis, side: "lower" | "upper", ext: Aff) => boolean;

/** Cases where `prove` claims a bound that some footprint point breaks, and how many bounds it proved. */
function check(cases: readonly Case[], prove: Prove): { broken: number; proved: number; asked: number } {
  let broken = 0;
  let proved = 0;
  let asked = 0;
  for (const c of cases) {
    const k = kernelOf(c);
    const sweep = c.rank === 1 ? ["i_inner"] : ["i_inner", "j"];
    let fp;
    try {
      fp = accessFootprint(k, "a", { sweepInames: sweep });
    } catch (e) {
      if (e instanceof FootprintError) continue;
      throw e;
    }
    const arg = findArg(k, "a");
    const shape = arg?.kind === "array" ? arg.shape ?? [] : [];
    fp.box.forEach((b, r) => {
      const ext = exprToAff(shape[r]!);
      if (!ext) return;
      const d = aff({ [fp.dims[r]!]: 1 });
      for (const side of ["lower", "upper"] as const) {
        asked++;
        if (!prove(b, side, ext)) continue;
        proved++;
        // A point outside: index <= -1, or index >= extent.
        const outside = side === "lower" ? affSub(aff({}, -1), d) : affSub(d, ext);
        if ([...fp.set, fp.boxSet].some((p) => !isEmptyWith(p, outside))) broken++;
      }
    });
  }
  return { broken, proved, asked };
}

const cases = fc.sample(caseArb, { numRuns: 120, seed: 2127 });

describe("fetch clip by the footprint box's faces", () => {
  it("a bound a face proves holds at every point of the footprint (exact emptiness test)", () => {
    const r = check(cases, boundByFace);
    expect(r.broken).toBe(0);
    // The law is exercised both ways: bounds proved, and bounds left to the exact route.
    expect(r.proved).toBeGreaterThan(20);
    expect(r.asked - r.proved).toBeGreaterThan(20);
  });

  it("a sabotaged proof (a face one past the bound accepted) breaks the law", () => {
    const oneOff: Prove = (b, side, ext) => (side === "lower"
      ? b.lowers.some((L) => affIsConstant(L) && L.constant >= -1)
      : b.uppers.some((U) => {
        const slack = affSub(affAdd(ext, aff({}, 0)), U);
        return affIsConstant(slack) && slack.constant >= 0;
      }));
    expect(check(cases, oneOff).broken).toBeGreaterThan(0);
  });

  it("a fetch whose reads go past the array keeps its predicates; one within it has only its loop's guard", () => {
    const shifted = splitIname(makeKernel("{[i]: 0 <= i < n}", "out[i] = a[i + 1] + a[i - 1]", ["a: float32[n]", "out: float32[n]", "n: int32"], { name: "shifted" }), "i", 16);
    const past = addPrefetch(shifted, "a", { sweepInames: ["i_inner"], defaultTag: null });
    const store = past.instructions.find((x) => x.id === "a_fetch_rule")!;
    // The reads' own guard (a tie to the outer loop), then both clips: i + 1 and i - 1 go past each end.
    expect(store.predicates.map(exprToString)).toEqual(["a_dim_0 + 16*i_outer <= n + 1", "0 < a_dim_0 + 16*i_outer", "a_dim_0 + 16*i_outer <= n"]);
    const inside = splitIname(makeKernel("{[i]: 0 <= i < n}", "out[i] = a[i]", ["a: float32[n]", "out: float32[n]", "n: int32"], { name: "inside" }), "i", 16);
    // Only the tie to the outer loop: both clips are proved (by the faces 0 and n - 1).
    expect(addPrefetch(inside, "a", { sweepInames: ["i_inner"], defaultTag: null }).instructions.find((x) => x.id === "a_fetch_rule")!.predicates.map(exprToString))
      .toEqual(["a_dim_0 + 16*i_outer < n"]);
  });
});
