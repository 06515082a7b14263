/**
 * Issue 15, point 9: `generateCode(k, t).hostCode` (loopy's host code: the launch sequence with
 * host loops and sizes) on each target, and what a host loop cannot be: bounded by a hardware
 * iname or a value computed in the kernel, or carrying private values across its device kernels.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ScheduleError } from "../../src/errors.js";
import { withKernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { schedule } from "../../src/schedule/index.js";
import { saveAndReloadTemporaries, splitIname, tagInames } from "../../transforms/index.js";
import { expectOnEveryBackend, parityBackends } from "../transforms/every-backend.js";
import { hostLoops } from "./schedule-kernels.js";

const BACKENDS = parityBackends() as ("interp" | "js" | "c" | "openmp" | "opencl")[];

describe("hostCode", () => {
  it("is the host loop around the launches on the C-like targets", () => {
    for (const t of ["c", "openmp", "opencl", "cuda"] as const) {
      const host = generateCode(hostLoops(), t).hostCode!;
      expect(host, t).toContain("for (int k = 0; k <= 2; ++k)\n{\n  knl");
      expect(host.indexOf("knl"), t).toBeLessThan(host.indexOf("knl_0"));
      expect(host, t).toContain(t === "cuda" ? "(c, out, n, k);" : "knl_0(c, out, n, k);");
    }
    expect(generateCode(hostLoops(), "cuda").hostCode).toContain("knl<<<dim3((n + 127) / 128), dim3(128)>>>(a, c, n, k);");
    expect(generateCode(hostLoops(), "opencl").hostCode).toContain("knl_0(c, out, n, k);  /* enqueued: (n + 127) / 128 groups of 128 work-items */");
  });

  it("is a JavaScript loop on js", () => {
    expect(generateCode(hostLoops(), "js").hostCode).toBe([
      "// host program: the device kernels, launched in order",
      "for (let k = 0; k <= 2; k++) {",
      "  knl(H, a, c, n, k);",
      "  knl_0(H, c, out, n, k);",
      "}",
      "",
    ].join("\n"));
  });

  it("device kernels inside a host loop take its iname as a value parameter", () => {
    const code = generateCode(hostLoops(), "opencl");
    expect(code.kernels.map((x) => x.args)).toEqual([["a", "c", "n", "k"], ["c", "out", "n", "k"]]);
    expect(code.deviceCode).toContain("__global float *__restrict__ c, int const n, int const k)");
  });

  it("is the plain launch sequence where no global barrier is inside a loop, and deviceCode takes no host iname", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["t[i] = a[i] {id=w}", "... gbarrier {id=gb, dep=w}", "out[i] = t[n-1-i] {id=r, dep=gb}"],
      ["a, t, out: float32[n]", "n: int32"], { name: "k" });
    const code = generateCode(k, "c");
    expect(code.hostCode).toBe("/* host program: the device kernels, launched in order */\nk(a, t, n);\nk_0(t, out, n);\n");
    expect(code.deviceCode).toContain("void k(float const *__restrict__ a, float *__restrict__ t, int32_t const n)");
  });

  it("prints bounds with floor division and min/max", () => {
    const k = tagInames(makeKernel("{ [i,k]: 0<=i<n and 0<=k and 2k<=n and k<m }", `
      for k, i
        c[k, i] = a[i] + k {id=w}
        ... gbarrier {id=gb, dep=w}
      end`, ["a: float32[n]", "c: float32[m, n]", "n, m: int32"], { name: "b" }), { i: "g.0" });
    expect(generateCode(k, "c").hostCode).toContain("for (int k = 0; k <= min(floord(n, 2), m - 1); ++k)");
    expect(generateCode(k, "js").hostCode).toContain("for (let k = 0; k <= Math.min(Math.floor(n / 2), m - 1); k++) {");
  });
});

