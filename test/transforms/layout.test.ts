/**
 * tagArrayAxes, dimOrder, splitArrayAxis, privatize: what they do to arrays and accesses, each
 * error, and the law that each keeps the kernel's meaning (outputs compared by logical index, or,
 * for splitArrayAxis, on the identical flat storage).
 */
import { describe, expect, it } from "vitest";
import { parityBackends } from "./every-backend.js";
import fc from "fast-check";
import { TransformError } from "../../src/errors.js";
import { axisStrides, effectiveDimTags, exprToString, type ArrayArg, type Kernel, type Temporary } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { splitIname } from "../../transforms/index.js";
import { assume, fixParameters } from "../../transforms/parameters.js";
import { dimOrder, tagArrayAxes } from "../../transforms/layout.js";
import { privatize } from "../../transforms/privatize.js";
import { splitArrayAxis } from "../../transforms/split-array-axis.js";

const RUNS = { numRuns: Number(process.env.LOOM_PROPERTY_RUNS ?? 100) };

const data = (k: Kernel, name: string): ArrayArg | Temporary =>
  (k.args.find((a) => a.name === name) as ArrayArg | undefined) ?? k.temporaries.find((t) => t.name === name)!;
const strides = (k: Kernel, name: string) => {
  const a = data(k, name);
  return axisStrides(a.shape!, effectiveDimTags(a)).map((s) => (s === null ? null : exprToString(s)));
};
const text = (k: Kernel) => k.instructions.map((insn) => (insn.kind === "assign" ? `${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}` : insn.kind));

/** loopy's doc example: an array of shape (3, M, 4). */
const box = () => makeKernel("{[i,j,l]: 0<=i<3 and 0<=j<M and 0<=l<4}", "out[i,j,l] = 2*a[i,j,l]", ["a, out: float32[3,M,4]", "M: int32"], { name: "box" });
const transpose = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[j,i] = a[i,j] + i", ["a: float64[n,m]", "out: float64[m,n]", "n, m: int32"], { name: "tr" });

