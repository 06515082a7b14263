/**
 * Random expression trees with a node of every kind (variables i, j, n, a; small integers), for
 * the laws of the expression walks: the IR's own (test/ir/expr.test.ts) and the OKL importer's
 * allocation-free ones (test/okl/expr-scan.test.ts).
 */
import fc from "fast-check";
import type { Expr } from "../../src/ir/index.js";

const leaf: fc.Arbitrary<Expr> = fc.oneof(
  fc.constantFrom("i", "j", "n", "a").map((name): Expr => ({ kind: "var", name })),
  fc.integer({ min: -3, max: 9 }).map((value): Expr => ({ kind: "const", value, isFloat: false })),
);

export const { exprTree } = fc.letrec<{ exprTree: Expr }>((tie) => ({
  exprTree: fc.oneof({ depthSize: "small", withCrossShrink: true },
    leaf,
    fc.tuple(fc.constantFrom("+", "*", "&", "<<"), tie("exprTree"), tie("exprTree")).map(([op, left, right]): Expr => ({ kind: "arith", op: op as "+", left, right })),
    fc.tuple(tie("exprTree"), tie("exprTree")).map(([left, right]): Expr => ({ kind: "compare", op: "<", left, right })),
    fc.tuple(fc.constantFrom("and", "or"), tie("exprTree"), tie("exprTree")).map(([op, left, right]): Expr => ({ kind: "logical", op: op as "and", left, right })),
    tie("exprTree").map((operand): Expr => ({ kind: "neg", operand })),
    tie("exprTree").map((operand): Expr => ({ kind: "not", operand })),
    tie("exprTree").map((operand): Expr => ({ kind: "bitnot", operand })),
    fc.tuple(fc.constantFrom("int32", "int64"), tie("exprTree")).map(([dtype, value]): Expr => ({ kind: "cast", dtype: dtype as "int32", value })),
    fc.tuple(tie("exprTree"), tie("exprTree"), tie("exprTree")).map(([cond, then, els]): Expr => ({ kind: "if", cond, then, else: els })),
    fc.array(tie("exprTree"), { maxLength: 3 }).map((args): Expr => ({ kind: "call", fn: "f", args })),
    fc.array(tie("exprTree"), { minLength: 1, maxLength: 2 }).map((indices): Expr => ({ kind: "subscript", array: "a", indices })),
    tie("exprTree").map((index): Expr => ({ kind: "linear", array: "b", index })),
    tie("exprTree").map((body): Expr => ({ kind: "reduce", op: "sum", inames: ["j"], body })),
  ),
}));
