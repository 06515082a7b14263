import fc from "fast-check";
import { domainFactor, factorText } from "../poly/domain-factors.js";
import { describe, expect, it } from "vitest";
import { chainDomain, insnInames, iterationDomain, withKernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { clearPolyMemos, isEqualSet, parseSet, printSet, projectOut, setContentId } from "../../src/poly/index.js";

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

describe("iterationDomain projects one independent factor at a time", () => {
  // Factors of a domain (no dim or existential shared): split tiles, triangles, strides, boxes,
  // with constants from 0 and 1 up to near the int32 limit; a parameter part with a modulus.
  const factor = domainFactor();
  const text = factorText;
  it("law: the answer is projectOut of the whole chain domain, row for row", () => {
    fc.assert(fc.property(fc.array(factor, { minLength: 1, maxLength: 3 }), fc.constantFrom("", " and n mod 4 = 0", " and n >= 1"), fc.array(fc.nat(5), { maxLength: 3 }), (fs, params, pick) => {
      const names = fs.flatMap((_, r) => [`x${r}`, `y${r}`]);
      const dom = `{[${names.join(",")}]: ${fs.map((f, r) => text(f, `x${r}`, `y${r}`)).join(" and ")}${params}}`;
      const k = makeKernel(dom, "out[0] = 1", ["out: float32[1]", "n: int32"]);
      const keep = [...new Set(pick.map((p) => names[p % names.length]!))];
      if (keep.length === 0) return;
      const whole = chainDomain(k, keep);
      const drop = whole.dims.filter((d) => !keep.includes(d));
      clearPolyMemos();
      const direct = projectOut(whole, drop);
      clearPolyMemos();
      expect(setContentId(iterationDomain(withKernel(k, { domains: [...k.domains] }), keep))).toBe(setContentId(direct));
    }), { numRuns: 60 });
  });
});
