/**
 * The native backends run generated code for real and agree with the interpreter: the tiled,
 * prefetched matmul, a kernel whose private value survives a barrier (OCCA's @exclusive), global
 * barriers (several device kernels), reductions and every scalar dtype.
 */
import { describe, expect, it } from "vitest";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { run, runTimed } from "../../src/run/index.js";
import { addPrefetch, splitIname, tagInames } from "../../transforms/index.js";
import { availableNative, nativeAvailable, type NativeBackend } from "./native-helpers.js";

const ALL: NativeBackend[] = ["c", "openmp", "opencl", "cuda"];

function matmul() {
  return makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
    ["a, b: float32[n, n]", "c: float32[n, n]", "n: int32"], { name: "matmul" });
}

function tiledPrefetched() {
  let k = matmul();
  k = splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.1" });
  k = splitIname(k, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
  k = splitIname(k, "k", 16);
  k = addPrefetch(k, "a", { sweepInames: ["i_inner", "k_inner"] });
  return addPrefetch(k, "b", { sweepInames: ["k_inner", "j_inner"] });
}

const data = (len: number, seed: number) => Float32Array.from({ length: len }, (_, x) => (((x * 37 + seed * 11) % 17) - 8) / 4);

describe.each(ALL)("the %s backend", (backend) => {
  const skip = !nativeAvailable(backend);

  it.skipIf(skip)("runs the tiled matmul with a and b prefetched to local memory, as the interpreter does", async () => {
    const k = tiledPrefetched();
    for (const n of [16, 40, 1]) {
      const a = data(n * n, 1);
      const b = data(n * n, 2);
      const ref = (await run(matmul(), { a, b, n })).c as Float32Array;
      const got = (await run(k, { a, b, n }, { backend })).c as Float32Array;
      // Values are multiples of 1/16 summed in the same order: exact.
      expect(Array.from(got), `n=${n}`).toEqual(Array.from(ref));
    }
  });

  it.skipIf(skip)("keeps a private value across a barrier, one copy per work-item (OCCA's @exclusive)", async () => {
    const k = tagInames(makeKernel("{[g,l]: 0<=g<ng and 0<=l<16}", [
      "<float32> priv = a[16*g + l] {id=w}",
      "lm[l] = 2*priv {id=s, dep=w}",
      "out[16*g + l] = lm[15 - l] + priv {id=r, dep=s}",
    ], [temporary("lm", "float32", [16], "local"), "a, out: float32[16*ng]", "ng: int32"]), "g:g.0, l:l.0");
    const a = data(64, 3);
    const ref = await run(k, { a, ng: 4 });
    const got = await run(k, { a, ng: 4 }, { backend });
    expect(Array.from(got.out as Float32Array)).toEqual(Array.from(ref.out as Float32Array));
    const expected = Array.from({ length: 64 }, (_, x) => 2 * a[16 * Math.floor(x / 16) + 15 - (x % 16)]! + a[x]!);
    expect(Array.from(got.out as Float32Array)).toEqual(expected);
  });

  it.skipIf(skip)("runs a kernel split at a global barrier as several device kernels, in order", async () => {
    const k = tagInames(makeKernel("{[i,j]: 0<=i,j<n}", [
      "tmp[i] = 3*a[i] {id=first}",
      "... gbarrier {id=gb, dep=first}",
      "out[i] = tmp[n - 1 - i] + a[i] {id=second, dep=gb}",
    ], ["a, out, tmp: float32[n]", "n: int32"]), "i:g.0");
    const a = data(10, 4);
    const { outputs, kernelMs } = await runTimed(k, { a, n: 10 }, { backend });
    expect(Array.from(outputs.out as Float32Array)).toEqual(Array.from((await run(k, { a, n: 10 })).out as Float32Array));
    expect(kernelMs.length).toBeGreaterThanOrEqual(backend === "c" || backend === "openmp" ? 1 : 2);
    for (const t of kernelMs) expect(t).toBeGreaterThanOrEqual(0);
  });

  it.skipIf(skip)("passes every scalar dtype exactly and leaves the caller's arrays alone", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", [
      "o64[i] = x[i] + s64",
      "of[i] = y[i] * sf + sd",
      "ou8[i] = u[i] + su8",
    ], ["x, o64: int64[n]", "y, of: float64[n]", "u, ou8: uint8[n]", "s64: int64", "sf: float32", "sd: float64", "su8: uint8", "n: int32"]);
    const x = BigInt64Array.of(1n, -(2n ** 62n), 5n);
    const y = Float64Array.of(0.1, -2.5, 1e300);
    const u = Uint8Array.of(250, 3, 7);
    const args = { x, y, u, s64: 2n ** 40n + 1n, sf: 0.75, sd: 1 / 3, su8: 9, n: 3 };
    const ref = await run(k, args);
    const got = await run(k, args, { backend });
    for (const name of ["o64", "of", "ou8"]) expect(Array.from(got[name] as ArrayLike<unknown>), name).toEqual(Array.from(ref[name] as ArrayLike<unknown>));
    expect(Array.from(x)).toEqual([1n, -(2n ** 62n), 5n]);
  });

  it.skipIf(skip)("computes a sum reduction over a parametric range, n = 0 included", async () => {
    const k = splitIname(makeKernel("{[i,k]: 0<=i<n and 0<=k<m}", "s[i] = sum(k, w[i, k]*w[i, k])",
      ["w: float64[n, m]", "s: float64[n]", "n, m: int32"]), "i", 4, { outerTag: "g.0", innerTag: "l.0" });
    for (const [n, m] of [[7, 5], [0, 3], [3, 0]] as const) {
      const w = Float64Array.from({ length: n * m }, (_, x) => x * 0.5 - 3);
      const ref = await run(k, { w, n, m });
      expect(Array.from((await run(k, { w, n, m }, { backend })).s as Float64Array), `${n}x${m}`).toEqual(Array.from(ref.s as Float64Array));
    }
  });
});

describe("native backends are reported honestly", () => {
  // CI sets LOOM_REQUIRE_NATIVE=c,openmp,opencl,… after installing gcc and PoCL: there, a backend that
  // would be skipped is a failure instead. Its other entries (redis, webgpu) are checked by their own tests.
  const NATIVE: readonly string[] = ["c", "openmp", "opencl", "cuda"];
  const required = (process.env.LOOM_REQUIRE_NATIVE ?? "").split(",").map((s) => s.trim()).filter((s) => NATIVE.includes(s)) as NativeBackend[];
  it.skipIf(required.length === 0)(`the required backends run here (${required.join(", ") || "none required"})`, () => {
    expect(availableNative(required)).toEqual(required);
  });
});
