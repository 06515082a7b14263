/**
 * Lookups that big kernels (thousands of instructions and temporaries, issue 21) make many times:
 * the fast forms give the answers of the plain ones.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { findArg, findTemporary, inferTypes, uniqueName, uniqueNamer, withKernel, type Temporary } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";

describe("uniqueNamer", () => {
  it("names as uniqueName called in turn, each name added to the taken set", () => {
    const base = fc.constantFrom<string>("insn", "a", "a_0", "t");
    fc.assert(fc.property(fc.array(fc.oneof(base, fc.constantFrom("insn_1", "a_0_0", "t_2"))), fc.array(base, { maxLength: 40 }), (taken0, asks) => {
      const slow = new Set(taken0);
      const expected = asks.map((b) => {
        const n = uniqueName(b, slow);
        slow.add(n);
        return n;
      });
      const fast = new Set(taken0);
      const fresh = uniqueNamer(fast);
      const got = asks.map((b) => fresh(b));
      expect(got).toEqual(expected);
      expect([...fast].sort()).toEqual([...slow].sort());
    }), { numRuns: 200 });
  });

  it("names the instructions of makeKernel insn, insn_0, insn_1, … around given ids", () => {
    const k = makeKernel("{[i]: 0 <= i < n}", ["a[i] = 1", "b[i] = 2 {id=insn_0}", "c[i] = 3", "d[i] = 4"], ["a, b, c, d: float32[n]", "n: int32"]);
    expect(k.instructions.map((x) => x.id)).toEqual(["insn", "insn_0", "insn_1", "insn_2"]);
  });
});

describe("findTemporary and findArg on long lists", () => {
  it("answer as a scan does: the first entry of the name, undefined for none", () => {
    const temp = (name: string, n: number): Temporary => ({ name, dtype: "float32", shape: [{ kind: "int", value: n } as never], addressSpace: "private", order: "C", dimTags: undefined });
    fc.assert(fc.property(fc.array(fc.constantFrom("t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11"), { maxLength: 30 }), fc.constantFrom("t0", "t5", "t11", "x"), (names, ask) => {
      const k0 = makeKernel("{[i]: 0 <= i < 4}", "a[i] = 1", ["a: float32[4]"]);
      const temporaries = names.map((n, j) => temp(n, j + 1));
      const k = withKernel(k0, { temporaries });
      expect(findTemporary(k, ask)).toBe(temporaries.find((t) => t.name === ask));
      expect(findArg(k, ask)).toBe(k.args.find((a) => a.name === ask));
    }), { numRuns: 100 });
  });
});

describe("inferTypes with writers indexed by name", () => {
  it("types a chain of temporaries through a block, an assignment and a self-reference", () => {
    const insns = ["<> t0 = a[i]", ...Array.from({ length: 12 }, (_, j) => `<> t${j + 1} = t${j} * 2`), "<> s = 0 {id=s0}", "s = s + t12 {id=s1, dep=s0}", "b[i] = s {dep=s1}"];
    const k = inferTypes(makeKernel("{[i]: 0 <= i < n}", insns, ["a: float64[n]", "b: float64[n]", "n: int32"]));
    for (const t of k.temporaries) expect([t.name, t.dtype]).toEqual([t.name, "float64"]);
  });
});
