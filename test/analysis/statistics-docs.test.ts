/**
 * docs/statistics.md stays true: the printed maps in its first example are what getOpMap and
 * getMemAccessMap print for the kernel it builds (rebuilt here as written there).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";

const doc = readFileSync(new URL("../../docs/statistics.md", import.meta.url), "utf8");
const example = doc.slice(doc.indexOf("```ts"), doc.indexOf("```", doc.indexOf("```ts") + 5));

/** The comment lines that follow the line `call` in the example, without their `// `. */
function printedAfter(call: string): string {
  const lines = example.split("\n");
  const at = lines.findIndex((l) => l.trim() === call);
  expect(at, call).toBeGreaterThanOrEqual(0);
  const out: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (!l.startsWith("// ")) break;
    out.push(l.slice(3));
  }
  return out.join("\n");
}

describe("docs/statistics.md", () => {
  it("the tiled matmul's printed op and access maps are as the example shows", () => {
    expect(example).toContain(`lp.splitIname(t, "k", 8)`);
    const k = lp.makeKernel("{[i,k,j]: 0<=i<n and 0<=k<n and 0<=j<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
      ["a, b, c: float32[n, n]", "n: int32"], { assumptions: "n >= 1" });
    let t = lp.splitIname(k, "i", 16, { outerTag: "g.0", innerTag: "l.1" });
    t = lp.splitIname(t, "j", 16, { outerTag: "g.1", innerTag: "l.0" });
    t = lp.splitIname(t, "k", 8);
    expect(lp.getOpMap(t).toString()).toBe(printedAfter("lp.getOpMap(t).toString();"));
    expect(lp.getMemAccessMap(t).toString()).toBe(printedAfter("lp.getMemAccessMap(t).toString();"));
    const cost = lp.kernelCost(t, { n: 1024 });
    expect(cost).toMatchObject({ flops: 2 * 1024 ** 3, bytes: 4 * (2 * 1024 ** 2 * 64 + 1024 ** 2), model: "distinct-per-workgroup" });
    expect(printedAfter("lp.kernelCost(t, { n: 1024 });")).toContain(`intensity: ${cost.intensity.toFixed(2)}`);
  });
});
