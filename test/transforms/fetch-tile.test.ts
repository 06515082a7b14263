/**
 * A fetch whose reads are a tile (one read, each index `g + s` for its own sweep iname `s` of
 * constant range, the other bounds of `s + g` by parameters) takes its footprint and store domain
 * by construction (transforms/fetch-tile.ts) instead of projections and a gist. The law: the same
 * kernel (JSON, field order and set rows too) or the same refusal as the general route, over tiled
 * kernels (tiles that divide the extent and tiles that do not), transposed and shifted reads,
 * constant and parametric extents, assumptions, sweeps and tags.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { addPrefetch, splitIname, type PrefetchOptions } from "../../transforms/index.js";
import { tileFetches, useTileFetch } from "../../transforms/fetch-tile.js";
import { routeOutcome } from "./route-outcome.js";
import { ASSUME, FACTORS, tiledKernel } from "./tiled-shapes.js";

/** Reads the tiled shapes do not draw: transposed, shifted, constant extents, a guarded reader. */
const OTHER = ["transposed", "shifted", "constant", "guarded", "twice"] as const;

function otherKernel(shape: (typeof OTHER)[number], ti: number, tj: number, assume: string | undefined): Kernel {
  const opts = { name: shape, ...(assume === undefined ? {} : { assumptions: assume }) };
  const args = shape === "constant" ? ["a: float32[48,n]", "z: float32[48,n]", "n: int32"] : ["a: float32[n,n]", "z: float32[n,n]", "n: int32"];
  let k = shape === "transposed"
    ? makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "z[i,j] = a[j,i]", args, opts)
    : shape === "shifted"
      ? makeKernel("{[i,j]: 0<=i<n-1 and 0<=j<n}", "z[i,j] = a[i+1,j]", args, opts)
      : shape === "constant"
        ? makeKernel("{[i,j]: 0<=i<48 and 0<=j<n}", "z[i,j] = 3*a[i,j]", args, opts)
        : shape === "guarded"
          ? makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "z[i,j] = a[i,j]  {if=i>=1}", args, opts)
          : makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "z[i,j] = a[i,j]*a[i,j]", args, opts);
  k = splitIname(k, "i", ti, { outerTag: "g.0", innerTag: "l.1" });
  return splitIname(k, "j", tj, { outerTag: "g.1", innerTag: "l.0" });
}

/** The tile of each axis (the inner inames the read uses), or a part of it, or more. */
const SWEEP_KINDS = ["tile", "tile", "tile", "tile", "first", "last", "more"] as const;

function sweepOf(shape: string, array: string, kind: (typeof SWEEP_KINDS)[number]): string[] {
  const tile = shape === "matmul" ? (array === "a" ? ["i_inner", "k_inner"] : ["k_inner", "j_inner"]) : ["i_inner", "j_inner"];
  if (kind === "first") return tile.slice(0, 1);
  if (kind === "last") return tile.slice(1);
  return kind === "more" ? [...tile, tile[0]!.replace("inner", "outer")] : tile;
}
const TAGS = [undefined, null, "l.auto"] as const;


/**
 * The prefetch of `a` (or `b` of a matmul) in a tiled kernel of `shape`: the tile route gives the
 * general route's outcome, and is taken.
 */
