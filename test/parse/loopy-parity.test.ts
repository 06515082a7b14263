/**
 * The instruction language accepts what loopy's does (issue 15, point 15; issue 16, point 10):
 * fnmatch globs with negated sets in `dep=` and in the match language, and Python's conditional
 * expression `x if c else y`; each kernel checked on every backend against a plain reference.
 */
import { describe, expect, it } from "vitest";
import { ParseError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { parseMatch } from "../../transforms/index.js";
import { expectOnEveryBackend } from "../transforms/every-backend.js";

const deps = (k: Kernel, id: string) => k.instructions.find((i) => i.id === id)!.dependsOn;

describe("fnmatch globs (loopy matches ids with Python's fnmatch)", () => {
  const k = makeKernel("{[i]: 0<=i<n}", [
    "a[i] = 1 {id=s1}", "b[i] = 2 {id=s2}", "c[i] = 3 {id=s3, dep=s[!2]}",
  ], ["a, b, c: float64[n]", "n: int32"]);

  it("`[!…]` in dep= is a negated set: s[!2] selects s1 (and never the instruction itself)", () => {
    expect(deps(k, "s3")).toEqual(["s1"]);
  });
  it("`[!…]`, ranges and sets in the match language", () => {
    const ids = (m: string) => k.instructions.filter(parseMatch(m)).map((i) => i.id);
    expect(ids("id:s[!1]")).toEqual(["s2", "s3"]);
    expect(ids("id:s[1-2]")).toEqual(["s1", "s2"]);
    expect(ids("id:s[13]")).toEqual(["s1", "s3"]);
  });
  it("an unclosed `[` is a plain character, not a JavaScript SyntaxError", () => {
    expect(k.instructions.filter(parseMatch("id:["))).toEqual([]);
    expect(k.instructions.filter(parseMatch("id:s[1"))).toEqual([]);
    const odd = makeKernel("{[i]: 0<=i<n}", ["a[i] = 1 {id=s1}"], ["a: float64[n]", "n: int32"]);
    expect(odd.instructions.filter(parseMatch("id:s[!]")).map((i) => i.id)).toEqual([]);
  });
});

describe("Python's conditional expression `x if c else y` (loopy's pymbolic If)", () => {
  it("means if(c, x, y), binds loosest and nests to the right", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", [
      "out[i] = 1 if i % 2 == 0 else 2 if i % 3 == 0 else 3.5*a[i]",
      "out2[i] = if(i < 2, a[i] + 1 if a[i] > 0 else 0, -1)",
    ], ["a, out, out2: float64[n]", "n: int32"]);
    const n = 9;
    const a = Float64Array.from({ length: n }, (_, i) => i - 4);
    const out = a.map((v, i) => (i % 2 === 0 ? 1 : i % 3 === 0 ? 2 : 3.5 * v));
    const out2 = a.map((v, i) => (i < 2 ? (v > 0 ? v + 1 : 0) : -1));
    await expectOnEveryBackend(k, { a, n }, { out, out2 });
  });
  it("a missing else is a ParseError at the if", () => {
    expect(() => makeKernel("{[i]: 0<=i<n}", "out[i] = 1 if i > 2", ["out: float64[n]", "n: int32"])).toThrow(ParseError);
  });
});

describe("an implicitly typed literal does not fix an array's dtype (loopy: the array passed decides)", () => {
  const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<8}", ["a[[8*i + j]] = 1", "b[i] = 2*a[[8*i]]"], ["a, b", "n: int32"]);
  it("a written only with literals stays untyped, and so does what reads it", () => {
    expect(k.args.map((a) => `${a.name}:${a.dtype}`)).toEqual(["a:undefined", "b:undefined", "n:int32"]);
  });
  it("a float32 a passed at run time is written as float32 on every backend", async () => {
    await expectOnEveryBackend(k, { a: new Float32Array(16), b: new Float32Array(2), n: 2 }, { a: new Float32Array(16).fill(1), b: [2, 2] });
  });
  it("a typed literal still fixes it", () => {
    const typed = makeKernel("{[i]: 0<=i<n}", "a[i] = 1.5f", ["a", "n: int32"]);
    expect(typed.args[0]!.dtype).toBe("float32");
  });
});

