/**
 * Issue 15.12: an `l` iname whose extent depends on an outer loop. loopy's `test_chunk_iname`
 * (`chunk_iname(i, 3, inner_tag="l.0")` of `0 <= i < n`, the chunk's length depends on i_outer)
 * and a triangular inner loop on l.0: the work-group size is the maximum over the outer loops (the
 * hull of the iname's range, a bound in the parameters), each instruction guarded by its own
 * domain. A bound computed inside the kernel stays a ScheduleError naming the temporary. The law:
 * random triangles and chunks, with or without a local array and barrier, on every backend.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ScheduleError } from "../../src/errors.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { schedule } from "../../src/schedule/index.js";
import { chunkIname, prioritizeLoops } from "../../transforms/index.js";
import { tag } from "../run/parallel-helpers.js";
import { expectOnEveryBackend } from "../transforms/every-backend.js";

const ramp = (len: number) => Float32Array.from({ length: len }, (_, q) => (q % 11) - 3);

/** loopy's test_chunk_iname: out[i] = 2*a[i], i chunked into `chunks`, the inner part on l.0. */
function chunked(chunks: number, outerTag?: string) {
  const k = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "n: int32"]);
  const c = chunkIname(k, "i", chunks, { innerTag: "l.0", ...(outerTag ? { outerTag } : {}) });
  return outerTag ? c : prioritizeLoops(c, "i_outer, i_inner");
}

/** A triangle `0 <= j <= i < n` with j on l.0; `viaLocal`: each row goes through local memory (a barrier per row). */
function triangle(viaLocal: boolean) {
  const insns = viaLocal
    ? ["s[j] = a[i, j] {id=w}", "out[i, j] = s[i - j] + 1 {id=r, dep=w}"]
    : ["out[i, j] = a[i, j] + 1 {id=r}"];
  const args = ["a, out: float32[n, n]", "n: int32", ...(viaLocal ? [temporary("s", "float32", [16], "local")] : [])];
  return tag(makeKernel("{[i,j]: 0<=i<n and 0<=j<=i}", insns, args), { j: "l.0" });
}

function triangleRef(a: Float32Array, n: number, viaLocal: boolean): Float32Array {
  const out = new Float32Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) out[i * n + j] = a[i * n + (viaLocal ? i - j : j)]! + 1;
  return out;
}

describe("a local iname whose extent depends on an outer loop (15.12)", () => {
  it("loopy's test_chunk_iname (n = 130): the work-group size is the longest chunk, (n + 2)//3", async () => {
    const g = generateCode(chunked(3), "opencl");
    expect(g.kernels[0]!.localSize).toHaveLength(1);
    expect(g.kernels[0]!.localSize[0]).toMatch(/n \+ 2\) \/ 3/);
    expect(g.deviceCode).not.toContain("reqd_work_group_size");
    const a = ramp(130);
    await expectOnEveryBackend(chunked(3), { n: 130, a }, { out: a.map((x) => 2 * x) });
  });

  it("chunks on g.0 with the inner part on l.0: the work-group size is the maximum over the groups", async () => {
    for (const n of [0, 1, 7, 130]) {
      const a = ramp(n);
      await expectOnEveryBackend(chunked(4, "g.0"), { n, a }, { out: a.map((x) => 2 * x) });
    }
  });

  it("a triangle on l.0: work-groups of n work-items, `j <= i` kept by each work-item", async () => {
    const s = schedule(triangle(false));
    expect(s.deviceKernels[0]!.localAxes.map((ax) => ax.iname)).toEqual(["j"]);
    // `j <= i` bounds the loop over i of each work-item: `for (int i = lid(0); …)`.
    expect(generateCode(triangle(false), "opencl").deviceCode).toMatch(/for \(int i = lid\(0\); i <= n - 1;/);
    const a = ramp(49);
    await expectOnEveryBackend(triangle(false), { n: 7, a }, { out: triangleRef(a, 7, false) });
  });

  it("a triangle on l.0 through local memory: the barrier in the loop over i is reached by every work-item", async () => {
    const a = ramp(100);
    await expectOnEveryBackend(triangle(true), { n: 10, a }, { out: triangleRef(a, 10, true) });
  });

  it("an extent computed inside the kernel is a ScheduleError naming the temporary", () => {
    const k = tag(makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<=r}"], ["<int32> r = i {id=len}", "out[i,j] = a[i,j] + 1 {id=w, dep=len}"],
      ["a, out: float32[n,n]", "n: int32"]), { j: "l.0" });
    expect(() => schedule(k)).toThrow(ScheduleError);
    expect(() => schedule(k)).toThrow(/iname "j" is tagged l\.0, but its extent depends on "r", computed inside the kernel/);
  });

  it("law: random triangles and chunks compute the reference on every backend", async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 16 }), fc.boolean(), fc.integer({ min: 1, max: 5 }), fc.boolean(), async (n, viaLocal, chunks, onGroups) => {
      const a = ramp(n * n);
      await expectOnEveryBackend(triangle(viaLocal), { n, a }, { out: triangleRef(a, n, viaLocal) });
      const b = ramp(n);
      await expectOnEveryBackend(chunked(chunks, onGroups ? "g.0" : undefined), { n, a: b }, { out: b.map((x) => 2 * x) });
    }), { numRuns: 5 });
  });
});
