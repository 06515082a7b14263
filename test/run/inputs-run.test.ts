/**
 * What a JavaScript caller can pass wrong to `run` (issue 16.11, 16.12): no kernel, no argument
 * object, an unknown or mistyped option, an output too large to allocate. Each is a LoomError
 * saying what was wrong and what is accepted, at once, before anything is compiled or allocated.
 */
import { totalmem } from "node:os";
import { describe, expect, it } from "vitest";
import { BackendUnavailableError, CodegenError, ExecutionError, shown } from "../../src/errors.js";
import { generateCode } from "../../codegen/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { nativeAvailable, type NativeBackend } from "./native-helpers.js";

const scale = () => makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "n: int32"], { name: "scale" });
const a = Float32Array.of(1, 2, 3);

async function thrown(p: Promise<unknown>): Promise<Error> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  if (!(e instanceof Error)) throw new Error(`expected a rejection, got ${String(e)}`);
  return e;
}

describe("generateCode and autoTestVsRef refuse what is not a kernel, and unknown options, as run does", () => {
  // Before: a TypeError ("Invalid value used as weak map key", "Cannot read properties of null") and
  // generateCode's options accepted whatever they held.
  it("generateCode: a CodegenError naming the argument or the option", () => {
    expect(() => generateCode(null as never, "c")).toThrow(CodegenError);
    expect(() => generateCode(null as never, "c")).toThrow(/^generateCode: the first argument must be a kernel \(from makeKernel or parseOkl\); got null$/);
    expect(() => generateCode(scale(), "c", { kernelName: "occa" } as never)).toThrow(/^generateCode: unknown option "kernelName" \(did you mean "kernelNames"\?\); options are kernelNames, checkedAccess$/);
    expect(generateCode(scale(), "c", { checkedAccess: false }).deviceCode).toContain("scale");
  });

  it("autoTestVsRef: an ExecutionError naming which argument", async () => {
    expect((await thrown(autoTestVsRef(undefined as never, scale()))).message).toBe("autoTestVsRef: the first argument (the reference) must be a kernel (from makeKernel or parseOkl); got undefined");
    expect((await thrown(autoTestVsRef(scale(), { name: "k" } as never))).message).toBe(`autoTestVsRef: the second argument must be a kernel (from makeKernel or parseOkl); got {"name":"k"}`);
  });

  it("values JSON cannot show are shown as they are: NaN, Infinity, bigints", () => {
    expect([shown(NaN), shown(-Infinity), shown(3n), shown({ a: 1 })]).toEqual(["NaN", "-Infinity", "3n", `{"a":1}`]);
  });
});

describe("run refuses what is not a kernel or not an argument object", () => {
  it.each([
    ["{}", {}], ["null", null], ["a string", "scale"], ["an array", []], ["a half kernel", { name: "k", args: [] }],
  ])("a first argument that is %s: ExecutionError naming what run takes", async (_, k) => {
    const e = await thrown(run(k as never, { a }));
    expect(e).toBeInstanceOf(ExecutionError);
    expect(e.message).toMatch(/^run: the first argument must be a kernel \(from makeKernel or parseOkl\); got /);
  });

  it.each([
    ["null", null, /got null/], ["undefined", undefined, /got undefined/], ["an array", [a, 3], /got an array/],
    ["a typed array", a, /got a typed array/], ["a number", 3, /got 3/], ["a Map", new Map([["a", a]]), /got \{\}/],
  ])("arguments that are %s: ExecutionError showing an argument object", async (_, args, got) => {
    const e = await thrown(run(scale(), args as never));
    expect(e).toBeInstanceOf(ExecutionError);
    expect(e.message).toMatch(/^run: the arguments of kernel "scale" must be an object of values by name, e\.g\. \{ a: new Float32Array\(8\), n: 8 \}/);
    expect(e.message).toMatch(got);
  });

  it("an object without a prototype is an argument object", async () => {
    const args = Object.assign(Object.create(null) as Record<string, Float32Array>, { a });
    expect(Array.from((await run(scale(), args)).out as Float32Array)).toEqual([2, 4, 6]);
  });
});