describe("tagArrayAxes", () => {
  it("gives loopy's strides for shape (3, M, 4)", () => {
    expect(strides(tagArrayAxes(box(), "a", "c,c,c"), "a")).toEqual(["M*4", "4", "1"]);
    expect(strides(tagArrayAxes(box(), "a", "f,f,f"), "a")).toEqual(["1", "3", "M*3"]);
    expect(strides(tagArrayAxes(box(), "a", "N1,N0,N2"), "a")).toEqual(["M", "1", "M*3"]);
    expect(strides(tagArrayAxes(box(), "a", "c,c,vec"), "a")).toEqual(["M", "1", null]);
    expect(effectiveDimTags(data(tagArrayAxes(box(), "a", "sep,c,c"), "a"))).toEqual([{ kind: "sep" }, { kind: "nest", level: 1 }, { kind: "nest", level: 0 }]);
  });

  it("tags several arrays (comma list or array), temporaries, and drops optional tags", () => {
    const k = tagArrayAxes(transpose(), "a, out", "f,c");
    expect(strides(k, "a")).toEqual(["1", "n"]);
    expect(strides(k, "out")).toEqual(["1", "m"]);
    expect(strides(tagArrayAxes(transpose(), ["a"], ["N0", "N1"]), "a")).toEqual(["1", "n"]);
    expect(strides(tagArrayAxes(transpose(), "a", "sep?,c,c"), "a")).toEqual(["m", "1"]);
    const t = makeKernel("{[i,j]: 0<=i,j<4}", ["<float64> t[i,j] = a[i,j] {id=w}", "out[i,j] = t[j,i] {dep=w}"], ["a, out: float64[4,4]"]);
    expect(strides(tagArrayAxes(t, "t", "f,f"), "t")).toEqual(["1", "4"]);
    expect(strides(tagArrayAxes(box(), "a", "stride:1,stride:3,stride:3*M"), "a")).toEqual(["1", "3", "3*M"]);
  });

  it("refuses a wrong tag count, unknown tags, unknown arrays and misplaced tags", () => {
    expect(() => tagArrayAxes(transpose(), "a", "c")).toThrow(TransformError);
    expect(() => tagArrayAxes(transpose(), "a", "c")).toThrow(/"a" \(2 axes\): dim tags "c" name 1 axes, but the array has 2/);
    expect(() => tagArrayAxes(transpose(), "a", "c,x")).toThrow(/unknown array axis tag "x"; expected c, f, N0…N9/);
    expect(() => tagArrayAxes(transpose(), "a", "N0,c")).toThrow(/cannot mix/);
    expect(() => tagArrayAxes(transpose(), "b", "c,c")).toThrow(/no array or temporary "b" in kernel "tr"; arrays and temporaries are a, out/);
    expect(() => tagArrayAxes(transpose(), "n", "c")).toThrow(/"n" is a value argument/);
    expect(() => tagArrayAxes(transpose(), "a", "c,vec")).toThrow(/vec, which needs a constant extent/);
    expect(() => tagArrayAxes(box(), "a", "c,vec,vec")).toThrow(/at most one vec axis/);
    expect(() => tagArrayAxes(transpose(), "a", "stride:q,stride:1")).toThrow(/uses q, which is not a parameter.*or stride:auto/);
    expect(() => tagArrayAxes(transpose(), "", "c,c")).toThrow(/expected an array name/);
  });

  it("stride:auto makes the stride an int32 argument a_stride{axis} (loopy's lp.auto stride)", () => {
    const k = tagArrayAxes(transpose(), "a", "stride:auto,stride:1");
    expect(strides(k, "a")).toEqual(["a_stride0", "1"]);
    expect(k.args.map((a) => `${a.name}:${a.kind}`)).toEqual(["a:array", "out:array", "n:value", "m:value", "a_stride0:value"]);
    expect(strides(tagArrayAxes(k, "a", "stride:auto,c"), "a")).toEqual(["a_stride0", "1"]);
    const t = makeKernel("{[i,j]: 0<=i,j<4}", ["<float64> t[i,j] = a[i,j] {id=w}", "out[i,j] = t[j,i] {dep=w}"], ["a, out: float64[4,4]"]);
    expect(() => tagArrayAxes(t, "t", "stride:auto,c")).toThrow(/temporary "t" is tagged stride:auto/);
  });

  it("(pad=K) rounds the stride of the next axis out up to a multiple of K (loopy's pad_to)", () => {
    expect(strides(tagArrayAxes(transpose(), "a", "c,c(pad=16)"), "a")).toEqual(["(m + 15)//16*16", "1"]);
    expect(strides(tagArrayAxes(box(), "a", "c,c(pad=8),c"), "a")).toEqual(["(M*4 + 7)//8*8", "4", "1"]);
    expect(strides(tagArrayAxes(box(), "a", "c,c,c(pad=8)"), "a")).toEqual(["M*8", "8", "1"]);
    expect(strides(tagArrayAxes(box(), "a", "N0(pad=4),N1,N2"), "a")).toEqual(["1", "4", "M*4"]);
    expect(() => tagArrayAxes(box(), "a", "c,c,stride:1(pad=4)")).toThrow(/\(pad=…\) goes on c, f or N0…N9/);
    expect(() => tagArrayAxes(box(), "a", "c,c,c(pad=x)")).toThrow(/padding must be an integer >= 1/);
    expect(() => tagArrayAxes(box(), "a", "c,c(pad=2),vec")).toThrow(/padding a vector array is not supported/);
  });

  it("->0 names the only target axis of an array; other target axes exist only for images", () => {
    expect(strides(tagArrayAxes(transpose(), "a", "N1->0,N0->0"), "a")).toEqual(["m", "1"]);
    expect(() => tagArrayAxes(transpose(), "a", "N1->1,N0->0")).toThrow(/target axis 1; only OpenCL images .* Loom has no image arrays/);
  });

  it("strides with parameters follow fixParameters", () => {
    const k = fixParameters(tagArrayAxes(transpose(), "a", "stride:1,stride:n"), { n: 5 });
    expect(strides(k, "a")).toEqual(["1", "5"]);
  });
});

