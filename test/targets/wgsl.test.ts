/**
 * The wgsl target: loopy's classics generate WebGPU compute shaders of the expected shape (one
 * entry point per device kernel, storage buffers, `var<workgroup>` tiles, `workgroupBarrier()`,
 * the work-group size); what WGSL cannot express is refused naming the feature and what is
 * accepted; integer division and shifts go through the helpers that give the interpreter's
 * meaning; reserved words of WGSL are renamed. Where webgpu runs, hostile names and work-group
 * sizes set at launch are compiled by Dawn and run against the interpreter.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateCode, lowerStages } from "../../codegen/index.js";
import { NameAllocator } from "../../codegen/names.js";
import { wgslLiteral } from "../../codegen/targets/wgsl.js";
import { CodegenError } from "../../src/errors.js";
import { mapInsnExprs, renameVars, withKernel, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { compileWgsl } from "../../src/run/webgpu.js";
import { webgpuAvailability } from "../../src/run/webgpu-device.js";
import { splitIname, tagInames } from "../../transforms/index.js";
import { loopyClassics } from "../codegen/kernels.js";
import { corpusKernels } from "./hip-cucl-kernels.js";

const wgsl = (k: Kernel) => generateCode(k, "wgsl");

describe("loopy's classics generate WebGPU compute shaders", () => {
  for (const ex of Object.values(loopyClassics())) {
    it(ex.title, () => {
      const code = wgsl(ex.knl);
      expect(code.target).toBe("wgsl");
      for (const info of code.kernels) {
        const size = info.localSize.length === 0 ? "1" : info.localSize.join(", ");
        expect(code.deviceCode).toContain(`@compute @workgroup_size(${size})\nfn ${info.name}(@builtin(workgroup_id) loom_group: vec3<u32>, @builtin(local_invocation_id) loom_local: vec3<u32>) {`);
      }
      // Arrays are storage buffers, read-only where never written; nothing of C is left.
      expect(code.deviceCode).toMatch(/@group\(0\) @binding\(0\) var<storage, read(_write)?> \w+: array<f32>;/);
      expect(code.deviceCode).not.toMatch(/#|\?|\bint\b|\bfloat\b|barrier\(CLK|__local|\bfor \(int/);
      expect(code.hostCode).toContain(code.kernels[0]!.name);
    });
  }

  it("the tiled matmul: two 16x16 local tiles, two barriers per k tile, a 16x16 work-group", () => {
    const code = wgsl(loopyClassics().matmul_tiled_prefetch.knl).deviceCode;
    expect(code.match(/^var<workgroup> \w+: array<f32, 256>;$/gm)).toHaveLength(2);
    expect(code.match(/workgroupBarrier\(\);/g)).toHaveLength(2);
    expect(code).toContain("@compute @workgroup_size(16, 16)");
  });

  it("the vector add: its launch sizes, and lowerStages ends with the WGSL", () => {
    const k = loopyClassics().vecadd.knl;
    const info = wgsl(k).kernels[0]!;
    expect([info.globalSize, info.localSize, info.args]).toEqual([["(n + 127) / 128"], ["128"], ["a", "b", "out", "n"]]);
    expect(lowerStages(k, "wgsl").at(-1)!.text).toContain("@compute @workgroup_size(128)");
  });

  it("a work-group size set at launch is a pipeline-overridable constant", () => {
    const code = wgsl(tagInames(makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "n: int32"]), { i: "l.0" })).deviceCode;
    expect(code).toContain("override loom_wg_0_0: u32 = 1u;");
    expect(code).toContain("@compute @workgroup_size(loom_wg_0_0)");
  });
});

describe("what WGSL cannot express is refused, naming it and what is accepted", () => {
  const refused: [string, Kernel, RegExp][] = [
    ["float64", makeKernel("{[i]: 0<=i<n}", "out[i] = a[i]", ["a, out: float64[n]", "n: int32"]), /array "a" of dtype float64 \(WGSL has no 64-bit floats\); it accepts int32, uint32, float32/],
    ["int64", makeKernel("{[i]: 0<=i<n}", "out[i] = a[i]", ["a, out: int64[n]", "n: int32"]), /dtype int64 \(WGSL has no 64-bit integers\)/],
    ["int8", makeKernel("{[i]: 0<=i<n}", "out[i] = a[i]", ["a, out: int8[n]", "n: int32"]), /dtype int8 \(WGSL has no 8-bit integers\)/],
    ["float16", makeKernel("{[i]: 0<=i<n}", "out[i] = a[i]", ["a, out: float16[n]", "n: int32"]), /dtype float16 \(f16 needs the shader-f16 extension/],
    ["a float64 value argument", makeKernel("{[i]: 0<=i<n}", "out[i] = s", ["out: float32[n]", "s: float64", "n: int32"]), /value argument "s" of dtype float64/],
    ["a bool array", makeKernel("{[i]: 0<=i<n}", "out[i] = a[i]", ["a, out: bool[n]", "n: int32"]), /cannot pass the bool array "a" \(storage buffers hold no bool\); it passes arrays of int32, uint32 and float32/],
  ];
  for (const [what, k, message] of refused) {
    it(what, () => {
      const t = tagInames(splitIname(k, "i", 4), { i_inner: "l.0" });
      expect(() => wgsl(t)).toThrow(CodegenError);
      expect(() => wgsl(t)).toThrow(message);
    });
  }
});

describe("integer arithmetic through the interpreter's rules", () => {
  it("floor division and modulo by a variable trap on zero (the trap buffer is bound); by a literal they do not", () => {
    const byVar = wgsl(makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] // b[i] + a[i] % b[i]", ["a, b, out: int32[n]", "n: int32"])).deviceCode;
    expect(byVar).toMatch(/loom_fdiv_i32\(a\[i\], b\[i\], 1u\)/);
    expect(byVar).toMatch(/loom_mod_i32\(a\[i\], b\[i\], 2u\)/);
    expect(byVar).toContain("var<storage, read_write> loom_err: array<atomic<u32>, 2>;");
    const byLiteral = wgsl(makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] // 4 + a[i] % -3 + (a[i] << 2)", ["a, out: int32[n]", "n: int32"])).deviceCode;
    expect(byLiteral).toMatch(/loom_fdiv_c_i32\(a\[i\], 4i\)/);
    expect(byLiteral).toMatch(/loom_mod_c_i32\(a\[i\], \(-3i\)\)/);
    expect(byLiteral).toContain("(a[i] << 2u)");
    expect(byLiteral).not.toContain("loom_err");
  });

  it("literals: INT_MIN, negative numbers, the shortest float32 decimals, infinities by their bits", () => {
    expect([wgslLiteral(-2147483648, "int32"), wgslLiteral(-1, "int32"), wgslLiteral(7, "uint32"), wgslLiteral(Math.fround(0.1), "float32"), wgslLiteral(2, "float32"), wgslLiteral(-Infinity, "float32")])
      .toEqual(["i32(-2147483648)", "(-1i)", "7u", "0.1f", "2.0f", "bitcast<f32>(0xff800000u)"]);
  });
});


/** A run's output as numbers. */
const list = (x: unknown): number[] => Array.from(x as ArrayLike<number>);

