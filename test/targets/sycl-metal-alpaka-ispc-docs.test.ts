/**
 * docs/targets-sycl-metal-alpaka-ispc.md shows the code the targets generate: every line of its
 * code listings (but the elided `…` ones) is a line of the vector add's device or host code on
 * the target of its section, and its TypeScript example is the kernel checked here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { classics } from "./sycl-metal-alpaka-ispc-cases.js";

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