describe("dimOrder", () => {
  it("lists axes fastest first: [1, 0] is row-major, [0, 1] column-major", () => {
    expect(strides(dimOrder(transpose(), "a", [1, 0]), "a")).toEqual(["m", "1"]);
    expect(strides(dimOrder(transpose(), "a", [0, 1]), "a")).toEqual(["1", "n"]);
    // (3, M, 4) with axis 1 fastest, then axis 2, then axis 0: strides (4*M, 1, M).
    expect(strides(dimOrder(box(), "a", [1, 2, 0]), "a")).toEqual(["M*4", "1", "M"]);
    expect(effectiveDimTags(data(dimOrder(box(), "a", [1, 0, 2]), "a"))).toEqual(effectiveDimTags(data(tagArrayAxes(box(), "a", "N1,N0,N2"), "a")));
  });

  it("refuses an order that is not a permutation of the axes", () => {
    expect(() => dimOrder(transpose(), "a", [0])).toThrow(/a permutation of 0…1, e.g. \[1, 0\] for row-major\); got \[0\]/);
    expect(() => dimOrder(transpose(), "a", [0, 0])).toThrow(TransformError);
    expect(() => dimOrder(transpose(), "a", [0, 2])).toThrow(TransformError);
    expect(() => dimOrder(transpose(), "zz", [0, 1])).toThrow(/no array or temporary "zz"/);
  });
});

describe("splitArrayAxis", () => {
  const vec = () => makeKernel("{[i]: 0<=i<16}", "out[i] = 2*a[i]", ["a, out: float32[16]"], { name: "v" });

  it("turns a[i] into a[i//count, i%count] with the old flat storage (loopy's example)", () => {
    const k = splitArrayAxis(vec(), "a", 0, 4);
    expect(data(k, "a").shape!.map(exprToString)).toEqual(["4", "4"]);
    expect(text(k)).toEqual(["out[i] = 2*a[i//4, i%4]"]);
    expect(strides(k, "a")).toEqual(["4", "1"]);
    const f = splitArrayAxis(vec(), "a", 0, 4, { order: "F" });
    expect(text(f)).toEqual(["out[i] = 2*a[i%4, i//4]"]);
    expect(strides(f, "a")).toEqual(["1", "4"]);
  });

  it("simplifies indices of a split iname, and uses the assumptions for symbolic extents", () => {
    const k0 = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[i,j] = a[i,j]", ["a, out: float64[n,m]", "n, m: int32"]);
    const k = splitArrayAxis(splitIname(assume(k0, "m mod 4 = 0"), "j", 4), "a, out", 1, 4);
    expect(text(k)).toEqual(["out[i, j_outer, j_inner] = a[i, j_outer, j_inner]"]);
    expect(data(k, "a").shape!.map(exprToString)).toEqual(["n", "m//4", "4"]);
    expect(strides(k, "a")).toEqual(["m//4*4", "4", "1"]);
    const shifted = makeKernel("{[i]: 0<=i<4}", "out[i] = a[i + 8]", ["a: float32[16]", "out: float32[4]"]);
    expect(text(splitArrayAxis(shifted, "a", 0, 8))).toEqual(["out[i] = a[1, i]"]);
  });

  it("divides an extent that is a multiple of the count exactly, whatever the count (49*m by 49 is m, not m*0.999…)", () => {
    const k = makeKernel("{[i]: 0<=i<49*m}", "out[i] = 2*a[i]", ["a, out: float32[49*m]", "m: int32"]);
    for (const [count, outer] of [[49, "m"], [7, "m*7"], [103, "(49*m + 102)//103"]] as const) {
      expect(data(splitArrayAxis(k, "a", 0, count), "a").shape!.map(exprToString)).toEqual([outer, String(count)]);
    }
  });

  it("pads an extent the count does not divide: ceil(E/count) outer rows, every element in its old place (loopy's div_ceil)", () => {
    const k = splitArrayAxis(vec(), "a", 0, 5);
    expect(data(k, "a").shape!.map(exprToString)).toEqual(["4", "5"]);
    expect(strides(k, "a")).toEqual(["5", "1"]);
    expect(text(k)).toEqual(["out[i] = 2*a[i//5, i%5]"]);
    const t = splitArrayAxis(transpose(), "a", 1, 4, { order: "F" });
    expect(data(t, "a").shape!.map(exprToString)).toEqual(["n", "4", "(m + 3)//4"]);
    expect(strides(t, "a")).toEqual(["m", "1", "4"]);
    expect(() => splitArrayAxis(tagArrayAxes(box(), "a", "c,c,vec"), "a", 0, 2)).toThrow(/has a vec axis; padding is only possible/);
  });

  it("refuses bad axes and counts, sep/vec axes and linear subscripts", () => {
    expect(() => splitArrayAxis(vec(), "a", 1, 4)).toThrow(/"a" has 1 axes \(0…0\); got axis 1/);
    expect(() => splitArrayAxis(vec(), "a", 0, 0)).toThrow(/count must be an integer >= 1; got 0/);
    expect(() => splitArrayAxis(vec(), "a", 0, 4, { order: "X" as "C" })).toThrow(/order must be "C" or "F"/);
    expect(() => splitArrayAxis(tagArrayAxes(box(), "a", "sep,c,c"), "a", 0, 3)).toThrow(/tagged sep/);
    const lin = makeKernel("{[i]: 0<=i<16}", "out[i] = a[[i]]", ["a, out: float32[16]"]);
    expect(() => splitArrayAxis(lin, "a", 0, 4)).toThrow(/linear subscript/);
    expect(splitArrayAxis(vec(), "a", 0, 1)).toEqual(vec());
  });
});

