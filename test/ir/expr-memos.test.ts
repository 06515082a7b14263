// Answers remembered per frozen expression (src/ir/affine-expr.ts `exprToAff`, src/ir/expr.ts
// `reductionInames`, `freeVariables`): for every expression and every choice of allowed variables, the answer read
// from a frozen tree (remembered the first time, read back after) is the one computed afresh on an
// unfrozen copy of it, which is never remembered.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { exprToAff, freeVariables, reductionInames, type Expr } from "../../src/ir/index.js";
import { exprTree } from "./expr-arb.js";

const leaf: fc.Arbitrary<Expr> = fc.oneof(
  fc.constantFrom("i", "j", "n").map((name): Expr => ({ kind: "var", name })),
  fc.integer({ min: -3, max: 9 }).map((value): Expr => ({ kind: "const", value, isFloat: false })),
  fc.constant<Expr>({ kind: "const", value: 0.5, isFloat: true }),
);

/** Mostly affine integer expressions (the forms index expressions take), some not. */
const { affineTree } = fc.letrec<{ affineTree: Expr }>((tie) => ({
  affineTree: fc.oneof({ depthSize: "small", withCrossShrink: true },
    leaf,
    fc.tuple(fc.constantFrom("+", "-", "*", "//", "%"), tie("affineTree"), tie("affineTree"))
      .map(([op, left, right]): Expr => ({ kind: "arith", op: op as "+", left, right })),
    tie("affineTree").map((operand): Expr => ({ kind: "neg", operand })),
    fc.tuple(fc.constantFrom("int32", "int64", "uint8"), tie("affineTree")).map(([dtype, value]): Expr => ({ kind: "cast", dtype: dtype as "int32", value })),
    tie("affineTree").map((body): Expr => ({ kind: "reduce", op: "sum", inames: ["k"], body })),
  ),
}));

const frozenCopy = (e: Expr): Expr => {
  const freeze = (x: unknown): unknown => {
    if (x !== null && typeof x === "object") {
      for (const v of Object.values(x)) freeze(v);
      Object.freeze(x);
    }
    return x;
  };
  return freeze(structuredClone(e)) as Expr;
};

/** A predicate allowing the variables in `allowed`, and counting nothing else. */
const allowing = (allowed: readonly string[]) => (name: string) => allowed.includes(name);

describe("exprToAff remembered per frozen expression", () => {
  it("answers as a fresh conversion of an unfrozen copy, for any allowed variables, first time and after", () => {
    const names = fc.subarray(["i", "j", "n"]);
    fc.assert(
      fc.property(fc.oneof(affineTree, exprTree), names, names, fc.boolean(), (e, first, second, plainFirst) => {
        const frozen = frozenCopy(e);
        // The first question remembers the answer (with or without a predicate); the later ones read it.
        const asks: (readonly string[] | undefined)[] = plainFirst ? [undefined, first, second] : [first, undefined, second];
        for (const allowed of asks) {
          const p = allowed === undefined ? undefined : allowing(allowed);
          const fresh = exprToAff(structuredClone(e), p);
          expect(exprToAff(frozen, p)).toEqual(fresh);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("remembers by identity: a frozen expression asked twice gives the same form object", () => {
    const e = frozenCopy({ kind: "arith", op: "+", left: { kind: "arith", op: "*", left: { kind: "const", value: 16, isFloat: false }, right: { kind: "var", name: "io" } }, right: { kind: "var", name: "ii" } });
    const a = exprToAff(e);
    expect(a).toEqual({ terms: { io: 16, ii: 1 }, constant: 0 });
    expect(exprToAff(e, (n) => n !== "x")).toBe(a);
    expect(exprToAff(e, (n) => n !== "ii")).toBeUndefined();
  });
});

describe("reductionInames remembered per frozen expression", () => {
  it("adds the names a walk of an unfrozen copy adds, in the same order, to what the set held", () => {
    fc.assert(
      fc.property(fc.oneof(exprTree, affineTree), fc.subarray(["k", "j", "x"]), (e, held) => {
        const frozen = frozenCopy(e);
        for (let round = 0; round < 2; round++) {
          const fresh = [...reductionInames(structuredClone(e), new Set(held))];
          expect([...reductionInames(frozen, new Set(held))]).toEqual(fresh);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe("freeVariables remembered per frozen expression", () => {
  it("adds the names a walk of an unfrozen copy adds, in the same order, to what the set held", () => {
    fc.assert(
      fc.property(fc.oneof(exprTree, affineTree), fc.subarray(["n", "a", "x"]), (e, held) => {
        const frozen = frozenCopy(e);
        for (let round = 0; round < 2; round++) {
          const fresh = [...freeVariables(structuredClone(e), new Set(held))];
          expect([...freeVariables(frozen, new Set(held))]).toEqual(fresh);
        }
      }),
      { numRuns: 100 },
    );
  });
});
