import { describe, expect, it } from "vitest";
import { addDtypes, globalArg, makeKernel, parseExpr, temporary, valueArg } from "../../src/parse/index.js";
import { c, v, type Expr } from "../../src/ir/expr.js";
import { axisStrides } from "../../src/ir/layout.js";
import { effectiveDimTags, type ArrayArg } from "../../src/ir/kernel.js";
import { exprToString } from "../../src/ir/print.js";
import { LoomError, ParseError } from "../../src/errors.js";

const MATMUL = ["{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])"] as const;
const arr = (k: { args: readonly unknown[] }, name: string) => (k.args as ArrayArg[]).find((a) => a.name === name)!;

describe("argument inference", () => {
  it("with no list infers everything: arrays then values, in order of first appearance", () => {
    const k = makeKernel(...MATMUL);
    expect(k.args.map((a) => [a.name, a.kind, a.dtype])).toEqual([
      ["c", "array", undefined], ["a", "array", undefined], ["b", "array", undefined], ["n", "value", "int32"],
    ]);
    expect(arr(k, "a").shape!.map(exprToString)).toEqual(["n", "n"]);
    expect(arr(k, "c")).toMatchObject({ isOutput: true, isInput: false });
    expect(arr(k, "a")).toMatchObject({ isOutput: false, isInput: true });
  });
  it("shapes are bounding boxes of the accesses, affine in the parameters", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["out[i] = a[i] + a[i+1] + b[2*i]", "y[i] = z[idx[i]]"]);
    expect(arr(k, "a").shape!.map(exprToString)).toEqual(["n + 1"]);
    expect(arr(k, "b").shape!.map(exprToString)).toEqual(["2*n - 1"]);
    expect(arr(k, "z").shape).toBeUndefined(); // data-dependent index
  });
  it("other read scalars are values of unknown dtype; written scalars are 0-d arrays", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["out[i] = alpha*a[i]", "s = 1"]);
    expect(k.args.map((a) => a.name)).toEqual(["out", "a", "s", "n", "alpha"]);
    expect(k.args.find((a) => a.name === "alpha")).toEqual({ kind: "value", name: "alpha", dtype: undefined });
    expect(arr(k, "s").shape).toEqual([]);
  });
  it("string specs: arrays, values, several names, bare names and ...", () => {
    const k = makeKernel(...MATMUL, ["a, b: float32[n, n]", "n: int32", "c", "..."]);
    expect(k.args.map((a) => a.name)).toEqual(["a", "b", "n", "c"]);
    expect(arr(k, "a")).toMatchObject({ dtype: "float32", shape: [v("n"), v("n")] });
    expect(arr(k, "c")).toMatchObject({ kind: "array", dtype: "float32" }); // inferred from the rhs
    expect(k.args[2]).toEqual({ kind: "value", name: "n", dtype: "int32" });
  });
  it("shape entries are expressions", () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = a[i]", ["a: float32[n+1]", globalArg("out", "float64", ["2*n"]), "..."]);
    expect(arr(k, "a").shape).toEqual([parseExpr("n+1")]);
    expect(arr(k, "out").shape).toEqual([parseExpr("2*n")]);
  });
  it("without ... an undeclared name is a ParseError at its first use", () => {
    expect(() => makeKernel(...MATMUL, ["a, b, c: float32[n, n]"])).toThrow(/"n" \(a domain parameter\) is not in the args list/);
    try {
      makeKernel("{[i]: 0<=i<n}", "out[i] = a[i] * beta", ["out, a: float32[n]", "n: int32"]);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ParseError);
      expect((e as ParseError).detail).toMatch(/unknown variable "beta"/);
      expect([(e as ParseError).line, (e as ParseError).column]).toEqual([1, 17]);
    }
  });
  it("spec constructors", () => {
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = t[0] + a[i]", [
      globalArg("a", "float32", ["n"], { order: "F" }), valueArg("n", "int64"),
      temporary("t", "float32", [4], "local"), globalArg("out", "float32", undefined, { isOutput: true }),
    ]);
    expect(k.args.map((a) => [a.name, a.dtype])).toEqual([["a", "float32"], ["n", "int64"], ["out", "float32"]]);
    expect(arr(k, "a").order).toBe("F");
    expect(arr(k, "out").shape).toEqual([v("n")]);
    expect(k.temporaries).toEqual([{ name: "t", dtype: "float32", shape: [c(4)], addressSpace: "local", order: "C", dimTags: undefined }]);
  });
  it("malformed specs", () => {
    expect(() => makeKernel(...MATMUL, ["a: floaty[n]", "..."])).toThrow(/unknown dtype/);
    expect(() => makeKernel(...MATMUL, ["a b: float32", "..."])).toThrow(ParseError);
    expect(() => makeKernel(...MATMUL, ["a: float32[n,", "..."])).toThrow(ParseError);
    expect(() => makeKernel(...MATMUL, ["a", "a", "..."])).toThrow(/twice/);
    expect(() => makeKernel(...MATMUL, ["a: float32", "..."])).toThrow(/subscripted/);
    expect(() => globalArg("a", "float32", [3, 4], { dimTags: "c" })).toThrow(LoomError);
  });
  it("addDtypes fills missing dtypes and re-infers temporaries", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["<> t = 2*a[i]", "out[i] = t"]);
    expect(k.temporaries[0]!.dtype).toBeUndefined();
    const k2 = addDtypes(k, { a: "float32", out: "float32" });
    expect(k2.temporaries[0]!.dtype).toBe("float32");
    expect(arr(k2, "a").dtype).toBe("float32");
    expect(k.args.find((a) => a.name === "a")!.dtype).toBeUndefined(); // the input is untouched
    expect(() => addDtypes(k2, { a: "float64" })).toThrow(/already has dtype float32/);
    expect(() => addDtypes(k, { nope: "float32" })).toThrow(/no argument or temporary "nope"/);
    expect(() => addDtypes(k, { a: "floaty" })).toThrow(/unknown dtype/);
  });
});

describe("data axis tags (loopy's doc examples, shape (3, M, 4))", () => {
  const evalAt = (e: Expr | null): number | null => {
    if (e === null) return null;
    const f = new Function("M", `return ${exprToString(e)};`) as (m: number) => number;
    return f(5);
  };
  const strides = (tags: string) => {
    const k = makeKernel("{[i]: 0<=i<3}", "out[i, 0, 0] = 1", [globalArg("out", "float32", [3, "M", 4], { dimTags: tags }), "..."]);
    const a = arr(k, "out");
    return axisStrides(a.shape!, effectiveDimTags(a)).map(evalAt);
  };
  it("c,c,c → (M*4, 4, 1)", () => expect(strides("c,c,c")).toEqual([20, 4, 1]));
  it("f,f,f → (1, 3, 3*M)", () => expect(strides("f,f,f")).toEqual([1, 3, 15]));
  it("N1,N0,N2 → (M, 1, 3*M)", () => expect(strides("N1,N0,N2")).toEqual([5, 1, 15]));
  it("sep,c,c → separate arrays of (M, 4) with strides (4, 1)", () => expect(strides("sep,c,c")).toEqual([null, 4, 1]));
  it("c,c,vec → vectors along the last axis, strides (M, 1)", () => expect(strides("c,c,vec")).toEqual([5, 1, null]));
});
