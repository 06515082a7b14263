/** Mistakes a user makes with the run API get a LoomError that says what is accepted. */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";

const k = () => lp.makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "n: int32"]);

describe("user mistakes", () => {
  it("autoTestVsRef refuses an unknown option, suggesting the one meant (loopy's parameters=)", async () => {
    await expect(lp.autoTestVsRef(k(), k(), { parameters: { n: 4 } } as never)).rejects.toThrow(/autoTestVsRef: unknown option "parameters"; options are params, backend, rtol, seed/);
    await expect(lp.autoTestVsRef(k(), k(), { parms: { n: 4 } } as never)).rejects.toThrow(/did you mean "params"/);
    expect((await lp.autoTestVsRef(k(), k(), { params: { n: 4 } })).ok).toBe(true);
  });

  it("backendAvailability answers for every backend name and never throws", () => {
    expect(lp.backendAvailability("interp" as never)).toEqual({ available: true });
    expect(lp.backendAvailability("js" as never)).toEqual({ available: true });
    const bad = lp.backendAvailability("fortran" as never);
    expect(bad.available).toBe(false);
    expect(bad.reason).toMatch(/"fortran" is not a backend .*backends are interp, js, c, openmp, opencl, cuda/);
  });

  it("makeKernel's args as a string rather than a list is a LoomError saying so", () => {
    expect(() => lp.makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", "..." as never)).toThrow(lp.LoomError);
    expect(() => lp.makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", "..." as never)).toThrow(/args must be a list of argument specs.*"\.\.\." \(a string: put it in a list\)/);
  });
});