describe("makeKernel's fixedParameters (loopy's fixed_parameters) and temporaries of parametric shape", () => {
  const text = ["<> z[i] = 2*a[i] {id=w}", "out[i] = z[i] + n {dep=w}"];
  const args = ["a, out: float64[n]", "n: int32"];
  const a = Float64Array.from({ length: 5 }, (_, i) => i * 1.5 - 2);
  const want = a.map((x) => 2 * x + 5);
  it("<> z[i] over 0 <= i < n has the shape [n] (was: refused, 'must be constants')", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", text, args);
    expect(k.temporaries.map((t) => t.shape.map((e) => JSON.stringify(e)))).toEqual([[JSON.stringify({ kind: "var", name: "n" })]]);
    // The scheduler makes it a global temporary (loopy's rule), on every backend.
    await expectOnEveryBackend(k, { a, n: 5 }, { out: want });
  });
  it("a shape in a value computed in the kernel is refused, naming it", () => {
    expect(() => makeKernel("{[i]: 0<=i<m}", ["<> m = 4 {id=m}", "<> z[i] = 2 {dep=m}"], ["m2: int32"]))
      .toThrow(/shape of temporary|computed in the kernel|iname/);
  });
  it("fixedParameters replaces n everywhere: shapes become constant, n is no argument, every backend agrees", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", text, args, { fixedParameters: { n: 5 } });
    expect(k.args.map((x) => x.name)).toEqual(["a", "out"]);
    expect(k.temporaries[0]!.shape).toMatchObject([{ kind: "const", value: 5 }]);
    await expectOnEveryBackend(k, { a }, { out: want });
  });
  it("fixedParameters refuses what fixParameters refuses, and unknown options are refused", () => {
    expect(() => makeKernel("{[i]: 0<=i<n}", text, args, { fixedParameters: { m: 5 } })).toThrow(/makeKernel: fixedParameters: "m" is not a parameter/);
    expect(() => makeKernel("{[i]: 0<=i<n}", text, args, { fixedParameters: { n: 2 ** 40 } })).toThrow(/outside its range/);
    expect(() => makeKernel("{[i]: 0<=i<n}", text, args, { fixed_parameters: { n: 5 } } as never)).toThrow(/unknown option "fixed_parameters"/);
  });
});

describe("argmax / argmin with two assignees (loopy's tuple reductions)", () => {
  const rows = 5;
  const cols = 7;
  const a = Float32Array.from({ length: rows * cols }, (_, x) => ((x * 37) % 23) - 11);
  const ref = (pick: (x: number, best: number) => boolean, idx: (i: number) => number) => {
    const val = new Float32Array(rows);
    const at = new Int32Array(rows);
    for (let j = 0; j < rows; j++) {
      let b = 0;
      for (let i = 1; i < cols; i++) if (pick(Math.abs(a[j * cols + i]!), Math.abs(a[j * cols + b]!))) b = i;
      val[j] = Math.abs(a[j * cols + b]!);
      at[j] = idx(b);
    }
    return { val, at };
  };
  const args = ["a: float32[r, c]", "val: float32[r]", "at: int32[r]", "r, c: int32"];
  it("argmax gives the largest value and the index at its first occurrence, on every backend", async () => {
    const k = makeKernel("{[j,i]: 0<=j<r and 0<=i<c}", "val[j], at[j] = argmax(i, abs(a[j,i]), i)", args);
    const { val, at } = ref((x, best) => x > best, (i) => i);
    await expectOnEveryBackend(k, { a, r: rows, c: cols }, { val, at });
  });
  it("argmin, with an index expression of the iname", async () => {
    const k = makeKernel("{[j,i]: 0<=j<r and 0<=i<c}", "val[j], at[j] = argmin(i, abs(a[j,i]), 2*i + 1) {id=am}", args);
    expect(k.instructions.map((x) => x.id)).toEqual(["am_val", "am_first", "am"]);
    const { val, at } = ref((x, best) => x < best, (i) => 2 * i + 1);
    await expectOnEveryBackend(k, { a, r: rows, c: cols }, { val, at });
  });
  it("refuses other shapes of tuple assignment, naming what is accepted", () => {
    expect(() => makeKernel("{[i]: 0<=i<n}", "x[0], y[0] = f(i)", ["x, y: float32[1]", "n: int32"])).toThrow(/supported for argmax and argmin only/);
    expect(() => makeKernel("{[i]: 0<=i<n}", "x[0], y[0], z[0] = argmax(i, a[i], i)", ["x, y, z, a: float32[n]", "n: int32"])).toThrow(/two results/);
    expect(() => makeKernel("{[i,j]: 0<=i,j<n}", "x[0], y[0] = argmax((i, j), a[i], i)", ["x, y, a: float32[n]", "n: int32"])).toThrow(/several inames is not supported/);
  });
});
