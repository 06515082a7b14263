import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseExpr } from "../../src/parse/index.js";
import { c, children, exprEquals, v, type Expr } from "../../src/ir/expr.js";
import { exprToString } from "../../src/ir/print.js";
import { ParseError } from "../../src/errors.js";

const p = (s: string) => parseExpr(s);
const str = (s: string) => exprToString(parseExpr(s));

describe("literals", () => {
  it("integers and floats are implicitly typed; isFloat records the spelling", () => {
    expect(p("2")).toEqual(c(2));
    expect(p("2.0")).toEqual(c(2, undefined, true));
    expect(p("2.")).toEqual(c(2, undefined, true));
    expect(p("1.5")).toEqual(c(1.5));
    expect(p("1e-3")).toEqual(c(0.001, undefined, true));
    expect(p(".5")).toEqual(c(0.5));
  });
  it("suffix f is float32, d is float64", () => {
    expect(p("1.0f")).toEqual(c(1, "float32"));
    expect(p("2f")).toEqual(c(2, "float32"));
    expect(p("2.5f")).toEqual(c(2.5, "float32"));
    expect(p("3d")).toEqual(c(3, "float64"));
  });
  it("a minus sign on a literal makes a negative literal", () => {
    expect(p("-3")).toEqual(c(-3));
    expect(p("--3")).toEqual({ kind: "neg", operand: c(-3) });
    expect(p("-x")).toEqual({ kind: "neg", operand: v("x") });
  });
  it("cast of a literal is an explicitly typed literal", () => {
    expect(p("cast(int64, 3)")).toEqual(c(3, "int64"));
    expect(p("cast(float32, x)")).toEqual({ kind: "cast", dtype: "float32", value: v("x") });
    expect(p("cast(double, x)")).toEqual({ kind: "cast", dtype: "float64", value: v("x") });
  });
});

describe("operators and precedence", () => {
  it("follows Python: ** binds tighter than unary minus, which binds tighter than *", () => {
    expect(p("-a**b")).toEqual({ kind: "neg", operand: { kind: "arith", op: "**", left: v("a"), right: v("b") } });
    expect(p("a**b**c")).toEqual({ kind: "arith", op: "**", left: v("a"), right: { kind: "arith", op: "**", left: v("b"), right: v("c") } });
    expect(str("a - b - c")).toBe("a - b - c");
    expect(str("a - (b - c)")).toBe("a - (b - c)");
    expect(str("(a + b)*c // d % e")).toBe("(a + b)*c//d%e");
    expect(p("a / b").kind).toBe("arith");
  });
  it("comparisons and logic", () => {
    expect(p("a < b and not c >= d or e == f")).toEqual({
      kind: "logical", op: "or",
      left: { kind: "logical", op: "and", left: { kind: "compare", op: "<", left: v("a"), right: v("b") },
        right: { kind: "not", operand: { kind: "compare", op: ">=", left: v("c"), right: v("d") } } },
      right: { kind: "compare", op: "==", left: v("e"), right: v("f") },
    });
    expect(p("a != b")).toMatchObject({ kind: "compare", op: "!=" });
    expect(p("a <= b")).toMatchObject({ kind: "compare", op: "<=" });
  });
  it("if(c, a, b) and math calls", () => {
    expect(p("if(i > 0, a, 0)")).toEqual({ kind: "if", cond: { kind: "compare", op: ">", left: v("i"), right: c(0) }, then: v("a"), else: c(0) });
    expect(p("sqrt(x)")).toEqual({ kind: "call", fn: "sqrt", args: [v("x")] });
    expect(p("pow(x, 2)")).toEqual({ kind: "call", fn: "pow", args: [v("x"), c(2)] });
  });
});

describe("subscripts and reductions", () => {
  it("subscripts and linear subscripts", () => {
    expect(p("a[i, j+1]")).toEqual({ kind: "subscript", array: "a", indices: [v("i"), { kind: "arith", op: "+", left: v("j"), right: c(1) }] });
    expect(p("a[[8*i + j]]")).toMatchObject({ kind: "linear", array: "a" });
    expect(p("a[b[i]]")).toMatchObject({ kind: "subscript", indices: [{ kind: "subscript", array: "b" }] });
  });
  it("sum/product over one or several inames, as (k, l) or [k, l]", () => {
    expect(p("sum(k, a[k])")).toEqual({ kind: "reduce", op: "sum", inames: ["k"], body: { kind: "subscript", array: "a", indices: [v("k")] } });
    expect(p("product((k, l), x)")).toMatchObject({ kind: "reduce", op: "product", inames: ["k", "l"] });
    expect(p("sum([k, l], x)")).toMatchObject({ kind: "reduce", inames: ["k", "l"] });
  });
  it("max/min are reductions over inames, else the binary function", () => {
    expect(p("max(k, x)")).toEqual({ kind: "call", fn: "max", args: [v("k"), v("x")] });
    expect(parseExpr("max(k, x)", { inames: ["k"] })).toEqual({ kind: "reduce", op: "max", inames: ["k"], body: v("x") });
    expect(p("min((k, l), x)")).toMatchObject({ kind: "reduce", op: "min", inames: ["k", "l"] });
  });
  it("rejects malformed reductions", () => {
    expect(() => p("sum(2, x)")).toThrow(/iname/);
    expect(() => p("sum((k, k), x)")).toThrow(/twice/);
    expect(() => p("sum(k, x, y)")).toThrow(ParseError);
    expect(() => p("a + (k, l)")).toThrow(ParseError);
    expect(() => p("sum(k, sum(k, x))")).toThrow(/already reduced/);
  });
});

