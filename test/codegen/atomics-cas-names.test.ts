/**
 * The compare-and-swap loop of a float atomic declares loopy_p, loopy_v, loopy_seen and loopy_old:
 * a user name spelled like one of them is renamed, so the loop never shadows the value it stores.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { tagInames } from "../../transforms/index.js";
import { availableNative } from "../run/native-helpers.js";

const NAMES = ["loopy_p", "loopy_v", "loopy_seen", "loopy_old"];

/** r[0] = max(r[0], <each name's value>) for 32 work-items, the value read through the user's names. */
function kernel() {
  const value = NAMES.map((n) => `${n}[8*io+ii]`).join(" + ");
  return tagInames(makeKernel("{[io,ii]: 0<=io<4 and 0<=ii<8}", `r[0] = max(r[0], ${value}) {id=u, atomic}`,
    [...NAMES.map((n) => `${n}: float32[32]`), "r: float32[1]"], { name: "cas" }), { io: "g.0", ii: "l.0" });
}

describe("the CAS loop's locals never shadow user names", () => {
  for (const target of ["opencl", "cuda", "hip", "cucl"] as const) {
    it(`${target}: each user name is renamed where the CAS loop declares its own`, () => {
      const code = generateCode(kernel(), target).deviceCode;
      expect(code).toMatch(/loopy_seen/);   // the CAS loop is there
      // The user's arrays are subscripted; the loop's locals never are.
      for (const n of NAMES) expect(code).not.toMatch(new RegExp(`\\b${n}\\[`));
    });
  }

  it.skipIf(!availableNative(["opencl"]).includes("opencl"))("opencl: the maximum is the interpreter's", async () => {
    const args = Object.fromEntries(NAMES.map((n, j) => [n, Float32Array.from({ length: 32 }, (_, i) => ((i * 7 + j * 3) % 19) - 9)]));
    const want = await run(kernel(), { ...args, r: new Float32Array([-100]) });
    const got = await run(kernel(), { ...args, r: new Float32Array([-100]) }, { backend: "opencl" });
    expect(Array.from(got.r as Float32Array)).toEqual(Array.from(want.r as Float32Array));
  });
});
