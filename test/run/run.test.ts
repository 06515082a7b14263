/** `run`: argument checking, outputs, non-mutation and the backend registry. */
import { describe, expect, it } from "vitest";
import { ExecutionError } from "../../src/errors.js";
import { getBackend, run } from "../../src/run/index.js";
import { withKernel } from "../../src/ir/index.js";
import { globalArg, makeKernel } from "../../src/parse/index.js";

const scale = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] {id=scale}", ["a: float32[n]", "out: float32[n]", "n: int32"]);

describe("arguments", () => {
  it("rejects unknown argument names, listing the real ones", async () => {
    await expect(run(scale, { a: new Float32Array(2), n: 2, b: 1 })).rejects.toThrow(/no argument "b".*a, out, n/);
  });

  it("rejects a missing value argument that no array's length gives", async () => {
    const p = run(makeKernel("{[i]: 0<=i<n}", "out[i] = 2*i", ["out: float32[n]", "n: int32"]), {});
    await expect(p).rejects.toThrow(ExecutionError);
    await expect(p).rejects.toThrow(/value argument "n"/);
  });

  it("infers a missing parameter from the arrays' lengths where that is unambiguous", async () => {
    expect(Array.from((await run(scale, { a: Float32Array.of(1, 2) })).out as Float32Array)).toEqual([2, 4]);
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i, j] = a[i, j] + b[j]", ["a, out: float32[n, m]", "b: float32[m]", "n, m: int32"]);
    const res = await run(k, { a: new Float32Array(6).fill(1), b: Float32Array.of(1, 2, 3) });
    expect(Array.from(res.out as Float32Array)).toEqual([2, 3, 4, 2, 3, 4]);
    const sq = makeKernel("{[i,j]: 0<=i,j<n}", "out[i, j] = a[i, j]", ["a, out: float32[n, n]", "n: int32"]);
    expect((await run(sq, { a: new Float32Array(9) })).out!.length).toBe(9);
    await expect(run(sq, { a: new Float32Array(8) })).rejects.toThrow(/value argument "n"/);
  });

  it("rejects an array of the wrong dtype, saying which was expected", async () => {
    await expect(run(scale, { a: new Float64Array(2), n: 2 })).rejects.toThrow(/"a" is float32, stored in a Float32Array; got a Float64Array/);
  });

  it("rejects an array shorter than its shape needs", async () => {
    await expect(run(scale, { a: new Float32Array(3), n: 4 })).rejects.toThrow(/"a" needs at least 4 elements .* got 3/);
  });

  it("rejects a number for an array and an array for a value", async () => {
    await expect(run(scale, { a: 3, n: 2 })).rejects.toThrow(/"a" is an array of float32; pass a typed array/);
    await expect(run(scale, { a: new Float32Array(2), n: new Int32Array(1) })).rejects.toThrow(/"n" is a value .* pass a number/);
  });

  it("rejects a value that is not an integer or does not fit its dtype", async () => {
    await expect(run(scale, { a: new Float32Array(4), n: 4.5 })).rejects.toThrow(/"n" is int32, so it needs an integer; got 4.5/);
    await expect(run(scale, { a: new Float32Array(4), n: 2 ** 40 })).rejects.toThrow(/"n" is int32; 1099511627776 is outside its range -2147483648…2147483647/);
    const u8 = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + c", ["a: float32[n]", "out: float32[n]", "n: int32", "c: uint8"]);
    await expect(run(u8, { a: new Float32Array(1), n: 1, c: 256 })).rejects.toThrow(/"c" is uint8; 256 is outside its range 0…255/);
  });

  it("rejects a missing input array", async () => {
    await expect(run(scale, { n: 2 })).rejects.toThrow(/reads the array "a", which was not passed/);
  });

  it("takes undefined dtypes from the arrays passed and infers outputs from them", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + 1");
    const { out } = await run(k, { a: Int16Array.of(1, 32767), n: 2 });
    expect(out).toBeInstanceOf(Int16Array);
    expect([...out!]).toEqual([2, -32768]);
  });

  it("a Uint16Array passed for an untyped array is uint16, not float16", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + 1");
    const { out } = await run(k, { a: Uint16Array.of(65535), n: 1 });
    expect([...out!]).toEqual([0]);
  });

  it("asks for the array, a shape or dtypes when an output cannot be allocated", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i]", ["a: int32[n]", "out: [n]", "n"]);
    await expect(run(k, { n: 2, a: Int32Array.of(1, 2) })).resolves.toBeDefined();
    const untyped = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i]", ["a: [n]", "out: [n]", "n"]);
    await expect(run(untyped, { n: 2 })).rejects.toThrow(/reads the array "a"/);
    // A shape makeKernel could not infer (here removed by hand) must come with the array.
    const k1 = makeKernel("{[i]: 0<=i<n}", "out[i] = 1.5", ["out: float64[n]", "n: int32"]);
    const noShape = withKernel(k1, { args: k1.args.map((x) => (x.name === "out" ? { ...x, shape: undefined } : x)) });
    await expect(run(noShape, { n: 2 })).rejects.toThrow(/output "out" was not passed and its shape is unknown; pass the array or add a shape/);
    await expect(run(noShape, { n: 2, out: new Float64Array(2) })).rejects.toThrow(/"out" has no shape; give it one or use a linear subscript/);
  });
});