// ---- names ---------------------------------------------------------------------------------------

/** WGSL's keywords, reserved words, predeclared names and the printer's own (all reserved in the wgsl dialect). */
const HOSTILE = ["fn", "let", "loop", "override", "storage", "read", "f32", "select", "workgroupBarrier", "loom_group", "loom_err", "loom_args_0", "vec3", "mod", "__x"];

/** `k` with array `from` called `to` everywhere (the IR allows any string). */
function renamed(k: Kernel, from: string, to: string): Kernel {
  const m = new Map([[from, to]]);
  return withKernel(k, {
    args: k.args.map((x) => (x.name === from ? { ...x, name: to } : x)),
    instructions: k.instructions.map((i) => mapInsnExprs(i, (e) => renameVars(e, m))),
  });
}

/** An elementwise kernel over arrays named `names` (x0, x1, … renamed), split onto g.0/l.0. */
function hostileKernel(name: string, names: readonly string[] = HOSTILE): Kernel {
  const xs = names.map((_, j) => `x${j}`);
  let k = makeKernel("{[i]: 0<=i<n}", `out[i] = ${xs.map((x, j) => `${j + 1}*${x}[i]`).join(" + ")}`, [`${xs.join(", ")}, out: float32[n]`, "n: int32"], { name });
  names.forEach((h, j) => (k = renamed(k, `x${j}`, h)));
  return splitIname(k, "i", 4, { outerTag: "g.0", innerTag: "l.0" });
}

const status = await webgpuAvailability();

