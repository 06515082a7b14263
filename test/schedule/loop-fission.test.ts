/**
 * A loop split into two by the loop order (tile, prioritize) runs every iteration of its first part
 * before the second (src/schedule/fission-check.ts): where a private scalar carries a value between
 * the parts, the schedule is refused instead of computing something else (found by V's carried-trip
 * law: tile(["it_trip", "j"], 2) on a while loop's trips ran the first @inner loop for both trips
 * before the counter's ++it, on the interpreter too).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ScheduleError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { prioritizeLoops, splitIname, tile } from "../../transforms/index.js";

/** s carried from trip t to trip t + 1; each trip writes out[t, j] = s + j after s = s + 1. */
const carry = makeKernel("{[t, j]: 0<=t<nt and 0<=j<nj}", [
  "<> s = 0 {id=init}",
  "s = s + 1 {id=bump, dep=init, inames=t}",
  "out[t, j] = s + j {id=use, dep=bump, inames=t:j}",
], ["out: int32[nt, nj]", "nt, nj: int32"], { name: "carry" });
const serial = (nt: number, nj: number) => Int32Array.from({ length: nt * nj }, (_, x) => Math.floor(x / nj) + 1 + (x % nj));

describe("a loop split around a carried private scalar", () => {
  it("is refused on the interpreter and every target, naming the loop, the instructions and the scalar", async () => {
    const tiled = tile(carry, ["t", "j"], [2, 2]);
    const err = await run(tiled, { nt: 4, nj: 4 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScheduleError);
    expect((err as Error).message).toMatch(/loop "t_inner" runs as two loops, one holding instruction "bump" and another "use".*private scalar "s"/);
    for (const t of ["c", "opencl", "cuda", "js"] as const) expect(() => generateCode(tiled, t), t).toThrow(ScheduleError);
  });

  it("law: every loop order of the tiled kernel either computes the serial meaning or is refused", async () => {
    const orders = ["t_outer,j_outer,t_inner,j_inner", "t_outer,t_inner,j_outer,j_inner", "j_outer,t_outer,t_inner,j_inner", "t_outer,j_outer,j_inner,t_inner"];
    let ran = 0;
    let refused = 0;
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 5 }), fc.constantFrom(...orders),
      async (ft, fj, nt, nj, order) => {
        const k = prioritizeLoops(splitIname(splitIname(carry, "t", ft), "j", fj), order);
        try {
          const out = (await run(k, { nt, nj })).out!;
          expect(Array.from(out as Int32Array), order).toEqual(Array.from(serial(nt, nj)));
          ran++;
        } catch (e) {
          if (!(e instanceof ScheduleError)) throw e;
          refused++;
        }
      }), { numRuns: 30, examples: [[2, 2, 4, 4, orders[0]!], [2, 2, 4, 4, orders[1]!]] });
    // Not vacuous: both outcomes occur (the examples give one of each).
    expect(ran).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it("a scalar written and read in one nest of the loop, or a hardware-parallel split, is not refused", async () => {
    const kept = prioritizeLoops(splitIname(splitIname(carry, "t", 2), "j", 2), "t_outer,t_inner,j_outer,j_inner");
    expect(Array.from((await run(kept, { nt: 4, nj: 4 })).out! as Int32Array)).toEqual(Array.from(serial(4, 4)));
    // A private scalar per work-item: each keeps its own copy across the loops around it.
    const perItem = makeKernel("{[i, j]: 0<=i<n and 0<=j<4}", ["<> v = a[i] * 2 {id=v}", "out[i, j] = v + j {id=o, dep=v}"],
      ["a: float32[n]", "out: float32[n, 4]", "n: int32"], { name: "per_item" });
    const gl = prioritizeLoops(splitIname(perItem, "i", 4, { outerTag: "g.0", innerTag: "l.0" }), "i_outer,j,i_inner");
    const a = Float32Array.from({ length: 8 }, (_, x) => x);
    expect(Array.from((await run(gl, { a, n: 8 })).out! as Float32Array)).toEqual(Array.from({ length: 32 }, (_, x) => 2 * Math.floor(x / 4) + (x % 4)));
  });
});
