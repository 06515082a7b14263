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
import { clearPolyMemos } from "../../src/poly/index.js";
import { tagInames } from "../../transforms/index.js";
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