describe("host loops that cannot be", () => {
  it("a loop bounded by a g iname is refused on every backend, naming the loop and the iname", async () => {
    const k = tagInames(makeKernel("{ [i,k]: 0<=i<n and 0<=k<=i }", `
      for i, k
        c[k, i] = a[i] {id=w}
        ... gbarrier {id=gb, dep=w}
        out[k, i] = c[k, n - 1 - i] {id=r, dep=gb}
      end`, ["a: float32[n]", "c, out: float32[n, n]", "n: int32"]), { i: "g.0" });
    expect(() => schedule(k)).toThrow(ScheduleError);
    for (const backend of BACKENDS) {
      await expect(run(k, { a: new Float32Array(4), c: new Float32Array(16), out: new Float32Array(16), n: 4 }, { backend }), backend)
        .rejects.toThrow(/global barrier "gb" is inside sequential loop "k", which runs on the host .* its bounds depend on the g\.0 iname "i"/);
    }
  });

  it("a loop bounded by a value computed in the kernel is refused, naming the value", () => {
    const k = makeKernel(["{[i]: 0<=i<n}", "{[k]: 0<=k<len}"], [
      "<int32> len = sizes[0] {id=l}",
      "c[k, i] = a[i] {id=w, dep=l}",
      "... gbarrier {id=gb, dep=w, inames=k}",
      "out[k, i] = c[k, n - 1 - i] {id=r, dep=gb}",
    ], ["sizes: int32[1]", "a: float32[n]", "c, out: float32[4, n]", "n: int32"]);
    expect(() => schedule(k)).toThrow(ScheduleError);
    expect(() => schedule(k)).toThrow(/sequential loop "k".* its bounds depend on "len", a value computed in the kernel/);
  });

  it("a private value written before a global barrier in the host loop and read after it is refused, and saved with saveAndReloadTemporaries", async () => {
    const k = splitIname(makeKernel("{ [i,k]: 0<=i<n and 0<=k<m }", `
      for k, i
        <> t = a[k, i] * 2 {id=w}
        ... gbarrier {id=gb, dep=w}
        out[k, i] = t + a[k, n - 1 - i] {id=r, dep=gb}
      end`, ["a, out: float32[m, n]", "n, m: int32"]), "i", 4, { outerTag: "g.0", innerTag: "l.0" });
    expect(() => schedule(k)).toThrow(/private temporary "t" is written by instruction "w" .* read by instruction "r" .* across global barrier "gb"/);
    const [n, m] = [6, 3];
    const a = Float32Array.from({ length: m * n }, (_, x) => x + 1);
    const want = Array.from({ length: m * n }, (_, x) => 2 * a[x]! + a[Math.floor(x / n) * n + n - 1 - (x % n)]!);
    await expectOnEveryBackend(saveAndReloadTemporaries(k), { a, n, m, out: new Float32Array(m * n) }, { out: want });
  });

  it("a private value carried to the next iteration of the host loop, across a global barrier, is refused", () => {
    const src = () => makeKernel("{ [i,k]: 0<=i<n and 0<=k<m }", `
      for k, i
        out[k, i] = t {id=r, dep=*}
        ... gbarrier {id=gb, dep=r}
        <> t = a[k, i] {id=w, dep=gb}
      end`, ["a, out: float32[m, n]", "n, m: int32"]);
    // Spreading i over work-items is refused first: r reads the t of the iteration of i before.
    expect(() => splitIname(src(), "i", 4, { outerTag: "g.0", innerTag: "l.0" })).toThrow(/"r" reads the private temporary "t" that "w" writes within "i_(outer|inner)"/);
    // Tags set on the IR directly (no transformation to refuse them): the schedule refuses.
    const k = withKernel(splitIname(src(), "i", 4), { inameTags: { i_outer: { kind: "g", axis: 0 }, i_inner: { kind: "l", axis: 0 } } });
    expect(() => schedule(k)).toThrow(/private temporary "t" is written by instruction "w" in device kernel .* and read by instruction "r"/);
  });
});