describe("errors", () => {
  it("are ParseErrors with line, column and caret", () => {
    try {
      p("a + * b");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ParseError);
      const pe = e as ParseError;
      expect([pe.line, pe.column]).toEqual([1, 5]);
      expect(pe.excerpt).toBe("a + * b\n    ^");
    }
    expect(() => p("")).toThrow(ParseError);
    expect(() => p("a $ b")).toThrow(/character "\$"/);
    expect(() => p("cast(floaty, x)")).toThrow(/unknown dtype/);
    expect(() => p("if(a, b)")).toThrow(/3 arguments/);
  });
});

// ---- round trip: parseExpr(exprToString(e)) ≡ e ---------------------------------------------

const names = fc.constantFrom("a", "b", "x", "y", "n", "i", "j", "k");
const consts: fc.Arbitrary<Expr> = fc.oneof(
  fc.integer({ min: -50, max: 200 }).map((n) => c(n)),
  fc.integer({ min: -400, max: 400 }).map((n) => c(n / 8, undefined, true)),
  fc.tuple(fc.integer({ min: -100, max: 100 }).map((n) => n / 4), fc.constantFrom("float32", "float64", "float16") as fc.Arbitrary<"float32" | "float64" | "float16">)
    .map(([val, d]) => c(val, d)),
  fc.tuple(fc.integer({ min: -100, max: 100 }), fc.constantFrom("int32", "int64", "uint8", "int8") as fc.Arbitrary<"int32" | "int64" | "uint8" | "int8">)
    .map(([val, d]) => c(val, d)),
);
const { expr } = fc.letrec<{ expr: Expr }>((tie) => {
  const e = () => tie("expr");
  return {
    expr: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      names.map(v),
      consts,
      fc.tuple(fc.constantFrom("+", "-", "*", "/", "//", "%", "**" as const), e(), e())
        .map(([op, left, right]) => ({ kind: "arith", op, left, right }) as Expr),
      e().filter((x) => x.kind !== "const").map((operand) => ({ kind: "neg", operand }) as Expr),
      e().map((operand) => ({ kind: "not", operand }) as Expr),
      fc.tuple(fc.constantFrom("<", "<=", ">", ">=", "==", "!=" as const), e(), e())
        .map(([op, left, right]) => ({ kind: "compare", op, left, right }) as Expr),
      fc.tuple(fc.constantFrom("and", "or" as const), e(), e())
        .map(([op, left, right]) => ({ kind: "logical", op, left, right }) as Expr),
      fc.tuple(e(), e(), e()).map(([cond, then, els]) => ({ kind: "if", cond, then, else: els }) as Expr),
      fc.oneof(
        fc.tuple(fc.constantFrom("sqrt", "exp", "fabs", "floor"), e()).map(([fn, a]) => ({ kind: "call", fn, args: [a] }) as Expr),
        fc.tuple(fc.constantFrom("pow", "min", "max", "f"), e(), e()).map(([fn, a, b]) => ({ kind: "call", fn, args: [a, b] }) as Expr),
        fc.constant({ kind: "call", fn: "g", args: [] } as Expr),
      ),
      fc.tuple(fc.constantFrom("a", "b"), fc.array(e(), { minLength: 1, maxLength: 3 }))
        .map(([array, indices]) => ({ kind: "subscript", array, indices }) as Expr),
      fc.tuple(fc.constantFrom("a", "b"), e()).map(([array, index]) => ({ kind: "linear", array, index }) as Expr),
      fc.oneof(
        fc.tuple(fc.constantFrom("sum", "product" as const), fc.constantFrom(["k"], ["k", "l"]), e()),
        fc.tuple(fc.constantFrom("max", "min" as const), fc.constant(["k", "l"]), e()),
      ).map(([op, inames, body]) => ({ kind: "reduce", op, inames, body }) as Expr),
      fc.tuple(fc.constantFrom("float32", "int32", "float64" as const), e().filter((x) => x.kind !== "const"))
        .map(([dtype, value]) => ({ kind: "cast", dtype, value }) as Expr),
    ),
  };
});

/** Loopy rejects a reduction nested in another over the same iname; so does the parser. */
function nestedReduction(e: Expr, bound: readonly string[] = []): boolean {
  if (e.kind === "reduce") return e.inames.some((i) => bound.includes(i)) || nestedReduction(e.body, [...bound, ...e.inames]);
  return children(e).some((k) => nestedReduction(k, bound));
}

describe("exprToString round trip", () => {
  it("parseExpr(exprToString(e)) equals e for all expressions e", () => {
    fc.assert(
      fc.property(expr, (e) => {
        fc.pre(!nestedReduction(e));
        const text = exprToString(e);
        const back = parseExpr(text);
        if (!exprEquals(back, e)) throw new Error(`${text}\n parsed as ${exprToString(back)}\n${JSON.stringify(back)}\n${JSON.stringify(e)}`);
      }),
      { numRuns: 2000 },
    );
  });
});
