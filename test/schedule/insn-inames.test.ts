/**
 * The scheduling passes' inames of an instruction (src/schedule/insn-inames.ts) are `insnInames`'s:
 * for all instructions (loops with repeats or not, reductions nested anywhere in the right- and
 * left-hand sides and predicates), the same names in the same order, and the very same array
 * (its `withinInames`) where a frozen instruction has no reduction.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { insnDefaults, insnInames, type Assignment, type Expr } from "../../src/ir/index.js";
import { inamesIn, inamesOf } from "../../src/schedule/insn-inames.js";

const NAMES = ["i", "j", "k", "r", "s"];

const exprArb: fc.Arbitrary<Expr> = fc.letrec<{ e: Expr }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...NAMES).map((name): Expr => ({ kind: "var", name })),
    fc.integer({ min: 0, max: 9 }).map((value): Expr => ({ kind: "const", value, isFloat: false })),
    fc.tuple(tie("e"), tie("e")).map(([left, right]): Expr => ({ kind: "arith", op: "+", left, right })),
    fc.array(tie("e"), { maxLength: 2 }).map((indices): Expr => ({ kind: "subscript", array: "a", indices })),
    fc.array(tie("e"), { maxLength: 2 }).map((args): Expr => ({ kind: "call", fn: "max", args })),
    fc.tuple(fc.subarray(NAMES, { minLength: 1 }), tie("e")).map(([inames, body]): Expr => ({ kind: "reduce", op: "sum", inames, body })),
  ),
})).e;

describe("inamesOf", () => {
  it("is insnInames: the same names in order, and withinInames itself where there is no reduction", () => {
    fc.assert(fc.property(
      fc.array(fc.constantFrom(...NAMES), { maxLength: 4 }), exprArb, exprArb, fc.array(exprArb, { maxLength: 2 }), fc.boolean(),
      (within, rhs, index, predicates, freeze) => {
        const insn: Assignment = Object.assign(insnDefaults("x"), {
          kind: "assign" as const, lhs: { kind: "subscript" as const, array: "out", indices: [index] }, rhs, atomicity: "none" as const,
          withinInames: within, predicates,
        });
        if (freeze) Object.freeze(Object.freeze(insn).withinInames);
        const got = inamesOf(insn);
        expect([...got]).toEqual([...insnInames(insn)]);
        if (freeze && got === within) expect(got).toBe(insnInames(insn));
      }), { numRuns: 300 });
  });

  it("is asked once per instruction of a frozen list (inamesIn): the same names, the same array again", () => {
    const sum: Expr = { kind: "reduce", op: "sum", inames: ["k"], body: { kind: "var", name: "k" } };
    const insn: Assignment = Object.freeze(Object.assign(insnDefaults("x"), {
      kind: "assign" as const, lhs: { kind: "var" as const, name: "out" }, rhs: sum, atomicity: "none" as const, withinInames: Object.freeze(["i"]),
    }));
    const list = Object.freeze([insn]);
    const first = inamesIn(list, insn);
    expect([...first]).toEqual(["i", "k"]);
    // (inamesOf builds a new array for an instruction with a reduction: the second answer is the remembered one.)
    expect(inamesIn(list, insn)).toBe(first);
    // Another list is another question.
    expect(inamesIn(Object.freeze([insn]), insn)).not.toBe(first);
  });
});

