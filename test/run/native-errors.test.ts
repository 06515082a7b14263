/**
 * Crash-proofing of the native path: every wrong call is a clear LoomError before anything runs,
 * and the process stays alive to run the next kernel.
 */
import { describe, expect, it } from "vitest";
import { BackendUnavailableError, CodegenError, ExecutionError, LoomError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { nativeAvailable, type NativeBackend } from "./native-helpers.js";

const scale = () => makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "n: int32"], { name: "scale" });

describe.each(["c", "openmp", "opencl"] as NativeBackend[])("wrong calls on %s", (backend) => {
  const skip = !nativeAvailable(backend);

  it.skipIf(skip)("a wrong dtype, a short array, a missing parameter: LoomErrors naming the argument", async () => {
    const k = scale();
    await expect(run(k, { a: new Float64Array(4), n: 4 }, { backend })).rejects.toThrow(/argument "a" is float32.*Float64Array/);
    await expect(run(k, { a: new Float32Array(3), n: 4 }, { backend })).rejects.toThrow(/"a" needs at least 4 elements/);
    await expect(run(k, { a: 3 as never, n: 4 }, { backend })).rejects.toThrow(/pass a typed array/);
    await expect(run(k, { n: 4 }, { backend })).rejects.toThrow(/reads the array "a", which was not passed/);
    const two = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + b[i]", ["a, b, out: float32[n]", "n: int32"]);
    await expect(run(two, { a: new Float32Array(3), b: new Float32Array(4) }, { backend })).rejects.toThrow(/disagree on it: a gives n = 3, b gives n = 4/);
    // The process is alive and the backend still works.
    const out = (await run(k, { a: Float32Array.of(1, 2, 3) }, { backend })).out!;
    expect(Array.from(out as Float32Array)).toEqual([2, 4, 6]);
  });

  it.skipIf(skip)("an access outside its array is refused before native code runs", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i + 1]", ["a, out: float32[n]", "n: int32"], { name: "shifted" });
    const err = await run(k, { a: new Float32Array(8), n: 8 }, { backend }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExecutionError);
    expect((err as Error).message).toMatch(/instruction "\w+" reads a outside its bounds for n=8: axis 0 \(i \+ 1\) can be >= 8/);
    // Guarded accesses are proved with their predicates.
    const guarded = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i + 1] {if=i < n - 1}", ["a, out: float32[n]", "n: int32"]);
    expect(Array.from((await run(guarded, { a: Float32Array.of(1, 2, 3), n: 3 }, { backend })).out as Float32Array)).toEqual([2, 3, 0]);
  });

  it.skipIf(skip)("an indirect subscript is proved with what the index array holds this run; one it cannot prove is refused, unless the caller turns the check off", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a[idx[i]]", ["a, out: float32[n]", "idx: int32[n]", "n: int32"]);
    const args = { a: Float32Array.of(5, 6, 7), idx: Int32Array.of(2, 0, 1), n: 3 };
    expect(Array.from((await run(k, args, { backend })).out as Float32Array)).toEqual([7, 5, 6]);
    await expect(run(k, { ...args, idx: Int32Array.of(2, 3, 1) }, { backend })).rejects.toThrow(/reads a may be outside its bounds .*idx holds 1…3/);
    const squares = makeKernel("{[i]: 0<=i<n}", "out[i] = a[(i*i) % n]", ["a, out: float32[n]", "n: int32"]);
    await expect(run(squares, { a: args.a, n: 3 }, { backend })).rejects.toThrow(/not affine.*checkBounds: false/);
    expect(Array.from((await run(squares, { a: args.a, n: 3 }, { backend, checkBounds: false })).out as Float32Array)).toEqual([5, 6, 6]);
  });
});

describe("compilers", () => {
  const skip = !nativeAvailable("c");

  it.skipIf(skip)("generated code the C compiler rejects is a CodegenError quoting the compiler and the generated line", async () => {
    const err = await run(scale(), { a: Float32Array.of(1), n: 1 }, { backend: "c", flags: ["-O1", "-Dfloat=struct loom_no_such_type"] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CodegenError);
    expect((err as Error).message).toMatch(/the C compiler rejected the c code of kernel "scale"/);
    expect((err as Error).message).toMatch(/error: .*loom_no_such_type/);
    expect((err as Error).message).toMatch(/line \d+: out\[i\] = 2\.0f \* a\[i\];/);
  });

  it.skipIf(skip)("a compiler that does not exist: BackendUnavailableError saying what to install", async () => {
    const err = await run(scale(), { a: Float32Array.of(1), n: 1 }, { backend: "c", cc: "/nonexistent/cc" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendUnavailableError);
    expect((err as Error).message).toMatch(/apt-get install gcc.*LOOM_CC/);
  });

  it("the cuda backend without a GPU says what it needs", async () => {
    if (nativeAvailable("cuda")) return;
    const err = await run(scale(), { a: Float32Array.of(1), n: 1 }, { backend: "cuda" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoomError);
    expect(err).toBeInstanceOf(BackendUnavailableError);
  });
});
