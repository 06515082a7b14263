/** `autoTestVsRef` compares a kernel with a reference on the same seeded random inputs. */
import { describe, expect, it } from "vitest";
import { BackendUnavailableError } from "../../src/errors.js";
import { globalArg, makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { nativeAvailable } from "./native-helpers.js";

const ref = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "y[i] = sum(j, a[i,j]*x[j])", ["a: float32[n,n]", "x: float32[n]", "..."]);

describe("autoTestVsRef", () => {
  it("accepts an equivalent kernel", async () => {
    const same = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "y[i] = sum(j, x[j]*a[i,j])", ["a: float32[n,n]", "x: float32[n]", "..."]);
    const res = await autoTestVsRef(ref, same, { params: { n: 17 } });
    expect(res).toEqual({ ok: true, maxRelError: 0, mismatches: [] });
  });

  it("matches elements by logical index across layouts", async () => {
    const fOrder = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "y[i] = sum(j, a[i,j]*x[j])",
      [globalArg("a", "float32", ["n", "n"], { order: "F" }), "x: float32[n]", "..."]);
    expect((await autoTestVsRef(ref, fOrder, { params: { n: 5 } })).ok).toBe(true);
  });

  it("reports the first differences readably", async () => {
    const wrong = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "y[i] = sum(j, a[i,j]*x[j]) + if(i == 3, 1, 0)", ["a: float32[n,n]", "x: float32[n]", "..."]);
    const res = await autoTestVsRef(ref, wrong, { params: { n: 6 }, seed: 4 });
    expect(res.ok).toBe(false);
    expect(res.mismatches).toHaveLength(1);
    expect(res.mismatches[0]).toMatch(/^y\[3\]: expected -?[\d.e-]+, got -?[\d.e-]+$/);
    expect(res.maxRelError).toBeGreaterThan(1e-5);
  });

  it("is deterministic in its seed", async () => {
    const wrong = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "y[i] = 0.5 * sum(j, a[i,j]*x[j])", ["a: float32[n,n]", "x: float32[n]", "..."]);
    const r1 = await autoTestVsRef(ref, wrong, { params: { n: 4 }, seed: 7 });
    const r2 = await autoTestVsRef(ref, wrong, { params: { n: 4 }, seed: 7 });
    const r3 = await autoTestVsRef(ref, wrong, { params: { n: 4 }, seed: 8 });
    expect(r1).toEqual(r2);
    expect(r1.mismatches).not.toEqual(r3.mismatches);
  });

  it("compares integers exactly", async () => {
    const a = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a: int32[n]", "..."]);
    const b = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + a[i]", ["a: int32[n]", "..."]);
    const c = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + a[i] + if(i == 0, 1, 0)", ["a: int32[n]", "..."]);
    expect((await autoTestVsRef(a, b, { params: { n: 10 } })).ok).toBe(true);
    expect((await autoTestVsRef(a, c, { params: { n: 10 } })).mismatches[0]).toMatch(/^out\[0\]: expected -?\d+, got -?\d+$/);
  });

  it("gives untyped arrays float64 data", async () => {
    const a = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]");
    const b = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + a[i]");
    expect(await autoTestVsRef(a, b, { params: { n: 8 } })).toEqual({ ok: true, maxRelError: 0, mismatches: [] });
  });

  it("fails when the argument lists disagree", async () => {
    const other = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "y[i] = sum(j, a[i,j]*x[j])", ["a: float64[n,n]", "x: float32[n]", "..."]);
    const res = await autoTestVsRef(ref, other, { params: { n: 3 } });
    expect(res.ok).toBe(false);
    expect(res.mismatches[0]).toMatch(/argument "a": reference has array float32, kernel has array float64/);
  });

  it("reports a kernel that fails to run", async () => {
    const oob = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "y[i] = sum(j, a[i,j]*x[j+1])", ["a: float32[n,n]", "x: float32[n]", "..."]);
    const res = await autoTestVsRef(ref, oob, { params: { n: 3 } });
    expect(res.ok).toBe(false);
    expect(res.mismatches[0]).toMatch(/the kernel failed .*out of bounds/);
  });

  it.skipIf(!nativeAvailable("c"))("passes checkBounds to the run of the kernel: false runs what the bounds proof cannot prove", async () => {
    // (i*i) % n is inside a[n] for every i, but not affine: the static proof cannot show it.
    const sq = makeKernel("{[i]: 0<=i<n}", "out[i] = a[(i*i) % n]", ["a, out: float64[n]", "n: int32"]);
    const refused = await autoTestVsRef(sq, sq, { params: { n: 7 }, backend: "c" });
    expect(refused.mismatches[0]).toMatch(/the kernel failed where the reference ran: .*not affine .* cannot prove/);
    expect(await autoTestVsRef(sq, sq, { params: { n: 7 }, backend: "c", checkBounds: false })).toEqual({ ok: true, maxRelError: 0, mismatches: [] });
    await expect(autoTestVsRef(sq, sq, { params: { n: 7 }, checkBounds: "no" as never })).rejects.toThrow(/autoTestVsRef: checkBounds must be true or false; got "no"/);
  });

  // Where CUDA runs (a GPU machine), the same call compares the CUDA run with the reference instead.
  it("passes backend errors through: cuda without a GPU (with one, it runs and agrees)", async () => {
    const res = autoTestVsRef(ref, ref, { params: { n: 3 }, backend: "cuda" });
    if (nativeAvailable("cuda")) expect((await res).ok).toBe(true);
    else await expect(res).rejects.toThrow(BackendUnavailableError);
  });
});