function expectTileRouteAgrees(shape: string, ti: number, tj: number, tk: number, assume: string | undefined, groups: boolean, tag: (typeof TAGS)[number], arrayB: boolean): void {
  const k = shape === "matmul" ? tiledKernel(shape, ti, tj, tk, assume, groups) : otherKernel(shape as (typeof OTHER)[number], ti, tj, assume);
  const array = shape === "matmul" && arrayB ? "b" : "a";
  const opts: PrefetchOptions = { sweepInames: sweepOf(shape, array, "tile"), ...(tag === undefined ? {} : { defaultTag: tag }) };
  const general = routeOutcome(useTileFetch, false, () => addPrefetch(k, array, opts));
  const before = tileFetches();
  expect(routeOutcome(useTileFetch, true, () => addPrefetch(k, array, opts))).toBe(general);
  expect(tileFetches()).toBe(before + 1);
}
describe("a tile fetch by construction", () => {
  it("law: the kernel (or refusal) of the general route", () => {
    const before = tileFetches();
    let cases = 0;
    fc.assert(fc.property(
      // (Weighted toward the reads the route takes: tiles of a matmul, a transposed read, constant extents.)
      fc.constantFrom("matmul", "matmul", "matmul", "stencil", "triangle", ...OTHER, "transposed", "constant"),
      fc.constantFrom(...FACTORS), fc.constantFrom(...FACTORS), fc.constantFrom(...FACTORS),
      fc.constantFrom(...ASSUME, "n mod 16 = 0 and n >= 16", "n mod 16 = 0 and n >= 16", "n mod 8 = 0 and n >= 8"), fc.boolean(), fc.constantFrom(...SWEEP_KINDS), fc.constantFrom(...TAGS), fc.boolean(),
      (shape, ti, tj, tk, assume, groups, sweepKind, tag, arrayB) => {
        const k = (OTHER as readonly string[]).includes(shape)
          ? otherKernel(shape as (typeof OTHER)[number], ti, tj, assume)
          : tiledKernel(shape, ti, tj, tk, assume, groups);
        const array = shape === "matmul" && arrayB ? "b" : "a";
        const opts: PrefetchOptions = { sweepInames: sweepOf(shape, array, sweepKind), ...(tag === undefined ? {} : { defaultTag: tag }) };
        const general = routeOutcome(useTileFetch, false, () => addPrefetch(k, array, opts));
        const tile = routeOutcome(useTileFetch, true, () => addPrefetch(k, array, opts));
        expect(tile).toBe(general);
        cases++;
      },
    ), { numRuns: 30 });
    // Some took the route by construction (most fall back: the next law draws those that take it).
    expect(tileFetches() - before).toBeGreaterThan(0);
    expect(cases).toBe(30);
  });

  it("law: tiles that divide the extent take the route, and agree", () => {
    const DIVIDING = [2, 4, 8, 16] as const;
    fc.assert(fc.property(
      fc.constantFrom("matmul", "transposed", "constant"), fc.constantFrom(...DIVIDING), fc.constantFrom(...DIVIDING), fc.constantFrom(...DIVIDING),
      fc.constantFrom(...TAGS), fc.boolean(),
      (shape, ti, tj, tk, tag, arrayB) => expectTileRouteAgrees(shape, ti, tj, tk, "n mod 16 = 0 and n >= 16", true, tag, arrayB),
    ), { numRuns: 25 });
  });

  it("agrees on a value parameter in an index, a kernel of two domains, three axes, and a kernel that never runs", () => {
    const assumptions = "n mod 16 = 0 and n >= 16 and m >= 0";
    const split2 = (k: Kernel) => splitIname(splitIname(k, "i", 8, { outerTag: "g.0", innerTag: "l.1" }), "j", 4, { outerTag: "g.1", innerTag: "l.0" });
    const cases: [Kernel, boolean][] = [
      [split2(makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "z[i,j] = a[i+m,j]", ["a: float32[n+m,n]", "z: float32[n,n]", "n, m: int32"], { name: "v", assumptions })), true],
      [split2(makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<n}"], "z[i,j] = a[i,j]", ["a, z: float32[n,n]", "n: int32"], { name: "two", assumptions })), true],
      [splitIname(split2(makeKernel("{[i,j,l]: 0<=i<n and 0<=j<n and 0<=l<8}", "z[i,j,l] = a[l,j,i]", ["a: float32[8,n,n]", "z: float32[n,n,8]", "n: int32"], { name: "three", assumptions })), "l", 2), true],
      // No point: the general route's refusal (the emptiness is asked of the unsplit domain).
      [splitIname(makeKernel("{[i]: 0<=i<n}", "z[i] = a[i]", ["a, z: float32[n]", "n: int32"], { name: "never", assumptions: "n <= 0" }), "i", 4, { outerTag: "g.0", innerTag: "l.0" }), false],
    ];
    for (const [k, takes] of cases) {
      const sweepInames = ["i_inner", "j_inner", "l_inner"].filter((n) => k.domains.some((d) => d.dims.includes(n)));
      const general = routeOutcome(useTileFetch, false, () => addPrefetch(k, "a", { sweepInames }));
      const before = tileFetches();
      expect(routeOutcome(useTileFetch, true, () => addPrefetch(k, "a", { sweepInames }))).toBe(general);
      expect(tileFetches() - before).toBe(takes ? 1 : 0);
    }
  });

  it("law: tiles that do not divide the extent take the route too (the last tile's bound by n kept), and agree", () => {
    const ODD = [3, 5, 6, 12] as const;
    fc.assert(fc.property(
      fc.constantFrom("matmul", "transposed", "shifted"), fc.constantFrom(...ODD, 4), fc.constantFrom(...ODD), fc.constantFrom(...ODD, 8),
      fc.constantFrom("n mod 16 = 0 and n >= 16", "n >= 5", undefined), fc.boolean(), fc.constantFrom(...TAGS), fc.boolean(),
      // (The shifted read's lower face i + 1 >= 1 is above its base on no tile, so it takes the route too.)
      (shape, ti, tj, tk, assume, groups, tag, arrayB) => expectTileRouteAgrees(shape, ti, tj, tk, assume, groups, tag, arrayB),
    ), { numRuns: 40 });
  });

  it("the tiled matmul's fetches of a and b both take it, with a tile that divides n and one that does not", () => {
    const assume = "n mod 64 = 0 and n >= 64";
    const before = tileFetches();
    let k = tiledKernel("matmul", 16, 8, 16, assume, true);
    k = addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"] });
    addPrefetch(k, "b", { sweepInames: ["k_inner", "j_inner"] });
    expect(tileFetches() - before).toBe(2);
    // 3 does not divide n: the store keeps a bound by n (in its domain: i_outer is a g iname), as the general route's domain does.
    const odd = tiledKernel("matmul", 3, 8, 16, assume, true);
    const general = routeOutcome(useTileFetch, false, () => addPrefetch(odd, "a", { sweepInames: ["i_inner", "k_inner"] }));
    const mid = tileFetches();
    expect(routeOutcome(useTileFetch, true, () => addPrefetch(odd, "a", { sweepInames: ["i_inner", "k_inner"] }))).toBe(general);
    expect(general).toContain("n");
    expect(tileFetches()).toBe(mid + 1);
  });
});
