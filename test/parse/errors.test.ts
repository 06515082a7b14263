import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { makeKernel, parseExpr } from "../../src/parse/index.js";
import { InternalError, LoomError, ParseError } from "../../src/errors.js";

const D = "{[i, j]: 0 <= i, j < n}";

/** The ParseError `f` throws. */
function parseError(f: () => unknown): ParseError {
  try {
    f();
  } catch (e) {
    if (e instanceof ParseError) return e;
    throw new Error(`expected a ParseError, got ${String(e)}`);
  }
  throw new Error("expected a ParseError, nothing was thrown");
}

describe("syntax errors point at line:column with a caret", () => {
  const cases: [string, string[], number, number, RegExp][] = [
    ["operator without operand", ["x[i] = 1", "y[i] = a[i] + * 2"], 2, 15, /unexpected "\*"/],
    ["unbalanced bracket (continues to the end)", ["y[i] = a[i", "z = 1"], 2, 1, /unexpected "z".*the "\[" at 1:9 is never closed/],
    ["stray character", ["y[i] = a[i] $ 2"], 1, 13, /unexpected character "\$"/],
    ["missing right-hand side", ["", "y[i] ="], 2, 7, /unexpected end of statement/],
    ["unknown attribute", ["y[i] = 1 {id=a, colour=red}"], 1, 17, /unknown attribute "colour"/],
    ["unclosed attribute block", ["y[i] = 1 {id=a"], 1, 10, /unclosed "\{"/],
    ["attribute block in the middle", ["y[i] = {id=a} 1"], 1, 8, /unexpected "\{id=a\}"/],
    ["unknown dtype of a temporary", ["  <float33> t = 1"], 1, 4, /unknown dtype "float33"/],
    ["unknown iname in for", ["for i", "  for q", "    x = 1", "  end", "end"], 2, 7, /unknown iname "q"/],
    ["reduction over an unknown iname", ["x[i] = sum(kk, a[i])"], 1, 12, /reduction over unknown iname "kk"/],
    ["unknown dep id", ["x[i] = 1 {id=a}", "y[i] = 1 {dep=a:zz}"], 2, 17, /unknown instruction id "zz"/],
    ["temporary declared twice with different types", ["<float32> t = 1", "<int32> t = 2"], 2, 1, /declared twice with different types/],
    ["unknown function", ["x[i] = frobnicate(i)"], 1, 8, /unknown function "frobnicate"/],
    ["end without block", ["x = 1", "end"], 2, 1, /"end" without an open/],
    ["unclosed for", ["x = 1", "for i", "x = 2"], 2, 1, /not closed by "end"/],
    ["bad nosync scope", ["x[i] = 1 {id=a}", "y[i] = 1 {nosync=a@warp}"], 2, 19, /unknown nosync scope/],
    ["assignment to an iname", ["i = 3"], 1, 1, /cannot assign to iname "i"/],
    ["rule called with the wrong arity", ["f(x) := 2*x", "y[i] = f(i, j)"], 2, 8, /takes 1 arguments, got 2/],
    ["ellipsis with an unknown keyword", ["... sleep"], 1, 5, /lbarrier, gbarrier or nop/],
  ];
  for (const [what, insns, line, column, msg] of cases) {
    it(what, () => {
      const e = parseError(() => makeKernel(D, insns));
      expect(e.detail).toMatch(msg);
      expect([e.line, e.column]).toEqual([line, column]);
      expect(e.excerpt).toBe(`${insns[line - 1]}\n${" ".repeat(column - 1)}^`);
      expect(e.message).toMatch(new RegExp(`^instructions ${line}:${column}: `));
    });
  }
  it("the same text as one string gives the same place", () => {
    const e = parseError(() => makeKernel(D, "x[i] = 1\n  y[i] = a[i] + * 2"));
    expect([e.line, e.column]).toEqual([2, 17]);
  });
});

describe("no input crashes", () => {
  const tokens = fc.constantFrom(
    "x", "a", "i", "j", "k", "[", "]", "[[", "]]", "(", ")", "{", "}", "=", ":=", "<>", "<float32>", ",", "+", "-", "*", "**",
    "//", "<", "==", "and", "not", "sum", "max", "if", "for", "end", "else", "with", "...", "lbarrier", "nop", "1", "2.5f",
    "\n", " ", "#", "id=", "dep=", "atomic", ":", "@local", "$", "cast", "float32", "inames=+", "f",
  );
  it("arbitrary token soup throws only LoomErrors", () => {
    fc.assert(
      fc.property(fc.array(tokens, { maxLength: 25 }), (ts) => {
        const text = ts.join(" ");
        try {
          makeKernel(D, text);
        } catch (e) {
          if (!(e instanceof LoomError) || e instanceof InternalError) throw e;
        }
        try {
          parseExpr(text);
        } catch (e) {
          if (!(e instanceof LoomError) || e instanceof InternalError) throw e;
        }
      }),
      { numRuns: 3000 },
    );
  });
});
