/**
 * The lowering takes the names it introduces from the kernel's NameAllocator, the one the printer
 * then prints with (codegen/names.ts): a block local renamed away from a parameter gets a name no
 * user name, other block local or printer's name has, and a name only a dialect reserves (`H` in
 * JS) is renamed on that dialect alone. Run on every backend against the interpreter.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { lowerSchedule } from "../../codegen/lower.js";
import { NameAllocator } from "../../codegen/names.js";
import { printedKernels } from "../../codegen/targets/rename.js";
import { cTarget } from "../../codegen/targets/c.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { schedule } from "../../src/schedule/index.js";
import { S, withBlock } from "../ir/block-helpers.js";
import { availableNative } from "../run/native-helpers.js";

const BACKENDS = ["js", ...availableNative(["c", "openmp", "opencl"])] as const;

/**
 * `out[i, j] = …` with a block declaring its own `n` (the column count its index arithmetic
 * prints) beside a value argument `n_0`, and a local `H` (the JS runtime's name).
 */
function shadowing() {
  const k = makeKernel("{[i, j]: 0 <= i < m and 0 <= j < n}", "out[i, j] = 0 {id=b}",
    ["out: float32[m, n]", "m, n, n_0: int32"], { name: "shadow" });
  return withBlock(k, "b", [
    S.decl("n", "int32", "i + n_0"),
    S.decl("H", "int32", "2 * j"),
    S.set("out[i, j]", "n + H"),
  ]);
}

describe("the lowering names through the kernel's allocator", () => {
  it("a block's `n` that would shadow the parameter gets the allocator's fresh name, past the user's n_0", () => {
    const code = generateCode(shadowing(), "c").deviceCode;
    expect(code).toContain("int32_t n_1 = (int32_t) ((uint32_t) i + (uint32_t) n_0);");
    expect(code).toMatch(/out\[n \* i \+ j\] = \(int32_t\) \(\(uint32_t\) n_1 \+ \(uint32_t\) H\);/);
  });

  it("the allocator handed to lowerSchedule knows the names the lowering took (a later fresh name differs)", () => {
    const s = schedule(shadowing(), { cpu: true });
    const names = NameAllocator.forKernel(s.kernel, "c");
    const [lk] = lowerSchedule(s, cTarget.d.lowerOptions, names);
    expect(JSON.stringify(lk!.body)).toContain('"name":"n_1"');
    expect(names.fresh("n")).toBe("n_2");
    // The printed code is the lowering's: the allocator prints its own fresh names as they are.
    expect(cTarget.render([lk!], names).deviceCode).toContain("int32_t n_1 = (int32_t) ((uint32_t) i + (uint32_t) n_0);");
  });

  it("a name the lowering makes is never a device kernel's name (the function it is declared in)", () => {
    const s0 = schedule(shadowing(), { cpu: true });
    const s = { ...s0, deviceKernels: s0.deviceKernels.map((dk) => ({ ...dk, name: "n_1" })) };
    const [lk] = lowerSchedule(s, cTarget.d.lowerOptions, NameAllocator.forKernel(s.kernel, "c"));
    expect(JSON.stringify(lk!.body)).toContain('"name":"n_2"');
  });

  it("`H` is renamed only where the dialect reserves it: kept on C, renamed on js", () => {
    expect(generateCode(shadowing(), "c").deviceCode).toContain("int32_t H = (int32_t) (2u * (uint32_t) j);");
    const js = generateCode(shadowing(), "js").deviceCode;
    expect(js).not.toMatch(/\bH = /);
    expect(js).toMatch(/let H_0 = /);
  });

  it.each(BACKENDS)("computes what the interpreter computes (%s)", async (backend) => {
    const args = { m: 3, n: 5, n_0: 7 };
    const ref = await run(shadowing(), args, { backend: "interp" });
    // Block statements are opaque to the bounds proof; out[i, j] is in range by construction.
    const got = await run(shadowing(), args, { backend, ...(backend === "js" ? {} : { checkBounds: false }) });
    expect(Array.from(got.out as Float32Array)).toEqual(Array.from(ref.out as Float32Array));
    expect(Array.from(ref.out as Float32Array).slice(0, 5)).toEqual([7, 9, 11, 13, 15]);
  });

  it("printing keeps a kernel's statements where no identifier, comment or pragma changes (issue 21: no walk)", () => {
    const k = makeKernel("{[i]: 0 <= i < n}", "out[i] = 2 * a[i]", ["a, out: float32[n]", "n: int32"], { name: "twice" });
    const s = schedule(k);
    const names = NameAllocator.forKernel(s.kernel, "c");
    const lks = lowerSchedule(s, cTarget.d.lowerOptions, names);
    const [printed] = printedKernels(lks, names);
    expect(printed!.body).toBe(lks[0]!.body);
    expect(printed!.decls).toBe(lks[0]!.decls);
    // A comment that would close its own comment is rewritten: the statements are walked.
    const withComment = [{ ...lks[0]!, body: [...lks[0]!.body, { k: "comment" as const, text: "a */ b" }] }];
    const [again] = printedKernels(withComment, NameAllocator.forKernel(s.kernel, "c"));
    expect(again!.body).not.toBe(withComment[0]!.body);
    expect(again!.body.at(-1)).toEqual({ k: "comment", text: "a * / b" });
  });
});
