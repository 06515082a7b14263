/**
 * duplicateInames leaves the original iname in the domain, used by no instruction once every
 * instruction has its copy; the copy's instructions see it projected out, an existential tied to
 * the copy (`exists r: 0 <= r <= 2 and 8*x < e - 56*r and …`) that Fourier–Motzkin cannot drop
 * exactly. The CPU lowering guarding a shared hardware axis refused such kernels ("existential
 * constraints; cannot guard it on a shared loop", 4-5 in 8,000 cases of the pipeline law); the
 * original iname (or what a split made of it) set to its copy satisfies every row wherever the
 * copy's own rows hold, so the existential goes, exactly. One such kernel also ran the lowering out
 * of memory (the context's own existentials carried into the elimination): now left out first.
 */
import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { tagInames } from "../../transforms/index.js";
import { applyPipeline, type PipelineJSON } from "../../transforms/pipeline.js";
import { privateBoundsSource } from "../transforms/gen-families.js";
import { availableNative } from "../run/native-helpers.js";

const source = privateBoundsSource("8*(i % 2)");
const kernel = tagInames(makeKernel([...source.domains], [...source.instructions], [...source.args], { name: "pb" }), { ...source.tags });

const CASES: Record<string, PipelineJSON> = {
  // A dead original (r_outer_inner) whose copy is a single iname: the witness is the copy.
  "one dead iname": [
    { op: "splitIname", args: ["r", 7, { innerTag: "g.1" }] }, { op: "splitIname", args: ["r_outer", 3] },
    { op: "duplicateInames", args: ["r_outer_inner", "id:u", "r_oi_d"] },
  ],
  // The dead original split after the copy (5*r_outer_outer + r_outer_inner): one existential once untied.
  "a dead iname split after the copy": [
    { op: "splitIname", args: ["r", 5, { innerTag: "l.1" }] }, { op: "duplicateInames", args: ["r_outer", "id:u", "r_outer_d"] },
    { op: "splitIname", args: ["r_outer", 5] },
  ],
  // Two dead originals: the other instructions' context has existentials too, made exact first.
  "two dead inames": [
    { op: "tile", args: [["r"], [7]] }, { op: "splitIname", args: ["r_inner", 2, { innerTag: "l.1" }] },
    { op: "duplicateInames", args: ["r_outer", "id:u", "r_outer_d"] }, { op: "duplicateInames", args: ["r_inner_outer", ["u"], "r_io_d"] },
  ],
  // Both halves of a tile copied, one copy split onto g.1 and l.1 (r_outer_inner := 8*d_outer + d_inner):
  // the other instructions' context has existentials; carried into the elimination, Fourier–Motzkin
  // over all of them ran out of memory (the pipeline law's worker died).
  "a copy split onto two axes": [
    { op: "splitIname", args: ["r", 5, { innerTag: "unr" }] }, { op: "tile", args: [["r_outer"], [2]] },
    { op: "duplicateInames", args: ["r_outer_outer", "id:u", "r_outer_outer_d"] }, { op: "duplicateInames", args: ["r_outer_inner", ["u"], "r_oi_d"] },
    { op: "splitIname", args: ["r_oi_d", 8, { outerTag: "g.1", innerTag: "l.1" }] },
  ],
};

describe("a copy of an iname on a CPU target's shared axis", () => {
  for (const [name, json] of Object.entries(CASES)) {
    it(`${name}: js computes what the interpreter computes`, async () => {
      const t = applyPipeline(kernel, json);
      for (const params of [{ n: 2, m: 26 }, { n: 1, m: 7 }, { n: 3, m: 0 }]) {
        expect((await autoTestVsRef(kernel, t, { params, backend: "js", seed: 3 })).mismatches, JSON.stringify(params)).toEqual([]);
      }
    });
  }

  it.skipIf(availableNative(["c"]).length === 0)("c too (the two dead inames)", async () => {
    const t = applyPipeline(kernel, CASES["two dead inames"]!);
    // The subscript reads s (a private value): native bounds proofs need affine ones; js checked every access above.
    expect((await autoTestVsRef(kernel, t, { params: { n: 2, m: 29 }, backend: "c", seed: 3, checkBounds: false })).mismatches).toEqual([]);
  }, 60_000);
});
