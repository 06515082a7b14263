// The walks big kernels take once per expression, without a memo entry per expression (issue 21,
// scale): `addFreeVariables` names what `freeVariables` names, in the same order, and
// `insnInames` of an instruction without reductions is its loop list itself.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { addFreeVariables, freeVariables, insnDefaults, insnInames, reductionInames, type Expr, type Instruction } from "../../src/ir/index.js";
import { exprTree } from "./expr-arb.js";

const deepFreeze = <T>(x: T): T => {
  if (x !== null && typeof x === "object" && !Object.isFrozen(x)) {
    for (const v of Object.values(x)) deepFreeze(v);
    Object.freeze(x);
  }
  return x;
};

describe("addFreeVariables", () => {
  it("law: adds freeVariables' names in its order, to what the set held, frozen or not", () => {
    fc.assert(
      fc.property(exprTree, fc.subarray(["z", "a", "i"]), fc.boolean(), (e, before, frozen) => {
        const x = frozen ? deepFreeze(structuredClone(e)) : e;
        expect([...addFreeVariables(x, new Set(before))]).toEqual([...freeVariables(structuredClone(e), new Set(before))]);
      }),
      { numRuns: 200 },
    );
  });
});

describe("insnInames", () => {
  const insn = (within: string[], rhs: Expr, predicates: Expr[]): Instruction =>
    deepFreeze({ ...insnDefaults("s"), kind: "assign", lhs: { kind: "var", name: "t" }, rhs, atomicity: "none", withinInames: within, predicates });

  it("law: the loops (each once, in order), then the reduction inames of the right-hand side and predicates", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("i", "j", "k"), { maxLength: 4 }), exprTree, fc.array(exprTree, { maxLength: 2 }), (within, rhs, preds) => {
        const want = new Set(within);
        reductionInames(rhs, want);
        for (const p of preds) reductionInames(p, want);
        expect(insnInames(insn(within, rhs, preds))).toEqual([...want]);
      }),
      { numRuns: 200 },
    );
  });

  it("is the instruction's own loop list where it has no reduction (no copy per instruction)", () => {
    const x = insn(["e", "n"], { kind: "arith", op: "+", left: { kind: "var", name: "a" }, right: { kind: "const", value: 1, isFloat: false } }, []);
    expect(insnInames(x)).toBe(x.withinInames);
  });
});
