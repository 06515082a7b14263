/**
 * realizeIlp gives a scalar written inside ilp lanes one copy per lane; a scalar that bounds a loop
 * (a domain parameter) cannot have copies (a loop bound reads one number). That refusal came as a
 * TransformError from deep inside withKernel; it is a ScheduleError from realizeIlp, naming the
 * scalar and the lane iname, on every backend. Tagged unr (or left a loop), the kernel runs.
 */
import { describe, expect, it } from "vitest";
import { ScheduleError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { tagInames } from "../../transforms/index.js";
import { parityBackends } from "../transforms/every-backend.js";

const kernel = (tag: string): Kernel => tagInames(makeKernel(["{[i]: 0<=i<4}", "[t] -> {[r]: 0<=r<t}"], [
  "<int32> t = cnt[i] {id=wt}",
  "out[i] = sum(r, 1) {id=use, dep=wt}",
], ["cnt, out: int32[4]"]), { i: tag });

const BACKENDS = parityBackends() as ("interp" | "js" | "c" | "openmp" | "opencl")[];

describe("a domain parameter written inside ilp lanes", () => {
  it("is refused by realizeIlp with a ScheduleError naming the scalar and the lane iname, for ilp, ilp.seq and vec, on every backend", async () => {
    const cnt = Int32Array.from([3, 0, 5, 1]);
    for (const tag of ["ilp", "ilp.seq", "vec"]) {
      for (const backend of BACKENDS) {
        const p = () => run(kernel(tag), { cnt }, { backend });
        await expect(p(), `${tag} ${backend}`).rejects.toBeInstanceOf(ScheduleError);
        await expect(p(), `${tag} ${backend}`).rejects.toThrow(
          new RegExp(`temporary "t" is written inside ilp iname "i" \\(tagged ${tag.replace(".", "\\.")}\\).*bounds the loop over "r"`));
      }
    }
  });

  it("tagged unr, it runs with its serial meaning", async () => {
    const cnt = Int32Array.from([3, 0, 5, 1]);
    for (const backend of BACKENDS) expect([...(await run(kernel("unr"), { cnt }, { backend })).out!], backend).toEqual([...cnt]);
  });
});