describe("privatize", () => {
  const acc = () => makeKernel("{[i,j]: 0<=i<4 and 0<=j<n}",
    ["for i", "<float64> acc = 0 {id=init}", "for j", "acc = acc + a[i,j] {id=upd, dep=init}", "end", "out[i] = acc {dep=upd}", "end"],
    ["a: float64[4,n]", "out: float64[4]", "n: int32"], { name: "acc" });

  it("gives the temporary one slot per value of the iname (loopy's acc -> acc[i])", () => {
    const k = privatize(acc(), "acc", "i");
    expect(text(k)).toEqual(["acc[i] = 0", "acc[i] = acc[i] + a[i, j]", "out[i] = acc[i]"]);
    expect(data(k, "acc").shape!.map(exprToString)).toEqual(["4"]);
  });

  it("indexes by iname - lower and puts the new axes in front", () => {
    const k0 = makeKernel("{[i,j]: 2<=i<5 and 0<=j<3}", ["<float64> t[j] = a[i,j] {id=w}", "out[i,j] = t[j]*2 {dep=w}"], ["a, out: float64[5,3]"]);
    const k = privatize(k0, "t", ["i"]);
    expect(text(k)).toEqual(["t[i - 2, j] = a[i, j]", "out[i, j] = t[i - 2, j]*2"]);
    expect(data(k, "t").shape!.map(exprToString)).toEqual(["3", "3"]);
  });

  it("refuses non-temporaries, unknown inames, non-constant extents and accesses outside the loop", () => {
    expect(() => privatize(acc(), "out", "i")).toThrow(/"out" is an argument; only temporaries can be privatized/);
    expect(() => privatize(acc(), "zz", "i")).toThrow(/no temporary "zz" in kernel "acc"; temporaries are acc/);
    expect(() => privatize(acc(), "acc", "q")).toThrow(/no iname "q"/);
    expect(() => privatize(acc(), "acc", "j")).toThrow(/iname "j" has no constant extent/);
    expect(() => privatize(fixParameters(acc(), { n: 3 }), "acc", "j")).toThrow(/instruction "init" uses "acc" outside the loop over j/);
    expect(() => privatize(acc(), "acc", "")).toThrow(/expected an iname/);
  });
});

// ---- laws -------------------------------------------------------------------------------------

const shapes2 = fc.record({ n: fc.integer({ min: 0, max: 6 }), m: fc.integer({ min: 0, max: 6 }) });

