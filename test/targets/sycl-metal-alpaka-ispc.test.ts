/**
 * What the sycl, metal, alpaka and ispc targets share (issue 22):
 * - hostile names: a kernel whose kernel, array, iname and size names are reserved words of these
 *   languages or the printers' own names generates the same code as with plain names, but for a
 *   consistent renaming to names no dialect reserves (fast-check over the targets' reserved words);
 * - docs/targets-sycl-metal-alpaka-ispc.md shows the code the targets generate: every line of its
 *   code listings (but the elided `…` ones) is a line of the vector add's device or host code on
 *   the target of its section, and its TypeScript example is the kernel checked here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { allReservedWords, isReserved } from "../../codegen/names.js";
import { LoomError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { expectRenaming } from "./renaming.js";
import { classics, hostileKernel } from "./sycl-metal-alpaka-ispc-cases.js";

const TARGETS = ["sycl", "metal", "alpaka", "ispc"] as const;
const WORDS = allReservedWords().filter((w) => /^[A-Za-z]\w*$/.test(w) && TARGETS.some((t) => isReserved(w, t)));
const PLAIN = ["p_kernel", "p_x", "p_out", "p_i", "p_n"] as const;


function built(names: readonly [string, string, string, string, string]): Kernel | undefined {
  try {
    return hostileKernel(names);
  } catch (e) {
    if (e instanceof LoomError) return undefined; // a word Loom's own syntax takes (`sum`, `if`)
    throw e;
  }
}

describe("hostile names on sycl, metal, alpaka and ispc", () => {
  it("the code is the plain-named code with each name consistently replaced by one the dialect does not reserve", () => {
    const plain = hostileKernel(PLAIN);
    const words = fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 5, maxLength: 5 }) as fc.Arbitrary<[string, string, string, string, string]>;
    fc.assert(fc.property(words, (names) => {
      const k = built(names);
      fc.pre(k !== undefined);
      for (const t of TARGETS) {
        const [a, b] = [generateCode(plain, t), generateCode(k!, t)];
        expectRenaming(`${a.deviceCode}\n${a.hostCode}`, `${b.deviceCode}\n${b.hostCode}`, PLAIN, (w) => isReserved(w, t), t);
      }
    }), { numRuns: 12, examples: [[["loopy_item", "loopy_cgh", "loopy_acc", "loopy_lid1", "loopy_queue"]], [["task", "kernel", "uniform", "programIndex", "sycl"]],
      // Found by seed -62693577: a kernel named "atomic" made the host function "atomic_host", which ISPC and Metal reserve (atomic_*).
      [["atomic", "ALPAKA_FN_ACC", "uint_least8_t", "erf", "override"]]] });
  }, 60_000);
});

const page = readFileSync(join(import.meta.dirname, "../../docs/targets-sycl-metal-alpaka-ispc.md"), "utf8");
const SECTIONS = { sycl: "## SYCL 2020", metal: "## Metal", alpaka: "## alpaka 1.x", ispc: "## ISPC" } as const;

describe("docs/targets-sycl-metal-alpaka-ispc.md", () => {
  it("its example builds the vector add of the tests", () => {
    expect(page).toContain(`lp.makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] + b[i]", ["a, b: float32[n]", "out: float32[n]", "n: int32"], { name: "vecadd" }),\n  "i", 128, { outerTag: "g.0", innerTag: "l.0" });`);
  });

  for (const [target, heading] of Object.entries(SECTIONS)) {
    it(`${target}: each listed line is generated`, () => {
      const start = page.indexOf(heading);
      const section = page.slice(start, page.indexOf("\n## ", start + 1));
      const listed = [...section.matchAll(/```(?:cpp|c)\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split("\n")).filter((l) => l.trim() !== "" && !l.includes("…"));
      expect(listed.length).toBeGreaterThan(0);
      const code = generateCode(classics()[0]!, target as keyof typeof SECTIONS);
      const lines = new Set(`${code.deviceCode}\n${code.hostCode}`.split("\n"));
      for (const l of listed) expect(lines.has(l), `${target}: ${l}`).toBe(true);
    });
  }
});
