import { describe, expect, it } from "vitest";
import { axisStrides, defaultDimTags, parseDimTags } from "../../src/ir/layout.js";
import { c, v, type Expr } from "../../src/ir/expr.js";
import { formatInameTag, parseInameTag } from "../../src/ir/tags.js";
import { LoomError } from "../../src/errors.js";

/** Evaluate a stride expression (products and sums of names and integers). */
function evalExpr(e: Expr | null, env: Record<string, number>): number | null {
  if (e === null) return null;
  switch (e.kind) {
    case "const": return e.value;
    case "var": return env[e.name]!;
    case "arith": {
      const l = evalExpr(e.left, env)!;
      const r = evalExpr(e.right, env)!;
      return e.op === "*" ? l * r : e.op === "+" ? l + r : l - r;
    }
    default: throw new Error(e.kind);
  }
}

// The seed's examples (loopy-kernel-model.rst, "Data Axis Tags"): an array of shape (3, M, 4).
const shape: Expr[] = [c(3), v("M"), c(4)];
const strides = (tags: string) => axisStrides(shape, parseDimTags(tags, 3)).map((s) => evalExpr(s, { M: 5 }));

describe("data axis tags (seed examples, shape (3, M, 4), M = 5)", () => {
  it("c,c,c is row-major: strides (M*4, 4, 1)", () => expect(strides("c,c,c")).toEqual([20, 4, 1]));
  it("f,f,f is column-major: strides (1, 3, 3*M)", () => expect(strides("f,f,f")).toEqual([1, 3, 15]));
  it("N1,N0,N2: strides (M, 1, 3*M)", () => expect(strides("N1,N0,N2")).toEqual([5, 1, 15]));
  it("sep,c,c: three arrays of shape (M, 4) with strides (4, 1)", () => {
    const tags = parseDimTags("sep,c,c", 3);
    expect(tags[0]).toEqual({ kind: "sep" });
    expect(strides("sep,c,c")).toEqual([null, 4, 1]);
  });
  it("c,c,vec: float4 vectors with (vector) strides (M, 1)", () => {
    expect(parseDimTags("c,c,vec", 3)[2]).toEqual({ kind: "vec" });
    expect(strides("c,c,vec")).toEqual([5, 1, null]);
  });
  it("c then f mixes: c nests around what follows, f inside", () => {
    expect(strides("c,f,f")).toEqual([20, 1, 5]);
  });
  it("stride:EXPR gives a fixed stride", () => expect(strides("stride:M*4,stride:4,stride:1")).toEqual([20, 4, 1]));
  it("optional tags are dropped left-first", () => {
    expect(parseDimTags("sep?,c,c", 2)).toEqual(defaultDimTags(2, "C"));
    expect(parseDimTags("sep?,c?,c", 1)).toEqual([{ kind: "nest", level: 0 }]);
  });
  it("rejects unknown tags, wrong counts and bad levels", () => {
    expect(() => parseDimTags("c,x", 2)).toThrow(/unknown array axis tag "x"/);
    expect(() => parseDimTags("c,c", 3)).toThrow(LoomError);
    expect(() => parseDimTags("N0,N0", 2)).toThrow(/each once/);
    expect(() => parseDimTags("N0,c", 2)).toThrow(/cannot mix/);
  });
});

describe("iname tags", () => {
  it("parses every tag of the API and prints it back", () => {
    for (const s of ["for", "ord", "g.0", "l.2", "l.auto", "unused.g", "unused.l", "unr", "unr_hint", "unr_hint.4", "ilp", "ilp.seq", "vec", "like.i_inner"]) {
      expect(formatInameTag(parseInameTag(s))).toBe(s);
    }
    expect(parseInameTag("ilp.unr")).toEqual({ kind: "ilp" });
    expect(parseInameTag("None")).toEqual({ kind: "for" });
  });
  it("rejects unknown tags with the accepted list", () => {
    expect(() => parseInameTag("g.x")).toThrow(/expected one of for, ord, g.N/);
  });
});