describe("law: tagArrayAxes and dimOrder keep the meaning (outputs by logical index)", () => {
  const tags2 = fc.constantFrom("c,c", "f,f", "f,c", "c,f", "N0,N1", "N1,N0", "sep?,f,c");
  it("tagArrayAxes on the input, the output or both", async () => {
    await fc.assert(fc.asyncProperty(tags2, tags2, fc.constantFrom("a", "out", "a,out"), shapes2, async (ta, to, which, p) => {
      let k = transpose();
      if (which.includes("a")) k = tagArrayAxes(k, "a", ta);
      if (which.includes("out")) k = tagArrayAxes(k, "out", to);
      const r = await autoTestVsRef(transpose(), k, { params: p, seed: p.n * 7 + p.m });
      expect(r.mismatches).toEqual([]);
    }), RUNS);
  });

  it("dimOrder with every permutation of a 3-D array", async () => {
    const perm3 = fc.constantFrom([0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]);
    await fc.assert(fc.asyncProperty(perm3, perm3, fc.integer({ min: 0, max: 5 }), async (pa, po, M) => {
      const k = dimOrder(dimOrder(box(), "a", pa), "out", po);
      const r = await autoTestVsRef(box(), k, { params: { M }, seed: M });
      expect(r.mismatches).toEqual([]);
    }), RUNS);
  });
});

describe("law: privatize keeps the meaning", () => {
  it("an accumulator privatized over its outer iname, whatever the bounds", async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 5 }), fc.boolean(),
      async (lo, len, n, split) => {
        const k = makeKernel(`{[i,j]: ${lo}<=i<${lo + len} and 0<=j<n}`,
          ["for i", "<float64> acc = 0 {id=init}", "for j", "acc = acc + a[i,j]*j {id=upd, dep=init}", "end", "out[i] = acc {dep=upd}", "end"],
          [`a: float64[${lo + len},n]`, `out: float64[${lo + len}]`, "n: int32"]);
        const t = split ? privatize(splitIname(k, "j", 2), "acc", "i") : privatize(k, "acc", "i");
        const r = await autoTestVsRef(k, t, { params: { n }, seed: n + 10 * lo });
        expect(r.mismatches).toEqual([]);
      }), RUNS);
  });
});

describe("law: splitArrayAxis keeps the meaning on the same flat storage", () => {
  it("for any divisor of the extent, axis and order", async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom(1, 2, 3, 6), fc.constantFrom(0, 1), fc.constantFrom("C" as const, "F" as const),
      fc.constantFrom("a", "out", "a,out"), fc.integer({ min: 1, max: 3 }), fc.nat(),
      async (count, axis, order, which, factor, seed) => {
        const k = makeKernel("{[i,j]: 0<=i<6 and 0<=j<6}", "out[i,j] = a[j,i]*i + a[i,j]", ["a, out: float64[6,6]"]);
        const t = splitArrayAxis(splitIname(k, axis === 0 ? "i" : "j", factor), which, axis, count, { order });
        let s = seed;
        const a = Float64Array.from({ length: 36 }, () => ((s = (s * 69069 + 1) >>> 0) % 1000) / 100);
        const [want, got] = [await run(k, { a }), await run(t, { a })];
        expect([...(got.out as Float64Array)]).toEqual([...(want.out as Float64Array)]);
      }), RUNS);
  });
});

