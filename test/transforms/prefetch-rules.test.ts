/** addPrefetch fetches the reads inside substitution rules too, as loopy's does: the rules are expanded where they are called. */
import { describe, expect, it } from "vitest";
import { exprToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef } from "../../src/run/index.js";
import { addPrefetch, splitIname } from "../../transforms/index.js";

const text = (k: Kernel) => k.instructions.map((i) => (i.kind === "assign" ? `${exprToString(i.lhs)} = ${exprToString(i.rhs)}` : i.id));

async function sameMeaning(ref: Kernel, k: Kernel, params: Record<string, number>): Promise<void> {
  for (const backend of ["interp", "js"] as const) {
    const r = await autoTestVsRef(ref, k, { params, backend, seed: 3 });
    expect(r.ok, r.mismatches.join("; ")).toBe(true);
  }
}

describe("prefetching an array read inside substitution rules", () => {
  const tiled = (rules: string[], insn: string) => splitIname(makeKernel("{[i]: 0<=i<n}", [...rules, insn],
    ["a: float32[n+1]", "out: float32[n]", "n: int32"], { name: "r", assumptions: "n mod 4 = 0" }), "i", 4, { outerTag: "g.0", innerTag: "l.0" });

  it("a read only a rule makes is fetched (it was 'no instruction reads a')", async () => {
    const k = tiled(["f(x) := 2*a[x] + a[x+1]"], "out[i] = f(i)");
    const t = addPrefetch(k, "a", { sweepInames: ["i_inner"] });
    const out = text(t).find((l) => l.startsWith("out"))!;
    expect(out).not.toMatch(/f\(/);
    expect(out).toMatch(/a_fetch\[.*\].*a_fetch\[/);
    await sameMeaning(k, t, { n: 12 });
  });

  it("reads through nested rules and beside direct reads all go through the fetch", async () => {
    const k = tiled(["g(x) := a[x+1]*3", "f(x) := g(x) - a[x]"], "out[i] = f(i) + a[i]");
    const t = addPrefetch(k, "a", { sweepInames: ["i_inner"] });
    const out = text(t).find((l) => l.startsWith("out"))!;
    expect(out).not.toMatch(/(^|[^_])a\[/);
    expect(out).not.toMatch(/[fg]\(/);
    await sameMeaning(k, t, { n: 8 });
  });

  it("with within, only the selected instructions' calls are expanded", async () => {
    const k = splitIname(makeKernel("{[i]: 0<=i<n}", ["f(x) := 2*a[x]", "out[i] = f(i) {id=s1}", "out2[i] = f(i) {id=s2}"],
      ["a, out, out2: float32[n]", "n: int32"], { name: "w", assumptions: "n mod 4 = 0" }), "i", 4, { outerTag: "g.0", innerTag: "l.0" });
    const t = addPrefetch(k, "a", { sweepInames: ["i_inner"], within: "id:s1" });
    expect(text(t).find((l) => l.startsWith("out2"))).toBe("out2[i_inner + i_outer*4] = f(i_inner + i_outer*4)");
    expect(text(t).find((l) => l.startsWith("out["))).toMatch(/a_fetch/);
    await sameMeaning(k, t, { n: 8 });
  });
});
