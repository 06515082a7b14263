/**
 * The ispc target (issue 22), in loopy's ISPC conventions: `task void` kernels over `uniform`
 * pointers, an `export void` host function with `launch[…]` and `sync`, `taskIndexN` for `g.N`,
 * `programIndex` for `l.0` (with `assert(programCount == …)`), local temporaries as `uniform`
 * arrays. ISPC has one program index: `l.1`/`l.2` become loops inside the task, split at barriers,
 * where loopy refuses them. Checked by a C++17 syntax-only compile through a shim
 * (test/targets/headers/ispc-shim.h); no ispc compiler is installable here. The l.1/l.2 loops
 * run: kernels without l.0 run their group's work on the gang's first program instance, so their
 * ISPC runs as C++ through the shim with a gang of one (LOOPY_ISPC_RUN), the tasks of a launch as
 * loops: random extents and group counts (fast-check), all cases in one g++ compile and one run,
 * each output equal to a reference written here.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Ex } from "../../codegen/ast.js";
import { generateCode } from "../../codegen/index.js";
import type { LoweredKernel } from "../../codegen/lower.js";
import { ispcTarget } from "../../codegen/targets/ispc.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { tagInames } from "../../transforms/index.js";
import { compileBudgetMs } from "../codegen/compile-helpers.js";
import { atomicKernel, classics, hasGxx, HEADERS, SPELLINGS, syntaxCheckSuite } from "./sycl-metal-alpaka-ispc-cases.js";

const HOSTILE = ["task", "uniform", "programIndex", "loopy_lid1", "launch"] as const;

/** A fetch into local memory, a barrier, a use; `x` private and live across it; l.1 of extent `m` (a number or a parameter). */
function fetchAcross(m: number | "m"): Kernel {
  return tagInames(makeKernel(`{[i,j]: 0<=i<16 and 0<=j<${m}}`, [
    "<float32> x = a[16*j+i] {id=p}",
    "t[16*j+i] = x {id=f, dep=p}",
    "out[16*j+i] = t[15 - i] + x {id=u, dep=f}",
  ], [temporary("t", "float32", [64], "local"), "a, out: float32[64]", ...(m === "m" ? ["m: int32"] : [])],
  { name: "fetch_across", ...(m === "m" ? { assumptions: "1 <= m <= 4" } : {}) }), { i: "l.0", j: "l.1" });
}

/**
 * The lines of `code` inside the `l.1`/`l.2` loops and outside them: a barrier must never be
 * inside one (the loops are split at barriers), and `loopy_lid1`/`loopy_lid2` never outside.
 */
