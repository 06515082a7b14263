/**
 * Issue 15, point 5: a split iname bounded by a value computed inside the kernel cannot be a
 * hardware axis (axes are sized at launch): refused on every backend, naming the iname and the
 * temporary, where it silently wrote nothing. Left sequential, the same kernel runs.
 */
import { describe, expect, it } from "vitest";
import { ScheduleError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { splitIname, tagInames } from "../../transforms/index.js";
import { parityBackends } from "../transforms/every-backend.js";

const csr = () => makeKernel(["{[i]: 0<=i<n}", "{[jj]: 0<=jj<row_len}"], [
  "<> row_len = rowstarts[i+1] - rowstarts[i] {id=rl}",
  "out[rowstarts[i] + jj] = 2*a[rowstarts[i] + jj] {id=s, dep=rl}",
], ["rowstarts: int32[n+1]", "a, out: float32[m]", "..."]);

const args = { rowstarts: new Int32Array([0, 2, 5, 5, 9]), a: Float32Array.from({ length: 9 }, (_, i) => i + 1), n: 4, m: 9 };
const BACKENDS = parityBackends() as ("interp" | "js" | "c" | "openmp" | "opencl")[];

describe("an iname bounded by a computed value", () => {
  it("on a hardware axis is refused everywhere, naming the iname and the temporary", async () => {
    const k = tagInames(splitIname(csr(), "jj", 4, { outerTag: "g.1", innerTag: "l.1" }), { i: "g.0" });
    for (const backend of BACKENDS) {
      const r = run(k, args, { backend, checkBounds: false });
      await expect(r, backend).rejects.toBeInstanceOf(ScheduleError);
      await expect(run(k, args, { backend, checkBounds: false })).rejects.toThrow(/iname "jj_(outer|inner)" is tagged [gl]\.1, but its range depends on temporary "row_len", computed inside the kernel/);
    }
  });

  it("left sequential (with i parallel) runs and matches the reference", async () => {
    const k = tagInames(splitIname(csr(), "jj", 4), { i: "g.0" });
    const want = [...args.a].map((x) => 2 * x);
    for (const backend of BACKENDS) {
      expect([...(await run(k, args, { backend, checkBounds: false })).out!], backend).toEqual(want);
    }
  });
});