describe("outputs and non-mutation", () => {
  it("allocates outputs not passed from their shape and dtype", async () => {
    const { out } = await run(scale, { a: Float32Array.of(1, 2, 3), n: 3 });
    expect(out).toBeInstanceOf(Float32Array);
    expect([...out!]).toEqual([2, 4, 6]);
  });

  it("never mutates the caller's arrays", async () => {
    const a = Float32Array.of(1, 2);
    const out = Float32Array.of(7, 7, 7);
    const res = await run(scale, { a, out, n: 2 });
    expect([...out]).toEqual([7, 7, 7]);
    expect([...a]).toEqual([1, 2]);
    expect(res.out).not.toBe(out);
    expect([...res.out!]).toEqual([2, 4, 7]);
  });

  it("returns every written argument and only those", async () => {
    const res = await run(scale, { a: Float32Array.of(1), n: 1 });
    expect(Object.keys(res)).toEqual(["out"]);
  });
});

describe("out-of-bounds accesses", () => {
  it("an index past the extent is an ExecutionError naming instruction, array and index", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i+1] {id=shift}", ["a, out: float32[n]", "n: int32"]);
    const p = run(k, { a: new Float32Array(4), n: 4 });
    await expect(p).rejects.toThrow(ExecutionError);
    await expect(p).rejects.toThrow(/"shift".*index 4 out of bounds for axis 0 of "a"/);
  });

  it("even when the flat offset would be inside the storage", async () => {
    const k = makeKernel("{[i]: 0<=i<2}", "out[i] = a[0, i+2] {id=row}", ["a: float32[2,3]", "out: float32[2]"]);
    await expect(run(k, { a: new Float32Array(6) })).rejects.toThrow(/index 3 out of bounds for axis 1 of "a"/);
  });

  it("linear subscripts are checked against the storage", async () => {
    const k = makeKernel("{[i]: 0<=i<3}", "out[[i]] = a[[2*i]] {id=lin}", [globalArg("a", "float32"), "out: float32[3]"]);
    await expect(run(k, { a: new Float32Array(4) })).rejects.toThrow(/"lin".*linear index 4 out of bounds for "a" \(4 elements\)/);
  });

  it("writes are checked too", async () => {
    const k = makeKernel("{[i]: 0<=i<3}", "out[i-1] = 1 {id=w}", ["out: int32[3]"]);
    await expect(run(k, {})).rejects.toThrow(/"w".*index -1 out of bounds for axis 0 of "out"/);
  });
});

describe("domains that cannot run", () => {
  it("an unbounded loop is an ExecutionError", async () => {
    const k = makeKernel("{[i]: i >= 0}", "out[i] = 1", ["out: int32[4]"]);
    await expect(run(k, {})).rejects.toThrow(/loop over "i" has no upper bound/);
  });
});

describe("backends", () => {
  it("the interpreter is the default and can be named", async () => {
    const res = await run(scale, { a: Float32Array.of(1), n: 1 }, { backend: "interp" });
    expect([...res.out!]).toEqual([2]);
  });

  it("the js backend runs; every backend name is registered", async () => {
    expect(Array.from((await run(scale, { a: Float32Array.of(1.5), n: 1 }, { backend: "js" })).out as Float32Array)).toEqual([3]);
    for (const b of ["interp", "js", "c", "openmp", "opencl", "cuda"] as const) expect(getBackend(b).name).toBe(b);
  });

  it("unknown backends are named with the accepted list", async () => {
    await expect(run(scale, { n: 1 }, { backend: "fortran" as never })).rejects.toThrow(/unknown backend "fortran"; backends are interp, js, c, openmp, opencl, cuda/);
  });
});