function checkFission(code: string): { loops: number } {
  let depth = 0;
  let loopDepth: number | undefined;
  let pending = false;
  let loops = 0;
  for (const line of code.split("\n")) {
    const t = line.trim();
    if (/^for \(uniform int loopy_lid[12] = 0;/.test(t)) {
      if (loopDepth === undefined) {
        loops++;
        pending = true;
      }
    } else if (t === "{") {
      depth++;
      if (pending) {
        loopDepth = depth;
        pending = false;
      }
    } else if (t === "}") {
      if (loopDepth === depth) loopDepth = undefined;
      depth--;
    } else if (loopDepth !== undefined) {
      expect(t, "a barrier inside the l.1/l.2 loops").not.toMatch(/^\/\* barrier/);
    } else {
      expect(t, "an l.1/l.2 id outside its loops").not.toMatch(/loopy_lid[12]/);
    }
  }
  return { loops };
}

describe("ispc: generated code", () => {
  const [vecadd, matmul, reduction, stencil] = classics();

  it("a task per device kernel: taskIndex0 for g.0, programIndex for l.0, the gang size asserted; an export host function launches it", () => {
    const code = generateCode(vecadd!, "ispc");
    expect(code.deviceCode).toContain("task void vecadd(uniform float const *uniform a, uniform float const *uniform b, uniform float *uniform out, uniform int32 n)");
    expect(code.deviceCode).toContain("assert(programCount == 128);");
    expect(code.deviceCode).toContain("128 * ((int) taskIndex0) + ((int) programIndex) < n");
    expect(code.hostCode).toContain("export void vecadd_host(uniform float const *uniform a, uniform float const *uniform b, uniform float *uniform out, uniform int32 n)");
    expect(code.hostCode).toContain("  launch[(n + 127) / 128, 1, 1] vecadd(a, b, out, n);\n  sync;");
  });

  it("l.1 becomes loops inside the task, split at each barrier; a private value across barriers gets a copy per l.1", () => {
    const code = generateCode(matmul!, "ispc").deviceCode;
    expect(code).toContain("uniform float a_fetch[256];");
    expect(code).toContain("for (uniform int loopy_lid1 = 0; loopy_lid1 < 16; ++loopy_lid1)");
    expect(code).not.toContain("loopy_lid2");
    expect(code).toMatch(/float acc_k_outer_k_inner\[16\];/);
    expect(code).toContain("acc_k_outer_k_inner[loopy_lid1] = 0.0f;");
    // init; fetch | compute inside the k_outer loop; store
    expect(checkFission(code).loops).toBe(4);
    expect(checkFission(generateCode(stencil!, "ispc").deviceCode).loops).toBe(2);
    // l.0 only: the gang runs in step, no loops
    expect(checkFission(generateCode(reduction!, "ispc").deviceCode).loops).toBe(0);
    const across = generateCode(fetchAcross(4), "ispc").deviceCode;
    expect(across).toContain("float x[4];");
    expect(checkFission(across).loops).toBe(2);
  });

  it("a private declared with a value of l.1 and used across a barrier: its copies set in loops of their own, before the first use", () => {
    const lid1: Ex = { k: "hw", tag: "l", axis: 1 };
    const x: Ex = { k: "var", name: "x" };
    const lk: LoweredKernel = {
      name: "init_across", args: [{ name: "out", kind: "array", dtype: "int32", written: true }], groupSize: [], localSize: [1, 4],
      decls: [],
      body: [
        { k: "decl", dtype: "int32", name: "x", init: { k: "bin", op: "*", l: lid1, r: { k: "lit", value: 2, dtype: "int32" }, dtype: "int32" } },
        { k: "for", v: "s", lo: { k: "lit", value: 0, dtype: "idx" }, hi: { k: "lit", value: 1, dtype: "idx" }, body: { k: "block", body: [
          { k: "assign", array: "out", index: lid1, dtype: "int32", rhs: x },
          { k: "barrier", comment: "b", memory: "global" },
          { k: "assign", name: "x", dtype: "int32", rhs: { k: "bin", op: "+", l: x, r: { k: "load", array: "out", index: lid1, dtype: "int32" }, dtype: "int32" } },
        ] } },
      ],
    };
    const code = ispcTarget.render([lk]).deviceCode;
    expect(code).toContain("int32 x[4];");
    // (int32 data arithmetic wraps, computed unsigned: codegen/ast.ts)
    expect(code.indexOf("x[loopy_lid1] = (int32) ((uint32) loopy_lid1 * 2u);")).toBeLessThan(code.indexOf("for (int s = 0;"));
    expect(code).toContain("x[loopy_lid1] = (int32) ((uint32) x[loopy_lid1] + (uint32) out[loopy_lid1]);");
    expect(checkFission(code).loops).toBe(3);
  });

  it("a break out of a loop that holds a barrier, from code in l.1 loops, is a CodegenError (it would leave the l.1 loop)", () => {
    const one: Ex = { k: "lit", value: 1, dtype: "int32" };
    const lk: LoweredKernel = {
      name: "breaks", args: [{ name: "out", kind: "array", dtype: "int32", written: true }], groupSize: [], localSize: [1, 4], decls: [],
      body: [{ k: "while", cond: one, body: { k: "block", body: [
        { k: "assign", array: "out", index: { k: "hw", tag: "l", axis: 1 }, dtype: "int32", rhs: one },
        { k: "if", cond: one, then: { k: "break" } },
        { k: "barrier", comment: "b", memory: "global" },
      ] } }],
    };
    expect(() => ispcTarget.render([lk])).toThrow(/kernel "breaks" on the ispc target: a break or continue leaves a loop that holds a barrier/);
  });

  it("a private value across a barrier with l.1 of parametric extent is a CodegenError saying what ispc accepts", () => {
    expect(() => generateCode(fetchAcross("m"), "ispc")).toThrow(/kernel "fetch_across" on the ispc target: variable "x" lives across a barrier while l.1\/l.2 are loops of parametric extent m × 1; ispc accepts that with constant l.1\/l.2 extents/);
  });

  it("a group without l.0 is run by the gang's first program instance (the others would repeat it)", () => {
    const k = tagInames(makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "n: int32"], { name: "groups_only" }), { i: "g.0" });
    expect(generateCode(k, "ispc").deviceCode).toMatch(/if \(programIndex == 0\)\n\s+out\[\(\(int\) taskIndex0\)\] = /);
  });

  it("atomics are the standard library's, _global in global memory and _local in the task's uniform arrays; doubles written 2.5d", () => {
    expect(generateCode(atomicKernel("+", "int32"), "ispc").deviceCode).toContain("atomic_add_global(&r[");
    expect(generateCode(atomicKernel("max", "uint32", true), "ispc").deviceCode).toContain("atomic_max_local(&t[0], ");
    expect(() => generateCode(atomicKernel("+", "int16"), "ispc")).toThrow(/the ispc target has no atomic "\+" update of int16; it has atomics on 32- and 64-bit integers/);
    const dbl = makeKernel("{[i]: 0<=i<n}", "out[i] = 2.5*a[i]", ["a, out: float64[n]", "n: int32"], { name: "dbl" });
    expect(generateCode(dbl, "ispc").deviceCode).toContain("2.5d * a[");
  });
});

