import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { show } from "../../src/ir/print.js";

describe("show(makeKernel(…)) prints loopy's sections", () => {
  it("for a small matmul", () => {
    const k = makeKernel("{[i,j,k]: 0<=i,j,k<n}", `
      <float32> acc = 0                       {id=init, inames=i:j}
      acc = acc + a[i, k]*b[k, j]             {id=upd, dep=init}
      c[i, j] = acc                           {id=store, dep=upd}
    `, ["a, b, c: float32[n, n]", "n: int32"], { name: "matmul" });
    const lines = show(k).split("\n");
    const section = (title: string) => {
      const start = lines.indexOf(title);
      expect(start).toBeGreaterThan(0);
      const end = lines.findIndex((l, idx) => idx > start && l.startsWith("-----"));
      return lines.slice(start + 1, end);
    };
    expect(lines[1]).toBe("KERNEL: matmul");
    expect(section("ARGUMENTS:")).toEqual([
      "a: type: float32, shape: (n, n), dim_tags: (N1:stride:n, N0:stride:1) in aspace: global",
      "b: type: float32, shape: (n, n), dim_tags: (N1:stride:n, N0:stride:1) in aspace: global",
      "c: type: float32, shape: (n, n), dim_tags: (N1:stride:n, N0:stride:1) in aspace: global",
      "n: ValueArg, type: int32",
    ]);
    expect(section("DOMAINS:")).toHaveLength(1);
    expect(section("DOMAINS:")[0]).toMatch(/^\[n\] -> \{ \[i, j, k\] : /);
    expect(section("INAME TAGS:")).toEqual(["i: None", "j: None", "k: None"]);
    expect(section("TEMPORARIES:")).toEqual(["acc: type: float32, shape: () aspace: auto"]);
    expect(section("INSTRUCTIONS:")).toEqual([
      "for i",
      "  for j",
      "    acc = 0  {id=init}",
      "    for k",
      "      acc = acc + a[i, k]*b[k, j]  {id=upd, dep=init}",
      "    end k",
      "    c[i, j] = acc  {id=store, dep=upd}",
      "  end j",
      "end i",
    ]);
  });
});
