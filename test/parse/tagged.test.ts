/**
 * loopy's tagged uses `name$tag` (`h$one(i)`, `a$x[i, k]`): parsed onto the call, subscript or
 * variable node, printed back, kept by the transformations that copy expressions, and meaning
 * nothing to the interpreter and code generation (a tagged read is a read).
 */
import { describe, expect, it } from "vitest";
import { ParseError } from "../../src/errors.js";
import { exprEquals, exprToString, show, sub, v, withTag } from "../../src/ir/index.js";
import { makeKernel, parseExpr } from "../../src/parse/index.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { generateCode } from "../../codegen/index.js";
import { splitIname } from "../../transforms/iname.js";
import { assignmentToSubst, extractSubst } from "../../transforms/subst.js";
import { parseTemplate } from "../../transforms/template.js";

const tagged = () => makeKernel("{[i]: 0<=i<n}", ["h(x) := 2*a[x] + 1", "out[i] = h$one(i) + h(i) + a$x[i] + a[[i]] {id=u}"],
  ["a: float32[n]", "out: float32[n]", "n: int32"], { name: "tagged" });
const untagged = () => makeKernel("{[i]: 0<=i<n}", ["h(x) := 2*a[x] + 1", "out[i] = h(i) + h(i) + a[i] + a[[i]] {id=u}"],
  ["a: float32[n]", "out: float32[n]", "n: int32"], { name: "tagged" });
const rhs = (k: ReturnType<typeof makeKernel>, id = "u") => {
  const insn = k.instructions.find((i) => i.id === id)!;
  return insn.kind === "assign" ? exprToString(insn.rhs) : "";
};

describe("tagged uses: parsing and printing", () => {
  it("the tag sits on the call, subscript or variable node, and prints back as name$tag", () => {
    expect(parseExpr("h$one(i)")).toEqual({ kind: "call", fn: "h", tag: "one", args: [v("i")] });
    expect(parseExpr("a$x[i, k]")).toEqual(withTag(sub("a", v("i"), v("k")), "x"));
    expect(parseExpr("a$x[[i]]")).toEqual({ kind: "linear", array: "a", tag: "x", index: v("i") });
    expect(parseExpr("s$t")).toEqual({ kind: "var", name: "s", tag: "t" });
    for (const text of ["h$one(i) + h(i)", "2*G$x[0, e, a, b]", "a$x[[8*i + j]]", "f$t(i, j + 1) - s$u", "sum(k, b$y[k])"]) {
      expect(exprToString(parseExpr(text))).toBe(text);
    }
    expect(rhs(tagged())).toBe("h$one(i) + h(i) + a$x[i] + a[[i]]");
    expect(show(tagged())).toContain("out[i] = h$one(i) + h(i) + a$x[i] + a[[i]]");
  });

  it("untagged code parses and prints exactly as before (no tag field)", () => {
    expect(parseExpr("h(i) + a[i]")).toEqual({ kind: "arith", op: "+", left: { kind: "call", fn: "h", args: [v("i")] }, right: sub("a", v("i")) });
    expect(Object.keys(parseExpr("a[i]"))).not.toContain("tag");
  });

  it("the template parser of the transformations reads tags as parseExpr does", () => {
    for (const text of ["h$one(i) + h(i)", "a$x[i, k]*s$t", "a$x[[i]]", "sum(k, b$y[k])"]) {
      expect(parseTemplate(text, "test")).toEqual(parseExpr(text));
    }
    expect(() => parseTemplate("sum$x(k, b[k])", "test")).toThrow(/a tag marks a use/);
  });

  it("a tag where no use is (assignee, rule name, reduction, function) is a ParseError with its place", () => {
    const bad = (insn: string) => () => makeKernel("{[i]: 0<=i<n}", ["h(x) := x", insn], ["a, out: float32[n]", "n: int32"]);
    expect(bad("out$x[i] = a[i]")).toThrow(ParseError);
    expect(bad("out$x[i] = a[i]")).toThrow(/unexpected "out\$x"/);
    expect(bad("out[i] = sqrt$x(a[i])")).toThrow(/"sqrt\$x": a tag marks a use of a variable, an array or a substitution rule, not of the function sqrt/);
    expect(bad("out[i] = sum$x(i, a[i])")).toThrow(/a tag marks a use/);
    expect(() => makeKernel("{[i]: 0<=i<n}", ["h$t(x) := x", "out[i] = h(i)"], ["out: float32[n]", "n: int32"])).toThrow(ParseError);
  });

  it("equality of meaning ignores tags", () => {
    expect(exprEquals(parseExpr("a$x[i] + h$one(i)"), parseExpr("a[i] + h(i)"))).toBe(true);
  });
});

describe("tagged uses: meaning and preservation", () => {
  it("a tagged read is a read: the interpreter and every generated code agree with the untagged kernel", async () => {
    const a = Float32Array.from({ length: 7 }, (_, i) => i * 0.5 - 1);
    const want = await run(untagged(), { a, n: 7 });
    expect(await run(tagged(), { a, n: 7 })).toEqual(want);
    expect((await autoTestVsRef(untagged(), tagged(), { params: { n: 9 }, backend: "js" })).ok).toBe(true);
    for (const target of ["c", "cuda", "opencl"] as const) expect(generateCode(tagged(), target).deviceCode).toBe(generateCode(untagged(), target).deviceCode);
  });

  it("transformations that copy expressions keep the tags", () => {
    expect(rhs(splitIname(tagged(), "i", 4))).toBe("h$one(i_inner + i_outer*4) + h(i_inner + i_outer*4) + a$x[i_inner + i_outer*4] + a[[i_inner + i_outer*4]]");
    const k = makeKernel("{[i]: 0<=i<8}", ["<> t[i] = 2*a[i] {id=w}", "out[i] = t$p[i] + t[i] {id=u}"], ["a, out: float32[8]"]);
    expect(rhs(assignmentToSubst(k, "t"))).toBe("t_subst$p(i) + t_subst(i)");
    // A tagged template matches only uses with its tag.
    expect(rhs(extractSubst(tagged(), "ax", "a$x[i]", []))).toBe("h$one(i) + h(i) + ax() + a[[i]]");
  });
});