syntaxCheckSuite("ispc", {
  against: "the ISPC shim", hostile: HOSTILE, misspell: ["atomic_add_global", "atomic_add_globl"], extra: [fetchAcross(4)],
  atomics: [atomicKernel("min", "float64", true), atomicKernel("^", "uint64", true)],
});

// ---- the l.1/l.2 loops run ------------------------------------------------------------------

interface Case { readonly G: number; readonly L1: number; readonly L2: number; readonly S: number; readonly loop: boolean }

/**
 * Work-item (j, k) of group g (l.1 = j, l.2 = k, P = L1*L2 per group) fetches into local `t` and
 * reads its mirror after the barrier, plus a private `x` computed before it. With `loop`, that
 * repeats over S sequential steps accumulating into a private `acc` (barriers inside the loop;
 * `x` then used only inside it).
 */
function kernelOf(c: Case, n: number): Kernel {
  const P = c.L1 * c.L2;
  const me = `${c.L1}*k + j`;
  const size = c.G * P * (c.loop ? c.S : 1);
  const args = [temporary("t", "float32", [P], "local"), `a: float32[${size}]`, `out: float32[${c.G * P}]`];
  const insns = c.loop
    ? [
      // One sum per work-item: set within g, j, k (set once outside them, it would be one running sum).
      "<float32> acc = 0 {id=init, inames=g:j:k}",
      `<float32> x = 2*a[(s*${c.G} + g)*${P} + ${me}] {id=p, dep=init, inames=+s}`,
      `t[${me}] = a[(s*${c.G} + g)*${P} + ${me}] {id=f, dep=p, inames=+s}`,
      `acc = acc + t[${P - 1} - (${me})] + x {id=u, dep=f, inames=+s}`,
      `out[g*${P} + ${me}] = acc {id=w, dep=u}`,
    ]
    : [
      `<float32> x = 2*a[g*${P} + ${me}] {id=p}`,
      `t[${me}] = a[g*${P} + ${me}] {id=f, dep=p}`,
      `out[g*${P} + ${me}] = t[${P - 1} - (${me})] + x {id=u, dep=f}`,
    ];
  const domain = `{[g,s,j,k]: 0<=g<${c.G} and 0<=s<${c.S} and 0<=j<${c.L1} and 0<=k<${c.L2}}`;
  return tagInames(makeKernel(domain, insns, [...args], { name: `run${n}` }), { g: "g.0", j: "l.1", k: "l.2" });
}

