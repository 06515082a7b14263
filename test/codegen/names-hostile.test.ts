/**
 * Hostile names (issues 14, 15.6, 16.1, 16.3, 16.13): names that are not identifiers, reserved words
 * of a target, libc symbols and the generators' own name shapes, as kernel, argument, temporary,
 * iname and prefetch names, on every built target. Each gives a LoomError or code that compiles
 * and runs equal to a plain TypeScript reference (interp, js, c, openmp, opencl).
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { NameAllocator, dialectOf, isReserved } from "../../codegen/names.js";
import { CodegenError, LoomError } from "../../src/errors.js";
import { mapInsnExprs, renameVars, withKernel, type Kernel, type TargetName } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { addPrefetch, renameIname, splitIname } from "../../transforms/index.js";
import { expectOnEveryBackend } from "../transforms/every-backend.js";

const TARGETS: readonly TargetName[] = ["c", "openmp", "opencl", "cuda", "js", "okl"];
const NOT_IDENTIFIERS = ["#define X", "a\"b", "*/", "a\nb", "x */ int y; /*", "1a", "a b", "é"];
/** Reserved somewhere: C and libc, OpenCL, CUDA, JS and Loom's runtime, OKL, the printers' helpers. */
const RESERVED = [
  "main", "system", "exit", "float", "restrict", "int", "max", "sqrt", "kernel", "global", "float4", "__global__", "threadIdx",
  "var", "yield", "arguments", "H", "Math", "_g0", "loopy_min_int32", "gid",
];

/** The names also run on every backend (the others are checked in the generated code only: native compiles are slow). */
const RUN = new Set(["main", "system", "float", "restrict", "kernel", "__global__", "var", "H", "loopy_min_int32", "#define X", "a\"b", "*/"]);

const n = 7;
const a = Float32Array.from({ length: n }, (_, i) => i - 2.5);
const doubled = Array.from(a, (x) => 2 * x + 1);

/** `k` with array or temporary `from` called `to` everywhere (as the IR allows any string). */
function renamed(k: Kernel, from: string, to: string): Kernel {
  const m = new Map([[from, to]]);
  return withKernel(k, {
    args: k.args.map((x) => (x.name === from ? { ...x, name: to } : x)),
    temporaries: k.temporaries.map((t) => (t.name === from ? { ...t, name: to } : t)),
    instructions: k.instructions.map((i) => mapInsnExprs(i, (e) => renameVars(e, m))),
  });
}

function elementwise(name = "hostile"): Kernel {
  return makeKernel("{[i]: 0<=i<n}", "out[i] = 2*x[i] + 1", ["x: float32[n]", "out: float32[n]", "n: int32"], { name });
}

/** No line of `code` starts a preprocessor directive other than the targets' own. */
function noInjectedDirective(code: string): void {
  for (const line of code.split("\n")) {
    if (/^\s*#/.test(line)) expect(line).toMatch(/^\s*#(include <|define (lid|gid)\(N\)|pragma (omp|unroll|OPENCL))/);
  }
}

describe("kernel names", () => {
  for (const name of NOT_IDENTIFIERS) {
    it(`${JSON.stringify(name)} is a CodegenError on every target, saying what an identifier is`, () => {
      const k = elementwise(name);
      for (const t of TARGETS) {
        expect(() => generateCode(k, t), t).toThrow(CodegenError);
        expect(() => generateCode(k, t), t).toThrow(/kernel name .* must be an identifier: ASCII letters, digits and underscores/);
      }
    });
  }

  for (const name of RESERVED) {
    it(`${name}: printed as a name free on each target, and runs`, async () => {
      const k = elementwise(name);
      for (const t of TARGETS) {
        const code = generateCode(k, t);
        const printed = code.kernels[0]!.name;
        expect(new NameAllocator(dialectOf(t)).printable(printed), `${t}: ${printed}`).toBe(true);
        if (isReserved(name, dialectOf(t))) expect(printed, t).not.toBe(name);
        else expect(printed, t).toBe(name);
        noInjectedDirective(code.deviceCode);
      }
      if (RUN.has(name)) await expectOnEveryBackend(k, { x: a }, { out: doubled });
    }, 60_000);
  }

  it("the injection of issue 16.1 (a #define in the kernel name) compiles nothing", () => {
    const k = elementwise("k\n#include <stdlib.h>\n#define x (system(\"touch /tmp/loom-pwned\"), x)\nvoid f");
    for (const t of TARGETS) expect(() => generateCode(k, t)).toThrow(CodegenError);
  });
});

describe("argument names", () => {
  for (const name of [...RESERVED, ...NOT_IDENTIFIERS]) {
    it(`${JSON.stringify(name)} as an array argument`, async () => {
      const k = renamed(elementwise(), "x", name);
      for (const t of TARGETS) {
        const code = generateCode(k, t);
        expect(code.kernels[0]!.args, `${t}: the launch information keeps the user's names`).toContain(name);
        const raw = new RegExp(`(?<![A-Za-z0-9_])${name.replace(/[^A-Za-z0-9_]/g, "\\$&")}\\[`);
        expect(raw.test(code.deviceCode), `${t} prints ${JSON.stringify(name)}`).toBe(new NameAllocator(dialectOf(t)).printable(name));
        noInjectedDirective(code.deviceCode);
      }
      if (RUN.has(name)) await expectOnEveryBackend(k, { [name]: a }, { out: doubled });
    }, 60_000);
  }

  it("issue 15.6: an argument named var runs on js", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = var[i] * 3", ["var: float32[n]", "out: float32[n]", "n: int32"]);
    expect(generateCode(k, "js").deviceCode).not.toMatch(/\bvar\b/);
    await expectOnEveryBackend(k, { var: a }, { out: Array.from(a, (x) => 3 * x) });
  });
});