describe("run refuses unknown options, suggesting the closest", () => {
  const options = "options are backend, checkBounds, cc, flags, libs";

  it.each([
    ["backnd", "backend"], ["Backend", "backend"], ["check_bounds", "checkBounds"], ["checkbound", "checkBounds"], ["flag", "flags"],
  ])("%s: did you mean %s?", async (key, near) => {
    const e = await thrown(run(scale(), { a }, { [key]: "c" } as never));
    expect(e).toBeInstanceOf(ExecutionError);
    expect(e.message).toBe(`run: unknown option "${key}" (did you mean "${near}"?); ${options}`);
  });

  it("a name close to none: the accepted list alone", async () => {
    const e = await thrown(run(scale(), { a }, { device: 1 } as never));
    expect(e.message).toBe(`run: unknown option "device"; ${options}`);
  });

  it("options that are not an object", async () => {
    await expect(run(scale(), { a }, "c" as never)).rejects.toThrow(/^run: options must be an object such as \{ backend: … \}; got "c"/);
    // null is no options, as for the transformations.
    expect(Array.from((await run(scale(), { a }, null as never)).out as Float32Array)).toEqual([2, 4, 6]);
  });

  it.each([
    ["checkBounds", "no", /the option checkBounds must be true or false; got "no"/],
    ["cc", 7, /the option cc must be the compiler's name or path, e\.g\. "gcc"; got 7/],
    ["flags", "-O2", /the option flags must be an array of strings, e\.g\. \["-O2"\]; got "-O2"/],
    ["libs", [1], /the option libs must be an array of strings/],
  ])("an option of the wrong type (%s = %j)", async (key, value, msg) => {
    const e = await thrown(run(scale(), { a }, { [key]: value } as never));
    expect(e).toBeInstanceOf(ExecutionError);
    expect(e.message).toMatch(msg);
  });

  it("an unknown backend suggests the closest", async () => {
    const e = await thrown(run(scale(), { a }, { backend: "opnecl" as never }));
    expect(e).toBeInstanceOf(BackendUnavailableError);
    expect(e.message).toBe('unknown backend "opnecl" (did you mean "opencl"?); backends are interp, js, c, openmp, opencl, cuda, webgpu');
  });
});

describe("outputs too large to allocate are refused at once, with the size and the limit", () => {
  const square = () => makeKernel("{[i, j]: 0<=i, j<n}", "out[i, j] = 1", ["out: float32[n, n]", "n: int32"], { name: "square" });

  it.each(["interp", "js", "c", "openmp", "opencl"] as const)("more elements than a typed array holds, on %s", async (backend) => {
    if (backend !== "interp" && backend !== "js" && !nativeAvailable(backend as NativeBackend)) return;
    const e = await thrown(run(square(), { n: 70_000 }, { backend }));
    expect(e).toBeInstanceOf(ExecutionError);
    expect(e.message).toMatch(/^output "out" needs 4900000000 float32 elements \(19600000000 bytes \(19\.6 GB\)\), more than the \d+ elements a JavaScript typed array can hold/);
  });

  it("outputs that together exceed this machine's memory", async () => {
    // Each float64[n] output is 17 GB: enough of them exceed any machine's memory.
    const count = Math.ceil(totalmem() / (8 * (2 ** 31 - 1))) + 1;
    const names = Array.from({ length: count }, (_, x) => `o${x}`);
    const k = makeKernel("{[i]: 0<=i<n}", names.map((o) => `${o}[i] = 1`).join("\n"), [`${names.join(", ")}: float64[n]`, "n: int32"]);
    const e = await thrown(run(k, { n: 2 ** 31 - 1 }));
    expect(e).toBeInstanceOf(ExecutionError);
    expect(e.message).toMatch(/^the run needs \d+ bytes \([\d.]+ GB\) of memory for output "o0" \(17179869176 bytes \(17\.2 GB\)\), .*more than this machine has \(\d+ bytes .*os\.totalmem\(\)\)/);
  });

  it.skipIf(!nativeAvailable("opencl"))("on opencl, a buffer larger than the device allows (17.2 GB, every index within int32): the size and CL_DEVICE_MAX_MEM_ALLOC_SIZE, before building", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = 1", ["out: float64[n]", "n: int32"], { name: "big" });
    const e = await thrown(run(k, { n: 2 ** 31 - 1 }, { backend: "opencl" }));
    expect(e).toBeInstanceOf(ExecutionError);
    // A machine with less than 17.2 GB refuses on the host side, with the same size.
    expect(e.message).toMatch(/"out" needs 17179869176 bytes \(17\.2 GB\), more than the largest buffer of the device .* \(\d+ bytes.*CL_DEVICE_MAX_MEM_ALLOC_SIZE\)|needs 17179869176 bytes.*more than this machine has/);
  });
});