function reference(c: Case, a: readonly number[]): number[] {
  const P = c.L1 * c.L2;
  return Array.from({ length: c.G * P }, (_, i) => {
    const g = Math.floor(i / P);
    const me = i % P;
    if (!c.loop) return a[g * P + P - 1 - me]! + 2 * a[i]!;
    let acc = 0;
    for (let s = 0; s < c.S; s++) acc = Math.fround(Math.fround(acc + a[(s * c.G + g) * P + P - 1 - me]!) + 2 * a[(s * c.G + g) * P + me]!);
    return acc;
  });
}

/** `launch[A, B, C] f(args);` as loops over the task indices (A fastest). */
function launchLoops(code: string): string {
  return code.replace(/launch\[(.*)\] (\w+\(.*\));/g, (_, sizes: string, call: string) => {
    const [a, b, c] = sizes.split(", ");
    return `for (taskIndex2 = 0; taskIndex2 < ${c}; ++taskIndex2) for (taskIndex1 = 0; taskIndex1 < ${b}; ++taskIndex1) for (taskIndex0 = 0; taskIndex0 < ${a}; ++taskIndex0) ${call};`;
  });
}

const caseArb = fc.record({
  G: fc.integer({ min: 1, max: 3 }), L1: fc.integer({ min: 1, max: 5 }), L2: fc.integer({ min: 1, max: 3 }),
  S: fc.integer({ min: 1, max: 3 }), loop: fc.boolean(),
}).filter((c) => c.L1 * c.L2 > 1);

describe.skipIf(!hasGxx)("ispc: l.1/l.2 loops split at barriers compute what the kernel says (run as C++ with a gang of one)", () => {
  it("random extents, group counts and steps, with and without barriers inside a sequential loop", () => {
    const cases = fc.sample(caseArb, { numRuns: 10, seed: 22 }).concat([{ G: 2, L1: 4, L2: 3, S: 2, loop: true }, { G: 1, L1: 3, L2: 2, S: 1, loop: false }]);
    const dir = mkdtempSync(join(tmpdir(), "loom-ispc-run-"));
    const inputs = cases.map((c) => Array.from({ length: c.G * c.L1 * c.L2 * (c.loop ? c.S : 1) }, (_, i) => ((i * 7) % 11) - 5 + 0.25 * (i % 3)));
    const parts = cases.map((c, n) => {
      const code = generateCode(kernelOf(c, n), "ispc");
      expect(code.deviceCode, "l.1 as a loop").toMatch(/for \(uniform int loopy_lid1 = 0;|for \(uniform int loopy_lid2 = 0;/);
      const a = inputs[n]!;
      const P = c.G * c.L1 * c.L2;
      return [
        `namespace loopy_case_${n} {`, code.deviceCode, code.hostCode!,
        `void loopy_main() { static float a[] = {${a.join(", ")}}; static float out[${P}]; ${code.kernels[0]!.name}_host(a, out);`,
        `  std::printf("case ${n}"); for (int i = 0; i < ${P}; ++i) std::printf(" %.9g", out[i]); std::printf("\\n"); }`,
        "}",
      ].join("\n");
    });
    const main = `int main() { ${cases.map((_, n) => `loopy_case_${n}::loopy_main();`).join(" ")} }`;
    const file = join(dir, "run.cpp");
    writeFileSync(file, SPELLINGS.ispc.rewrite!(launchLoops(["#define LOOPY_ISPC_RUN", SPELLINGS.ispc.include, "#include <cstdio>", ...parts, main].join("\n"))));
    execFileSync("g++", ["-std=c++17", "-O0", "-w", "-I", HEADERS, file, "-o", join(dir, "run")], { stdio: "pipe", timeout: compileBudgetMs(1) });
    const lines = execFileSync(join(dir, "run"), { encoding: "utf8" }).trim().split("\n");
    rmSync(dir, { recursive: true, force: true });
    expect(lines.length).toBe(cases.length);
    cases.forEach((c, n) => {
      const got = lines[n]!.split(" ").slice(2).map(Number);
      expect(got, `case ${n}: ${JSON.stringify(c)}`).toEqual(reference(c, inputs[n]!).map((x) => Math.fround(x)));
    });
  }, compileBudgetMs(1));
});
