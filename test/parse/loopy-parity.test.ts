/**
 * The instruction language accepts what loopy's does (issue 15, point 15; issue 16, point 10):
 * fnmatch globs with negated sets in `dep=` and in the match language, and Python's conditional
 * expression `x if c else y`; each kernel checked on every backend against a plain reference.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { globMatch } from "../../src/ir/index.js";
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

describe("globMatch is Python's fnmatch (a law against a direct backtracking matcher)", () => {
  /** fnmatch by backtracking over the pattern, set by set: the specification, written plainly. */
  const fnmatch = (p: string, s: string): boolean => {
    if (p === "") return s === "";
    const c = p[0]!;
    if (c === "*") return [...Array(s.length + 1).keys()].some((k) => fnmatch(p.slice(1), s.slice(k)));
    if (s === "") return false;
    if (c === "?") return fnmatch(p.slice(1), s.slice(1));
    if (c === "[") {
      let j = 1;
      if (p[j] === "!") j++;
      if (p[j] === "]") j++;
      while (j < p.length && p[j] !== "]") j++;
      if (j < p.length) {
        let body = p.slice(1, j);
        const neg = body.startsWith("!");
        if (neg) body = body.slice(1);
        let hit = false;
        for (let m = 0; m < body.length; m++) {
          if (body[m + 1] === "-" && m + 2 < body.length) {
            if (body[m]! <= s[0]! && s[0]! <= body[m + 2]!) hit = true;
            m += 2;
          } else if (body[m] === s[0]) hit = true;
        }
        return hit !== neg && fnmatch(p.slice(j + 1), s.slice(1));
      }
    }
    return c === s[0] && fnmatch(p.slice(1), s.slice(1));
  };
  it("for all patterns over a b 1 2 * ? [ ] ! - and names over a b 1 2 [ ] ! -", () => {
    const pat = fc.string({ unit: fc.constantFrom("a", "b", "1", "2", "*", "?", "[", "]", "!", "-"), maxLength: 7 });
    const name = fc.string({ unit: fc.constantFrom("a", "b", "1", "2", "[", "]", "!", "-"), maxLength: 5 });
    fc.assert(fc.property(pat, name, (p, s) => globMatch(p, s) === fnmatch(p, s)), { numRuns: 3000 });
  });
  it("reversed ranges are empty sets, never a RegExp error (found writing this law)", () => {
    for (const [p, s] of [["[b-a]", "a"], ["[b-a]x", "x"], ["[!b-a]", "c"], ["[a-]", "-"], ["[--a]", "-"], ["[2-1a]", "a"]] as const) {
      expect(globMatch(p, s), `${p} ~ ${s}`).toBe(fnmatch(p, s));
    }
    const sets = fc.tuple(fc.constantFrom("a", "b", "1", "2", "-"), fc.constantFrom("a", "b", "1", "2"), fc.boolean(), fc.constantFrom("a", "b", "1", "2", "-"));
    fc.assert(fc.property(sets, ([lo, hi, neg, s]) => globMatch(`[${neg ? "!" : ""}${lo}-${hi}]`, s) === fnmatch(`[${neg ? "!" : ""}${lo}-${hi}]`, s)), { numRuns: 500 });
  });
});
