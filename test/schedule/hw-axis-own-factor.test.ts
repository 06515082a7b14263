/**
 * Hardware axes read off the iname's own domain (device.ts `hwAxis`): where the iname's factor in
 * its own domain uses no parent iname, the chain of domains (its own and its parents') has the
 * same factor, so the axis is the same as read off the chain's factor (`hwAxisOfChain`, the exact
 * route) without intersecting the domains. The law, over random parent/child domains: the same
 * base and size, or the same ScheduleError.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { axisText } from "./axis-text.js";
import { makeKernel } from "../../src/parse/index.js";
import { hwAxis, hwAxisOfChain } from "../../src/schedule/device.js";
import { LoomError } from "../../src/errors.js";

/** A bound of a child iname: a constant, plus a multiple of a parameter, a parent iname or the other child iname. */
const term = fc.tuple(fc.integer({ min: -3, max: 3 }), fc.constantFrom("", "n", "io", "ii", "OTHER"));
const boundArb = fc.tuple(fc.integer({ min: -4, max: 20 }), fc.array(term, { maxLength: 2 }));
const childArb = fc.record({
  lower: boundArb,
  upper: boundArb,
  even: fc.boolean(),
  equal: fc.option(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom("n", "io", "0")), { nil: undefined }),
});

type Bound = [number, [number, string][]];

function boundText([constant, terms]: Bound, other: string): string {
  let s = String(constant);
  for (const [c, name] of terms) if (name !== "" && c !== 0) s += ` + ${c}*${name === "OTHER" ? other : name}`;
  return s;
}

interface Child { lower: Bound; upper: Bound; even: boolean; equal: [number, string] | undefined }

function childConstraints(x: string, other: string, spec: Child): string[] {
  const out = [`${boundText(spec.lower, other)} <= ${x}`, `${x} <= ${boundText(spec.upper, other)}`];
  if (spec.even) out.push(`${x} mod 2 = 0`);
  if (spec.equal) out.push(`${x} = ${spec.equal[0]}*${other} + ${spec.equal[1]}`);
  return out;
}


describe("hardware axes read off the iname's own factor", () => {
  it("are those read off the factor of its chain of domains", () => {
    let compared = 0;
    fc.assert(fc.property(fc.integer({ min: 1, max: 8 }), childArb, fc.option(childArb, { nil: undefined }), fc.boolean(), (tile, c0, c1, parentEq) => {
      const parent = `{[io, ii]: 0 <= ii < ${tile} and 0 <= ${tile}*io + ii < n${parentEq ? " and n mod 4 = 0" : ""}}`;
      const rows = [...childConstraints("f0", "f1", c0), ...(c1 ? childConstraints("f1", "f0", c1) : ["0 <= f1 < 4"])];
      let k;
      try {
        k = makeKernel([parent, `{[f0, f1]: ${rows.join(" and ")}}`], ["out[io, ii] = 1", "<> t = f0 + f1 {id=x}"], ["out: float32[n, 16]", "n: int32"], { name: "own" });
      } catch (e) {
        // A child domain the parser refuses (no kernel to ask about).
        if (e instanceof LoomError) return;
        throw e;
      }
      for (const iname of ["io", "ii", "f0", "f1"]) {
        for (const tag of ["g", "l"] as const) {
          expect(axisText(() => hwAxis(k, iname, tag, 0)), `${iname} ${tag} of ${k.domains.length} domains`).toBe(axisText(() => hwAxisOfChain(k, iname, tag, 0)));
          compared++;
        }
      }
    }), { numRuns: 70 });
    // The generator makes kernels (not only refused domains).
    expect(compared).toBeGreaterThan(70);
  });
});
