import { describe, expect, it } from "vitest";
import { chainDomain, insnInames, iterationDomain, withKernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { isEqualSet, parseSet, printSet } from "../../src/poly/index.js";

const nested = () => makeKernel(["{[i]: 0 <= i < n}", "[i] -> {[j]: 0 <= j <= i}"], "a[i, j] = 1", ["a: float32[n, n]", "n: int32"]);

describe("iterationDomain is remembered per domain chain", () => {
  it("answers the same for kernels that share the chain's domains, and afresh when a domain changes", () => {
    const k = nested();
    const d1 = iterationDomain(k, ["j"]);
    expect(isEqualSet(d1, parseSet("[n] -> {[j]: 0 <= j < n}"))).toBe(true);
    // A kernel with other instructions but the same domain objects: the same answer.
    const k2 = withKernel(k, { instructions: [] });
    expect(iterationDomain(k2, ["j"])).toBe(d1);
    expect(iterationDomain(k2, ["j", "i"])).toBe(iterationDomain(k, ["i", "j"]));
    // A new inner domain: a new answer.
    const k3 = withKernel(k, { domains: [k.domains[0]!, parseSet("[i] -> {[j]: 0 <= j <= i and j <= 3}")] });
    expect(printSet(iterationDomain(k3, ["j"]))).not.toBe(printSet(d1));
    expect(isEqualSet(iterationDomain(k3, ["j"]), parseSet("[n] -> {[j]: 0 <= j <= 3 and j < n}"))).toBe(true);
  });
});

describe("chainDomain", () => {
  it("is the chain's domains intersected, parent inames as dims, and projects to iterationDomain", () => {
    const k = nested();
    const c = chainDomain(k, ["j"]);
    expect(c.dims).toEqual(["i", "j"]);
    expect(isEqualSet(c, parseSet("[n] -> {[i, j]: 0 <= i < n and 0 <= j <= i}"))).toBe(true);
    expect(chainDomain(k, ["j"])).toBe(c);
    expect(chainDomain(k, ["i"]).dims).toEqual(["i"]);
  });
});

describe("insnInames", () => {
  it("lists the loops, then the reduction inames (each once), remembered per instruction", () => {
    const k = makeKernel("{[i, j, k]: 0 <= i, j, k < n}", "a[i] = sum(k, b[k]) + sum(j, b[j]) * sum(k, b[k])", ["a: float32[n]", "b: float32[n]", "n: int32"]);
    const insn = k.instructions[0]!;
    expect([...insnInames(insn)]).toEqual(["i", "k", "j"]);
    expect(insnInames(insn)).toBe(insnInames(insn));
    expect(Object.isFrozen(insnInames(insn))).toBe(true);
  });
});

describe("makeKernel from text", () => {
  it("gives equal kernels for equal text, and different ones for different options", () => {
    const a = nested();
    expect(nested()).toEqual(a);
    const named = makeKernel(["{[i]: 0 <= i < n}", "[i] -> {[j]: 0 <= j <= i}"], "a[i, j] = 1", ["a: float32[n, n]", "n: int32"], { name: "other" });
    expect(named.name).toBe("other");
    expect(a.name).not.toBe("other");
    expect(Object.isFrozen(a)).toBe(true);
  });
});