describe("reserved words of WGSL are renamed", () => {
  it("arrays and the kernel named by WGSL keywords, built-ins and the printer's names print as free names; the launch information keeps the user's", () => {
    const code = wgsl(hostileKernel("loop"));
    const names = new NameAllocator("wgsl");
    expect(names.printable(code.kernels[0]!.name)).toBe(true);
    expect(code.kernels[0]!.name).not.toBe("loop");
    expect(code.kernels[0]!.args).toEqual([...HOSTILE, "out", "n"]);
    for (const h of HOSTILE) expect(code.deviceCode, h).not.toMatch(new RegExp(`(?<![A-Za-z0-9_])${h}\\[`));
  });

  it.skipIf(!status.available)("and Dawn compiles them: the kernel runs on webgpu as on the interpreter (skipped without webgpu)", async () => {
    // Seven arrays a kernel: WebGPU's default limit is eight storage buffers per shader.
    for (const names of [HOSTILE.slice(0, 7), HOSTILE.slice(7, 14), HOSTILE.slice(14)]) {
      const k = hostileKernel("fn", names);
      const n = 6;
      const args: Record<string, Float32Array | number> = { n };
      names.forEach((h, j) => (args[h] = Float32Array.from({ length: n }, (_, i) => i * (j + 1) - 3)));
      expect(list((await run(k, args, { backend: "webgpu" })).out), names.join(", ")).toEqual(list((await run(k, args)).out));
    }
  }, 60_000);

  it.skipIf(!status.available)("a work-group size set at launch runs (skipped without webgpu)", async () => {
    const k = tagInames(makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] + i", ["a, out: float32[n]", "n: int32"]), { i: "l.0" });
    for (const n of [1, 5, 64]) {
      const a = Float32Array.from({ length: n }, (_, i) => i / 3);
      expect(list((await run(k, { a, n }, { backend: "webgpu" })).out), `n=${n}`).toEqual(list((await run(k, { a, n })).out));
    }
  }, 60_000);
});

describe("docs/targets-wgsl.md says what the code does", () => {
  const doc = readFileSync(new URL("../../docs/targets-wgsl.md", import.meta.url), "utf8");
  const halfsum = () => splitIname(makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] // 2 + b[i]", ["a, b, out: int32[n]", "n: int32"], { name: "halfsum" }),
    "i", 64, { outerTag: "g.0", innerTag: "l.0" });

  it("its example's kernel and module are the ones generated; its refusal is the one thrown", () => {
    expect(doc).toContain(`"out[i] = a[i] // 2 + b[i]", ["a, b, out: int32[n]", "n: int32"], { name: "halfsum" }),\n  "i", 64, { outerTag: "g.0", innerTag: "l.0" });`);
    expect(doc).toContain(`\`\`\`wgsl\n${wgsl(halfsum()).deviceCode}\`\`\``);
    const refusal = /`(the wgsl target cannot express array "a" of dtype float64[^`]*)`/.exec(doc)![1]!;
    expect(() => wgsl(makeKernel("{[i]: 0<=i<n}", "out[i] = a[i]", ["a, out: float64[n]", "n: int32"]))).toThrow(refusal);
  });

  it.skipIf(!status.available)("its run prints what its comment says (skipped without webgpu)", async () => {
    expect(doc).toContain("Int32Array(3) [ 4, -3, 51 ]");
    expect(list((await run(halfsum(), { a: Int32Array.of(7, -7, 100), b: Int32Array.of(1, 1, 1) }, { backend: "webgpu" })).out)).toEqual([4, -3, 51]);
  }, 60_000);
});

describe("OCCA's example kernels (the OKL corpus)", () => {
  const kernels = corpusKernels().flatMap(([file, ks]) => ks.map((k) => [file, k] as const));

  it.skipIf(kernels.length === 0)("generate, or are refused for a dtype WGSL does not have; Dawn compiles what generates (where webgpu runs)", async () => {
    let generated = 0;
    for (const [file, k] of kernels) {
      let code: string;
      try {
        code = wgsl(k).deviceCode;
      } catch (e) {
        expect(e, `${file} ${k.name}`).toBeInstanceOf(CodegenError);
        expect((e as Error).message, `${file} ${k.name}`).toMatch(/WGSL has no (64|8|16)-bit/);
        continue;
      }
      generated++;
      if (status.available) await compileWgsl(code, `${file} ${k.name}`);
    }
    // Most of them use float32 (the double-precision ones are refused).
    expect(generated).toBeGreaterThanOrEqual(Math.ceil(kernels.length / 2));
  }, 120_000);
});
