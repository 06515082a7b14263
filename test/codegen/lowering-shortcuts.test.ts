/**
 * The lowering's shortcuts (issue 21's big kernels) against the routes they replace: its
 * expression typing (codegen/expr.ts `typeIn`) is the IR's `exprType`, the same type or the same
 * refusal, for every expression and environment; a loop's two bounds compared without printing
 * them (codegen/lower/same-json.ts `sameJson`) as `JSON.stringify` compares them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { typeIn } from "../../codegen/expr.js";
import { sameJson } from "../../codegen/lower/same-json.js";
import { exprType, type Dtype, type Expr, type TypeEnv } from "../../src/ir/index.js";
import { exprTree } from "../ir/expr-arb.js";

const DTYPES: readonly (Dtype | undefined)[] = ["int8", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64", "bool", undefined];

/** Arithmetic-heavy trees over x, y, z, w (their dtypes drawn per case) with weak and typed literals. */
const { arithTree } = fc.letrec<{ arithTree: Expr }>((tie) => ({
  arithTree: fc.oneof({ depthSize: "small", withCrossShrink: true },
    fc.constantFrom("x", "y", "z", "w").map((name): Expr => ({ kind: "var", name })),
    fc.record({ value: fc.integer({ min: -5, max: 5 }), isFloat: fc.boolean(), dtype: fc.constantFrom(...DTYPES) })
      .map(({ value, isFloat, dtype }): Expr => (dtype ? { kind: "const", value, isFloat, dtype } : { kind: "const", value, isFloat })),
    fc.tuple(fc.constantFrom("+", "-", "*", "/", "//", "%", "**", "&", "<<"), tie("arithTree"), tie("arithTree"))
      .map(([op, left, right]): Expr => ({ kind: "arith", op: op as "+", left, right })),
    tie("arithTree").map((operand): Expr => ({ kind: "neg", operand })),
    fc.tuple(tie("arithTree"), tie("arithTree"), tie("arithTree")).map(([cond, then, els]): Expr => ({ kind: "if", cond, then, else: els })),
    fc.tuple(fc.constantFrom("float32", "int16"), tie("arithTree")).map(([dtype, value]): Expr => ({ kind: "cast", dtype: dtype as Dtype, value })),
  ),
}));

/** The result of `f`, or the class and message of what it threw. */
function outcome<T>(f: () => T): T | { threw: string } {
  try {
    return f();
  } catch (e) {
    return { threw: `${(e as Error).constructor.name}: ${(e as Error).message}` };
  }
}

const envArb = fc.array(fc.constantFrom(...DTYPES), { minLength: 8, maxLength: 8 }).map((ds): TypeEnv => {
  const names = ["x", "y", "z", "w", "i", "j", "n", "a"];
  const types = new Map(names.map((n, k) => [n, ds[k]]));
  return { varType: (n) => types.get(n) };
});

describe("the lowering's expression typing", () => {
  it("is exprType on arithmetic over any dtypes (same type, same refusal)", () => {
    fc.assert(fc.property(arithTree, envArb, (e, env) => {
      expect(outcome(() => typeIn(e, env))).toEqual(outcome(() => exprType(e, env)));
    }), { numRuns: 300 });
  });

  it("is exprType on trees with a node of every kind", () => {
    fc.assert(fc.property(exprTree, envArb, (e, env) => {
      expect(outcome(() => typeIn(e, env))).toEqual(outcome(() => exprType(e, env)));
    }), { numRuns: 200 });
  });
});

/** Values of the AST's shape: objects of a few keys (some undefined), numbers (-0, NaN, Infinity), strings, arrays. */
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true },
    fc.constantFrom(0, -0, 1, 2, NaN, Infinity, -Infinity, "a", "b", true, null, undefined),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("k", "l", "r", "value"), tie("value"), { maxKeys: 4 }),
  ),
}));

/** `x` rebuilt, its objects' keys maybe in another order (JSON sees the order). */
function rebuilt(x: unknown, reverse: boolean): unknown {
  if (Array.isArray(x)) return x.map((y) => rebuilt(y, reverse));
  if (x === null || typeof x !== "object") return x;
  const keys = Object.keys(x);
  return Object.fromEntries((reverse ? keys.reverse() : keys).map((k) => [k, rebuilt((x as Record<string, unknown>)[k], reverse)]));
}

describe("a loop's bounds compared without printing them", () => {
  it("is JSON.stringify's equality (other values, copies, reordered copies)", () => {
    const pair = fc.oneof(
      fc.tuple(value, value),
      value.map((a) => [a, rebuilt(a, false)] as const),
      value.map((a) => [a, rebuilt(a, true)] as const),
    );
    fc.assert(fc.property(pair, ([a, b]) => {
      expect(sameJson(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
    }), { numRuns: 500 });
  });
});
