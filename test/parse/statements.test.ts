import { describe, expect, it } from "vitest";
import { makeKernel } from "../../src/parse/index.js";
import { c, v } from "../../src/ir/expr.js";
import type { Assignment, Instruction } from "../../src/ir/insn.js";
import { exprToString } from "../../src/ir/print.js";
import { ParseError } from "../../src/errors.js";

const insn = (k: { instructions: readonly Instruction[] }, id: string) => k.instructions.find((i) => i.id === id)!;
const assign = (k: { instructions: readonly Instruction[] }, id: string) => insn(k, id) as Assignment;
const D = "{[i, j]: 0 <= i, j < n}";

describe("statements", () => {
  it("assignments to scalars, subscripts and linear subscripts", () => {
    const k = makeKernel("{[i]: 0 <= i < 16}", ["x[i] = 1", "y[[2*i]] = 2", "s = 3"]);
    expect(k.instructions.map((i) => (i.kind === "assign" ? exprToString(i.lhs) : ""))).toEqual(["x[i]", "y[[2*i]]", "s"]);
  });
  it("one statement per line, # comments, continuation inside brackets", () => {
    const k = makeKernel("{[i]: 0 <= i < n}", `
      # a comment line
      out[i] = (a[i] +   # trailing comment
                b[i])
      x[i] = f(a[i],
               2)   {id=second}
      f(u, w) := u*w + 1
    `);
    expect(k.instructions.map((i) => i.id)).toEqual(["insn", "second"]);
    expect(exprToString(assign(k, "insn").rhs)).toBe("a[i] + b[i]");
    expect(assign(k, "second").rhs).toEqual({ kind: "call", fn: "f", args: [{ kind: "subscript", array: "a", indices: [v("i")] }, c(2)] });
  });
  it("a list of strings is a text joined by newlines", () => {
    const k = makeKernel("{[i]: 0 <= i < n}", ["out[i] = a[i]", "out2[i] = out[i]"]);
    expect(k.instructions).toHaveLength(2);
  });
  it("temporaries: <> (inferred), <float32>, and arrays shaped by their written indices", () => {
    const k = makeKernel("{[i, ii]: 0 <= i < n and 0 <= ii < 8}", [
      "<> t = 2*a[i]", "<float32> acc = 0", "<> buf[ii] = ii {inames=+i}", "out[i] = t + acc + buf[3]",
    ], ["a: float64[n]", "..."]);
    const t = Object.fromEntries(k.temporaries.map((x) => [x.name, x]));
    expect(t.t).toMatchObject({ dtype: "float64", shape: [], addressSpace: "auto" });
    expect(t.acc).toMatchObject({ dtype: "float32", shape: [] });
    expect(t.buf!.shape).toEqual([c(8)]);
    expect(t.buf!.dtype).toBe("int32");
  });
  it("array temporaries take parametric shapes (loopy's), but not bounds that are no single affine form", () => {
    expect(makeKernel("{[i]: 0 <= i < n}", "<> t[i] = 1").temporaries[0]!.shape.map(exprToString)).toEqual(["n"]);
    expect(() => makeKernel("{[i]: 0 <= i < n and i < m}", "<> t[i] = 1")).toThrow(/must be constants or affine in the kernel's parameters/);
  });
  it("substitution rules stay calls; a zero-parameter rule used as a name is a call", () => {
    const k = makeKernel("{[i]: 0 <= i < n}", ["f(x, y) := x*y + 1", "g := 2", "out[i] = f(a[i], 3) + g"]);
    expect(k.substitutions.map((s) => [s.name, s.params, exprToString(s.expr)])).toEqual([["f", ["x", "y"], "x*y + 1"], ["g", [], "2"]]);
    expect(exprToString(assign(k, "insn").rhs)).toBe("f(a[i], 3) + g()");
    expect(k.args.map((a) => a.name)).toEqual(["out", "a", "n"]);
  });
  it("barriers and no-ops with attributes", () => {
    const k = makeKernel("{[i]: 0 <= i < n}", [
      "out[i] = 1 {id=w}", "... lbarrier {id=b1, dep=w}", "... gbarrier", "... nop {dep=w:b1}", "... lbarrier {mem_kind=global}",
    ]);
    expect(insn(k, "b1")).toMatchObject({ kind: "barrier", scope: "local", dependsOn: ["w"] });
    expect(insn(k, "insn")).toMatchObject({ kind: "barrier", scope: "global", dependsOn: [] });
    expect(insn(k, "insn_0")).toMatchObject({ kind: "nop", dependsOn: ["b1", "w"] });
    expect(insn(k, "insn_1")).toMatchObject({ kind: "barrier", memKind: "global" });
    expect(() => makeKernel("{[i]: 0<=i<n}", "... wait")).toThrow(/lbarrier, gbarrier or nop/);
  });
});

describe("names in a kernel", () => {
  it("max/min over an iname of the domains is a reduction, else the function", () => {
    const k = makeKernel("{[i, k, l]: 0 <= i, k, l < n}", ["x[i] = max(k, a[i, k])", "y[i] = min(i, 3)", "z[i] = sum([k, l], a[k, l])"]);
    expect(assign(k, "insn").rhs).toMatchObject({ kind: "reduce", op: "max", inames: ["k"] });
    expect(assign(k, "insn_0").rhs).toMatchObject({ kind: "reduce", op: "min", inames: ["i"] });
    expect(assign(k, "insn_1").rhs).toMatchObject({ kind: "reduce", op: "sum", inames: ["k", "l"] });
    const k2 = makeKernel("{[i]: 0 <= i < n}", ["x[i] = max(a[i], 0)", "y[i] = min(b, 3)"]);
    expect(assign(k2, "insn").rhs).toMatchObject({ kind: "call", fn: "max" });
    expect(assign(k2, "insn_0").rhs).toMatchObject({ kind: "call", fn: "min" });
  });
  it("inames= and for over names that are not inames are errors", () => {
    expect(() => makeKernel(D, "x[i] = 1 {inames=i:q}")).toThrow(/unknown iname "q"/);
  });
  it("a scalar argument cannot be written; a scalar temporary cannot be subscripted", () => {
    expect(() => makeKernel(D, "n = 1", ["n: int32", "..."])).toThrow(/cannot be written/);
    expect(() => makeKernel(D, ["<> t = 1", "x[i] = t[0]"])).toThrow(/declared as a scalar but is subscripted/);
  });
  it("wrong argument types are LoomErrors, not TypeErrors", () => {
    expect(() => makeKernel(D, 3 as unknown as string)).toThrow(/expected a string or a list of strings/);
    expect(() => makeKernel(4 as unknown as string, "x = 1")).toThrow(/domains/);
    expect(() => makeKernel(D, "x = 1", [5 as unknown as string])).toThrow(/argument 0/);
  });
});

describe("blocks", () => {
  it("for blocks add their inames, nestable", () => {
    const k = makeKernel(D, ["for i", "  for j", "    x[i] = 1", "  end", "  y = 2", "end"]);
    expect(insn(k, "insn").withinInames).toEqual(["i", "j"]);
    expect(insn(k, "insn_0").withinInames).toEqual(["i"]);
  });
  it("for i, j opens both", () => {
    const k = makeKernel(D, ["for i, j", "s = 1", "end"]);
    expect(insn(k, "insn").withinInames).toEqual(["i", "j"]);
  });
  it("if / elif / else become predicates; later branches get negations", () => {
    const k = makeKernel(D, ["for i", "if i > 2", "x[i] = 1", "elif i > 1", "x[i] = 2", "else", "x[i] = 3", "end", "end"]);
    const preds = k.instructions.map((i) => i.predicates.map(exprToString));
    expect(preds).toEqual([["i > 2"], ["not i > 2", "i > 1"], ["not i > 2", "not i > 1"]]);
  });
  it("nested if blocks accumulate", () => {
    const k = makeKernel(D, ["if n > 0", "if n > 4", "s = 1", "end", "end"]);
    expect(k.instructions[0]!.predicates.map(exprToString)).toEqual(["n > 0", "n > 4"]);
  });
  it("with blocks apply options to the statements inside", () => {
    const k = makeKernel(D, [
      "with {id_prefix=init, tags=zero}", "x[i] = 0", "y[i] = 0", "end",
      "with {dep=init*}", "z[i] = 1", "end",
    ]);
    expect(k.instructions.map((i) => i.id)).toEqual(["init", "init_0", "insn"]);
    expect(insn(k, "init").tags).toEqual(["zero"]);
    expect(insn(k, "insn").dependsOn).toEqual(["init", "init_0"]);
    expect(() => makeKernel(D, ["with {id=a}", "x[i] = 0", "end"])).toThrow(/not allowed on a with block/);
  });
  it("end without a block, and a block without end, are errors", () => {
    expect(() => makeKernel(D, ["end"])).toThrow(/without an open/);
    expect(() => makeKernel(D, ["else"])).toThrow(/without an open if/);
    expect(() => makeKernel(D, ["if n > 0", "x = 1"])).toThrow(/not closed/);
  });
});

describe("attributes (loopy-kernel-model.rst, Textual Assignment Syntax)", () => {
  const K = (insns: string[]) => makeKernel(D, insns);
  it("id and id_prefix; default ids insn, insn_0, …", () => {
    const k = K(["a[i] = 1", "b[i] = 2 {id=mine}", "c[i] = 3 {id_prefix=p}", "d[i] = 4 {id_prefix=p}", "e[i] = 5"]);
    expect(k.instructions.map((i) => i.id)).toEqual(["insn", "mine", "p", "p_0", "insn_0"]);
    expect(() => K(["a[i] = 1 {id=x}", "b[i] = 1 {id=x}"])).toThrow(/used twice/);
  });
  it("inames=i:j is exact, inames=+i adds to the heuristic set", () => {
    const k = K(["a[i] = 1 {id=x, inames=i:j}", "s = 1 {id=y, inames=+j}", "t = 1 {id=z}"]);
    expect(insn(k, "x").withinInames).toEqual(["i", "j"]);
    expect(insn(k, "y").withinInames).toEqual(["j"]);
    expect(insn(k, "z").withinInames).toEqual([]);
  });
  it("dep with wildcards; a leading * is exhaustive; dep=* alone means none", () => {
    const k = K([
      "x[i] = 1 {id=init_x}", "y[i] = 2 {id=init_y}", "z[i] = x[i] + y[i] {id=use, dep=init_*}",
      "w[i] = x[i] {id=only_y, dep=*init_y}", "u[i] = x[i] {id=none, dep=*}",
    ]);
    expect(insn(k, "use").dependsOn).toEqual(["init_x", "init_y"]);
    expect(insn(k, "only_y").dependsOn).toEqual(["init_y"]);
    expect(insn(k, "none").dependsOn).toEqual([]);
  });
  it("unknown dep ids name the ids that exist", () => {
    expect(() => K(["x[i] = 1 {id=a}", "y[i] = 1 {dep=b}"])).toThrow(/unknown instruction id "b" in dep=; ids are a, insn/);
  });
  it("nosync with @scope", () => {
    const k = K(["x[i] = 1 {id=a}", "y[i] = 1 {id=b}", "z[i] = 1 {id=c, nosync=a@local:b@global}", "q[i] = 1 {id=d, nosync=a}"]);
    expect(insn(k, "c").noSyncWith).toEqual([{ id: "a", scope: "local" }, { id: "b", scope: "global" }]);
    expect(insn(k, "d").noSyncWith).toEqual([{ id: "a", scope: "any" }]);
    expect(() => K(["x[i] = 1 {id=a}", "y[i] = 1 {nosync=a@warp}"])).toThrow(/@local, @global or @any/);
  });
  it("priority, if, tags, groups, conflicts, atomic", () => {
    const k = K(["<> p = i > 2 {id=p}", "x[i] = 1 {id=a, priority=2, if=p, tags=t1:t2, groups=g1, conflicts=g2, atomic}", "y[i] = 2 {id=b, atomic=init}"]);
    expect(insn(k, "a")).toMatchObject({
      priority: 2, predicates: [v("p")], tags: ["t1", "t2"], groups: ["g1"], conflictsWithGroups: ["g2"], atomicity: "update", dependsOn: ["p"],
    });
    expect(assign(k, "b").atomicity).toBe("init");
    expect(assign(k, "p").atomicity).toBe("none");
  });
  it("dup, dep_query and nosync_query are not supported yet", () => {
    expect(() => K(["x[i] = 1 {dup=i}"])).toThrow(/dup= is not supported yet/);
    expect(() => K(["x[i] = 1 {dep_query=id:a}"])).toThrow(/dep_query= is not supported yet/);
    expect(() => K(["x[i] = 1 {nosync_query=id:a}"])).toThrow(/not supported yet/);
  });
  it("unknown attributes list the accepted ones", () => {
    expect(() => K(["x[i] = 1 {colour=red}"])).toThrow(/unknown attribute "colour"; accepted attributes are id, id_prefix, dep, nosync, inames, if, priority/);
    expect(() => K(["x[i] = 1 {priority=high}"])).toThrow(ParseError);
    expect(() => K(["x[i] = 1 {mem_kind=local}"])).toThrow(/barriers/);
  });
});