describe("law: stride:auto and (pad=K) keep the meaning (outputs by logical index)", () => {
  it("stride:auto on any axis, with any stride at least as wide as a row", async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 5 }), fc.constantFrom("a", "out", "a,out"), fc.boolean(),
      async (n, m, extra, which, rowAuto) => {
        const k = tagArrayAxes(transpose(), which, rowAuto ? "stride:auto,c" : "c,stride:auto");
        // The stride arguments are the kernel's only: autoTestVsRef takes their values from params.
        const strideArgs = k.args.filter((a) => a.name.includes("_stride"));
        // a is [n, m], out is [m, n]. "stride:auto,c": axis 0 steps over a row (axis 1, stride 1);
        // "c,stride:auto": axis 0 is the only nested one (stride 1), axis 1 steps over axis 0.
        const extents: Record<string, [number, number]> = { a: [n, m], out: [m, n] };
        const params: Record<string, number> = { n, m };
        for (const a of strideArgs) {
          const [e0, e1] = extents[a.name.split("_stride")[0]!]!;
          params[a.name] = (rowAuto ? e1 : e0) + extra;
        }
        const r = await autoTestVsRef(transpose(), k, { params, seed: n * 7 + m + extra });
        expect(r.mismatches).toEqual([]);
      }), RUNS);
  });

  it("padding any nested axis of a 3-D array by any K", async () => {
    await fc.assert(fc.asyncProperty(fc.constantFrom("c", "f"), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 5 }), fc.constantFrom("a", "out", "a,out"),
      async (order, axis, pad, M, which) => {
        const tags = [0, 1, 2].map((x) => (x === axis ? `${order}(pad=${pad})` : order)).join(",");
        const k = tagArrayAxes(box(), which, tags);
        const r = await autoTestVsRef(box(), k, { params: { M }, seed: M + pad });
        expect(r.mismatches).toEqual([]);
      }), RUNS);
  });
});

describe("law: splitArrayAxis by a count that does not divide the extent keeps every element in place", () => {
  it("for any extents, count, axis and order", async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 7 }), fc.integer({ min: 2, max: 5 }), fc.constantFrom(0, 1),
      fc.constantFrom("C" as const, "F" as const), fc.constantFrom("a", "out", "a,out"), fc.constantFrom("c,c", "f,f"),
      async (n, m, count, axis, order, which, tags) => {
        const k = tagArrayAxes(makeKernel(`{[i,j]: 0<=i<${n} and 0<=j<${m}}`, "out[i,j] = a[i,j]*(i + 1) - j", [`a, out: float64[${n},${m}]`]), "a, out", tags);
        const t = splitArrayAxis(k, which, axis, count, { order });
        const size = (kk: Kernel, name: string) => {
          const d = data(kk, name);
          const st = axisStrides(d.shape!, effectiveDimTags(d)).map((x) => Number(exprToString(x!)));
          return 1 + d.shape!.reduce((acc, e, x) => acc + (Number(exprToString(e)) - 1) * st[x]!, 0);
        };
        const a = Float64Array.from({ length: n * m }, (_, x) => Math.cos(x * 1.3));
        const padded = new Float64Array(size(t, "a"));
        padded.set(a);
        const [want, got] = [await run(k, { a }), await run(t, { a: padded })];
        expect([...(got.out as Float64Array)].slice(0, n * m)).toEqual([...(want.out as Float64Array)]);
      }), RUNS);
  });
});

describe("autoTestVsRef over splitArrayAxis (issue 15, point 8): the split array keeps its flat storage", () => {
  const ref = (body = "out[i, j] = 2*a[i, j] + b[i]") => makeKernel("{[i,j]: 0<=i<n and 0<=j<3}", body, ["a, out: float64[n, 3]", "b: float64[n]", "n: int32"]);
  it("a correct kernel is ok on every backend, whether the count divides the extent or pads it", async () => {
    for (const k of [splitArrayAxis(ref(), "a", 0, 4), splitArrayAxis(ref(), "out", 0, 4), splitArrayAxis(splitArrayAxis(ref(), "b", 0, 2, { order: "F" }), "a", 1, 3)]) {
      for (const backend of parityBackends()) {
        for (const n of [8, 10]) {
          const r = await autoTestVsRef(ref(), k, { params: { n }, backend: backend as never });
          expect(r.ok, `${backend} n=${n}: ${r.mismatches.join("; ")}`).toBe(true);
        }
      }
    }
  });
  it("a wrong one still fails", async () => {
    const r = await autoTestVsRef(ref(), splitArrayAxis(ref("out[i, j] = 2*a[i, j] + b[i] + (i == 5)"), "a", 0, 4), { params: { n: 8 } });
    expect(r.ok).toBe(false);
    expect(r.mismatches[0]).toMatch(/^out\[5, 0\]/);
  });
});