describe("temporary names", () => {
  const withTemp = () => makeKernel("{[i]: 0<=i<n}", ["<float32> t = 2*x[i] {id=s1}", "out[i] = t + 1 {dep=s1}"],
    ["x: float32[n]", "out: float32[n]", "n: int32"], { name: "temp" });
  for (const name of [...RESERVED, ...NOT_IDENTIFIERS]) {
    it(`${JSON.stringify(name)} as a private temporary`, async () => {
      const k = renamed(withTemp(), "t", name);
      for (const t of TARGETS) noInjectedDirective(generateCode(k, t).deviceCode);
      if (RUN.has(name)) await expectOnEveryBackend(k, { x: a }, { out: doubled });
    }, 60_000);
  }
});

describe("iname names", () => {
  for (const name of RESERVED) {
    it(`${name} as an iname`, async () => {
      const k = makeKernel(`{[${name}]: 0<=${name}<n}`, `out[${name}] = 2*x[${name}] + 1`, ["x: float32[n]", "out: float32[n]", "n: int32"]);
      for (const t of TARGETS) noInjectedDirective(generateCode(k, t).deviceCode);
      if (RUN.has(name)) await expectOnEveryBackend(k, { x: a }, { out: doubled });
    }, 60_000);
  }
  for (const name of NOT_IDENTIFIERS) {
    it(`${JSON.stringify(name)} is refused by renameIname with a LoomError`, () => {
      expect(() => renameIname(elementwise(), "i", name)).toThrow(LoomError);
    });
  }
});

describe("prefetch temporary names", () => {
  const tiled = () => splitIname(elementwise("fetch"), "i", 4, { outerTag: "g.0", innerTag: "l.0" });
  for (const name of [...RESERVED, ...NOT_IDENTIFIERS]) {
    it(`addPrefetch's temporaryName ${JSON.stringify(name)}`, async () => {
      let k: Kernel;
      try {
        k = addPrefetch(tiled(), "x", { sweepInames: ["i_inner"], temporaryName: name });
      } catch (e) {
        expect(e).toBeInstanceOf(LoomError);
        return;
      }
      for (const t of TARGETS) noInjectedDirective(generateCode(k, t).deviceCode);
      if (RUN.has(name)) await expectOnEveryBackend(k, { x: a }, { out: doubled });
    }, 60_000);
  }
});

describe("issue 16.3: generated locals never shadow user names", () => {
  // Value arguments named like the js loop bound (i_hi), lowering's accumulators (acc_j), the C
  // helpers (loopy_*), the CPU lowering's loops (i_inner) and js's runtime (H), all read.
  const k = () => makeKernel("{[i, j]: 0<=i<n and 0<=j<4}",
    "out[i] = sum(j, x[i] * (j + 1)) + i_hi + acc_j + loopy_floor_div_int32 + loopy_min_int32 + H + (i - 9) // 4",
    ["x: float32[n]", "out: float32[n]", "n: int32", "i_hi: int32", "acc_j: int32", "loopy_floor_div_int32: int32", "loopy_min_int32: int32", "H: int32"]);
  const values = { i_hi: 1000, acc_j: 200, loopy_floor_div_int32: 30, loopy_min_int32: 4, H: 50000 };
  const expected = Array.from(a, (x, i) => Math.fround(10 * x) + 1000 + 200 + 30 + 4 + 50000 + Math.floor((i - 9) / 4));

  it("on every backend, sequential", async () => {
    await expectOnEveryBackend(k(), { x: a, ...values }, { out: expected });
  }, 60_000);
  it("on every backend, split onto g.0/l.0 (the CPU lowering's loops and sizes)", async () => {
    const s = splitIname(k(), "i", 2, { outerTag: "g.0", innerTag: "l.0" });
    for (const t of TARGETS) noInjectedDirective(generateCode(s, t).deviceCode);
    await expectOnEveryBackend(s, { x: a, ...values }, { out: expected });
  }, 60_000);
  it("js prints the loop bound under a fresh name", () => {
    const code = generateCode(k(), "js").deviceCode;
    expect(code).toMatch(/for \(let i = 0, i_hi_0 = /);
  });
});
