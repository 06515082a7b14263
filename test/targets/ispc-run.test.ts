/**
 * ISPC's l.1/l.2 loops run (issue 22): ISPC has one program index, so Loom writes the work-items
 * of l.1/l.2 as loops inside the task, split at barriers, with a copy per work-item of each private
 * value live across one (codegen/targets/ispc-local-loops.ts). No ispc compiler is installable
 * here; kernels without l.0 run their group's work on the gang's first program instance, so their
 * ISPC runs as C++ through the shim with a gang of one (LOOPY_ISPC_RUN), the tasks of a launch as
 * loops. Random extents and group counts (fast-check), all cases in one g++ compile and one run,
 * each output equal to a reference written here.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { tagInames } from "../../transforms/index.js";
import { compileBudgetMs } from "../codegen/compile-helpers.js";
import { hasGxx, HEADERS, SPELLINGS } from "./sycl-metal-alpaka-ispc-cases.js";

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
      "<float32> acc = 0 {id=init}",
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
