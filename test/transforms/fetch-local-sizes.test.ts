/**
 * The work-group sizes a fetch's l.auto tags split or widen to (fetch-tags.ts `localSizes`) read
 * off each local iname's factor of its domain are those read off its iteration domain (the exact
 * route): over random domains of independent factors (tiles, triangles, strides, boxes, constants
 * up to near the int32 limit, parameter parts with a modulus), random local tags, and domains with
 * a parent (where the exact route runs).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { clearPolyMemos, polyCounts } from "../../src/poly/index.js";
import { splitIname, tagInames } from "../../transforms/index.js";
import { localSizes, useLocalSizesByFactor } from "../../transforms/fetch-tags.js";
import type { Kernel } from "../../src/ir/index.js";
import { domainFactor, factorText } from "../poly/domain-factors.js";

const factor = domainFactor(true);
const text = factorText;

/** `localSizes` of `k` by the factor route or the exact one, memos emptied first. */
function sizes(k: Kernel, byFactor: boolean): [number, number][] {
  clearPolyMemos();
  useLocalSizesByFactor(byFactor);
  try {
    return [...localSizes(k, new Set())].sort((a, b) => a[0] - b[0]);
  } finally {
    useLocalSizesByFactor(true);
  }
}

describe("work-group sizes read off an iname's factor", () => {
  it("law: the sizes the exact route (the iname's iteration domain) gives", () => {
    let sized = 0;
    fc.assert(fc.property(
      fc.array(factor, { minLength: 1, maxLength: 3 }), fc.constantFrom("", " and n mod 4 = 0", " and n >= 1", " and n <= 6"),
      fc.array(fc.tuple(fc.nat(5), fc.constantFrom("l.0", "l.1", "l.2")), { maxLength: 3 }), fc.boolean(),
      (fs, params, picks, nested) => {
        const names = fs.flatMap((_, r) => [`x${r}`, `y${r}`]);
        const dom = `{[${names.join(",")}]: ${fs.map((f, r) => text(f, `x${r}`, `y${r}`)).join(" and ")}${params}}`;
        // A child domain whose iname depends on a parent's (the exact route runs for it).
        const domains = nested ? [dom, `[x0] -> {[z]: 0 <= z <= x0 and z < 8}`] : [dom];
        const body = nested ? "out[x0, z] = 1" : "out[0, 0] = 1";
        let k = makeKernel(domains, body, ["out: float32[n, n]", "n: int32"]);
        const all = nested ? [...names, "z"] : names;
        const tags: Record<string, string> = {};
        const used = new Set<string>();
        for (const [p, t] of picks) {
          const iname = all[p % all.length]!;
          if (tags[iname] !== undefined || used.has(t)) continue;
          tags[iname] = t;
          used.add(t);
        }
        try {
          k = tagInames(k, tags);
        } catch {
          return; // an l tag on an iname with no value: refused alike by both routes (no sizes asked)
        }
        const exact = sizes(k, false);
        expect(sizes(k, true)).toEqual(exact);
        sized += exact.length;
      }), { numRuns: 80 });
    // Not vacuous: sizes were found and compared.
    expect(sized).toBeGreaterThan(20);
  });
});

describe("work-group sizes of a domain split from another", () => {
  it("law: after a split of another iname, the factor route still gives the exact route's sizes", () => {
    let compared = 0;
    fc.assert(fc.property(
      fc.array(factor, { minLength: 1, maxLength: 3 }), fc.array(fc.tuple(fc.nat(5), fc.constantFrom("l.0", "l.1")), { minLength: 1, maxLength: 2 }),
      fc.nat(5), fc.constantFrom(2, 3, 16),
      (fs, picks, pick, by) => {
        const names = fs.flatMap((_, r) => [`x${r}`, `y${r}`]);
        let k = makeKernel(`{[${names.join(",")}]: ${fs.map((f, r) => text(f, `x${r}`, `y${r}`)).join(" and ")}}`, "out[0, 0] = 1", ["out: float32[n, n]", "n: int32"]);
        const tags: Record<string, string> = {};
        for (const [p, t] of picks) if (!Object.values(tags).includes(t)) tags[names[p % names.length]!] = t;
        const other = names[pick % names.length]!;
        if (tags[other] !== undefined) return;
        try {
          k = tagInames(k, tags);
        } catch {
          return; // an l tag on an iname with no value
        }
        // The sizes of the unsplit kernel asked first: the split one may then ask its domain.
        sizes(k, true);
        const split = splitIname(k, other, by);
        useLocalSizesByFactor(false);
        let exact: [number, number][];
        try {
          exact = [...localSizes(split, new Set())].sort((a, b) => a[0] - b[0]);
        } finally {
          useLocalSizesByFactor(true);
        }
        expect([...localSizes(split, new Set())].sort((a, b) => a[0] - b[0])).toEqual(exact);
        compared += exact.length;
      }), { numRuns: 80 });
    expect(compared).toBeGreaterThan(5);
  });

  it("a split of an iname in another factor (a sweep's k tile) factors nothing new", () => {
    const mm = makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])", ["a, b, c: float32[n,n]", "n: int32"],
      { assumptions: "n mod 64 = 0 and n >= 64" });
    const ij = splitIname(splitIname(mm, "i", 16, { outerTag: "g.0", innerTag: "l.1" }), "j", 8, { outerTag: "g.1", innerTag: "l.0" });
    expect([...localSizes(ij, new Set())].sort()).toEqual([[0, 8], [1, 16]]);
    const before = polyCounts().factorings;
    for (const tk of [2, 4, 32]) expect([...localSizes(splitIname(ij, "k", tk), new Set())].sort()).toEqual([[0, 8], [1, 16]]);
    expect(polyCounts().factorings - before).toBe(0);
  });
});
