/**
 * The static write-race check (schedule/races.ts, loopy's check_for_write_races): an instruction
 * run across a parallel iname its assignee's index does not use is refused before scheduling,
 * naming the instruction, the variable, the inames and the fixes; what cannot race is accepted.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { ScheduleError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { preprocess } from "../../src/schedule/index.js";
import { addPrefetch, assume, splitIname, tagInames } from "../../transforms/index.js";
import { S, withBlock } from "../ir/block-helpers.js";
import { tag } from "../run/parallel-helpers.js";
import { thrownBy } from "../thrown.js";

/** The ScheduleError `f` throws (failing the test when it throws nothing or something else). */
const refusal = (f: () => unknown): ScheduleError => thrownBy(ScheduleError, f);

const transposeRef = () => makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "out[i, j] = a[j, i]", ["a, out: float32[n,n]", "n: int32"],
  { assumptions: "n mod 16 = 0 and n >= 16", name: "transpose" });

/** Split both inames by 16 (outer on g.0/g.1, i_inner on l.0), prefetch a sweeping `sweep`, then tag j_inner l.1. */
function transposed(sweep: string[]): Kernel {
  let k = splitIname(transposeRef(), "i", 16, { outerTag: "g.0", innerTag: "l.0" });
  k = splitIname(k, "j", 16, { outerTag: "g.1" });
  k = addPrefetch(k, "a", { sweepInames: sweep });
  return tagInames(k, "j_inner:l.1");
}

describe("write races across parallel inames are refused before code generation", () => {
  it("a prefetch left inside j_inner, then j_inner tagged l.1: every lid(1) writes the same a_fetch cell", async () => {
    const k = transposed(["i_inner"]);
    const e = refusal(() => generateCode(k, "opencl"));
    expect(e.message).toMatch(/^instruction "a_fetch_rule" contains a write race on local temporary "a_fetch": it runs across parallel iname\(s\) "j_inner" \(l\.1\), but its left-hand side a_fetch\[a_dim_0\] does not reference it/);
    expect(e.message).toMatch(/index "a_fetch" by it \(for a prefetch or precompute: sweep "j_inner" too\), make "a_fetch" private .*, or do not tag "j_inner" as parallel$/);
    // The interpreter refuses it the same way, before running.
    await expect(run(k, { n: 16, a: new Float32Array(256), out: new Float32Array(256) })).rejects.toThrow(ScheduleError);
  });

  it("with j_inner in the sweep (loopy's legal variant) the fetch is indexed by it: accepted and equivalent", async () => {
    const k = transposed(["i_inner", "j_inner"]);
    expect(generateCode(k, "opencl").deviceCode).toContain("a_fetch[16 * lid(1) + lid(0)] = a[");
    for (const n of [16, 32]) expect(await autoTestVsRef(transposeRef(), k, { params: { n }, backend: "interp" })).toEqual({ ok: true, maxRelError: 0, mismatches: [] });
  });

  it("a global write out[i] inside l.0 iname j is refused, naming j", () => {
    const k = tag(makeKernel("{[i,j]: 0<=i<n and 0<=j<16}", "out[i] = a[i, j] {id=w}", ["a: float32[n,16]", "out: float32[n]", "n: int32"]), { i: "g.0", j: "l.0" });
    const e = refusal(() => preprocess(k));
    expect(e.message).toMatch(/^instruction "w" contains a write race on global array "out": it runs across parallel iname\(s\) "j" \(l\.0\), but its left-hand side out\[i\] does not reference it, so every work-item along it writes the same cell; index "out" by it, or do not tag "j" as parallel$/);
  });

  it("a global array across a g iname it does not use: every group writes the same cell", () => {
    const k = tag(makeKernel("{[g,i]: 0<=g<4 and 0<=i<16}", "out[i] = a[16*g + i] {id=w}", ["a: float32[64]", "out: float32[16]"]), { g: "g.0", i: "l.0" });
    expect(refusal(() => preprocess(k)).message).toMatch(/"w" contains a write race on global array "out": .*"g" \(g\.0\).*every group along it/);
  });

  it("a scalar local temporary counts as indexed by nothing", () => {
    const k = tag(makeKernel("{[j]: 0<=j<16}", ["t = a[j] {id=w}", "out[j] = t {id=r, dep=w}"], [temporary("t", "float32", [], "local"), "a, out: float32[16]"]), { j: "l.0" });
    expect(refusal(() => preprocess(k)).message).toMatch(/"w" contains a write race on local temporary "t": .*"j" \(l\.0\), but it assigns "t" as a scalar/);
  });

  it("an unsynchronized update suggests {atomic}; the atomic update is accepted and runs", async () => {
    const k = (atomic: string) => tag(makeKernel("{[i]: 0<=i<16}", `s[0] = s[0] + a[i] {id=add${atomic}}`, ["a, s: int32[16]"]), { i: "l.0" });
    expect(refusal(() => preprocess(k(""))).message).toMatch(/, or mark the update \{atomic\} if the contributions are meant to accumulate$/);
    expect(() => preprocess(k(", atomic"))).not.toThrow();
    const a = Int32Array.from({ length: 16 }, (_, x) => x);
    expect((await run(k(", atomic"), { a, s: new Int32Array(16) })).s![0]).toBe(120);
  });

  it("a block's store is checked as an assignment's", () => {
    const base = () => tag(makeKernel("{[i,j]: 0<=i<n and 0<=j<8}", "out[i] = 0 {id=b, inames=i:j}", ["a: int32[n, 8]", "out: int32[n]", "n: int32"]), { i: "g.0", j: "l.0" });
    const racy = withBlock(base(), "b", [S.decl("x", "int32", "a[i, j]"), S.set("out[i]", "x + j")]);
    expect(refusal(() => preprocess(racy)).message).toMatch(/"b" contains a write race on global array "out": .*"j" \(l\.0\)/);
    // Under `if j == 0` only one work-item stores.
    const guarded = withBlock(base(), "b", [S.decl("x", "int32", "a[i, j]"), S.if("j == 0", [S.set("out[i]", "x + j")])]);
    expect(() => preprocess(guarded)).not.toThrow();
  });
});

describe("what cannot race is accepted", () => {
  it("a private temporary written across l inames (every work-item its own copy)", async () => {
    const ref = makeKernel("{[i,j]: 0<=i,j<16}", "out[i, j] = 2*a[i, j]", ["a, out: float32[16,16]"], { name: "scale" });
    const k = tag(makeKernel("{[i,j]: 0<=i,j<16}", ["t = 2*a[i, j] {id=w}", "out[i, j] = t {id=r, dep=w}"],
      [temporary("t", "float32", [], "private"), "a, out: float32[16,16]"], { name: "scale" }), { i: "l.1", j: "l.0" });
    expect(() => generateCode(k, "opencl")).not.toThrow();
    expect((await autoTestVsRef(ref, k, { backend: "interp" })).ok).toBe(true);
  });

  it("a local temporary indexed by all its l inames", async () => {
    const ref = makeKernel("{[i,j]: 0<=i,j<16}", "out[i, j] = a[i, j] + 1", ["a, out: float32[16,16]"], { name: "inc" });
    const k = tag(makeKernel("{[i,j]: 0<=i,j<16}", ["t[i, j] = a[i, j] + 1 {id=w}", "out[i, j] = t[i, j] {id=r, dep=w}"],
      [temporary("t", "float32", [16, 16], "local"), "a, out: float32[16,16]"], { name: "inc" }), { i: "l.1", j: "l.0" });
    expect(() => generateCode(k, "opencl")).not.toThrow();
    expect((await autoTestVsRef(ref, k, { backend: "interp" })).ok).toBe(true);
  });

  it("a local temporary across a g iname it does not use (each group has its own)", () => {
    const k = tag(makeKernel("{[g,i]: 0<=g<4 and 0<=i<16}", ["t[i] = a[16*g + i] {id=w}", "out[16*g + i] = t[15 - i] {id=r, dep=w}"],
      [temporary("t", "float32", [16], "local"), "a, out: float32[64]"]), { g: "g.0", i: "l.0" });
    expect(() => preprocess(k)).not.toThrow();
  });

  it("reduction inames are summed, not run across: a local reduction into out[i]", () => {
    const k = tag(makeKernel("{[i,j]: 0<=i<n and 0<=j<16}", "out[i] = sum(j, a[i, j])", ["a: float32[n,16]", "out: float32[n]", "n: int32"]), { i: "g.0", j: "l.0" });
    expect(() => generateCode(k, "opencl")).not.toThrow();
  });

  it("an index that does not name the iname but is distinct across it (a tile of o)", () => {
    const k = tag(makeKernel(["{[o]: 0<=o<n}", "{[i]: 16*o<=i<16*o+16}"], "out[i] = 1 {id=a}", ["out: float32[16*n]", "n: int32"]), { o: "g.0", i: "l.0" });
    expect(() => preprocess(k)).not.toThrow();
  });

  it("a predicate that leaves one work-item storing (if=j == 0)", () => {
    const k = tag(makeKernel("{[i,j]: 0<=i<n and 0<=j<16}", "out[i] = a[i, j] {id=w, if=j == 0}", ["a: float32[n,16]", "out: float32[n]", "n: int32"]), { i: "g.0", j: "l.0" });
    expect(() => preprocess(k)).not.toThrow();
  });

  it("a parallel iname of extent 1, whatever the index", () => {
    const k = (groups: number) => tag(makeKernel(`{[g,t,i]: 0<=g<${groups} and 0<=t<1 and 0<=i<n}`, "out[i*i] = i + g {id=w, inames=g:t:i}",
      ["out: int32[n*n]", "n: int32"]), { g: "g.0", t: "l.0" });
    expect(() => preprocess(k(1))).not.toThrow();
    // Two groups: the non-affine index proves nothing, and g's groups write different values.
    expect(refusal(() => preprocess(k(2))).message).toMatch(/^instruction "w" contains a write race on global array "out": it runs across parallel iname\(s\) "g" \(g\.0\), but/);
  });

  it("redundant copies of one value (as the interpreter allows); not an update of what it reads", async () => {
    const k = (rhs: string) => tag(makeKernel("{[i,j]: 0<=i<n and 0<=j<16}", `out[i] = ${rhs} {id=w, inames=i:j}`, ["a, out: float32[n]", "n: int32"]), { i: "g.0", j: "l.0" });
    expect(() => generateCode(k("2*a[i]"), "opencl")).not.toThrow();
    const ref = makeKernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", ["a, out: float32[n]", "n: int32"]);
    expect((await autoTestVsRef(ref, k("2*a[i]"), { params: { n: 5 }, backend: "interp" })).ok).toBe(true);
    expect(refusal(() => preprocess(k("out[i] + a[i]"))).message).toMatch(/"w" contains a write race on global array "out"/);
  });
});

describe("saying a race is meant", () => {
  it("the instruction tag write_race_ok (loopy's silenced write_race warning) lets the store through", () => {
    const racy = (tags: string) => tag(makeKernel("{[i,j]: 0<=i<n and 0<=j<4}", `out[i] = a[i, j] {id=w${tags}}`, ["a: float32[n,4]", "out: float32[n]", "n: int32"]), { j: "l.0" });
    expect(() => generateCode(racy(""), "opencl")).toThrow(ScheduleError);
    expect(generateCode(racy(", tags=write_race_ok"), "opencl").deviceCode).toMatch(/out\[/);
  });

  it("OKL imports keep their racy stores (OCCA checks none): every imported instruction carries the tag", () => {
    const [k] = parseOkl(`@kernel void f(const int n, const float *a, float *out) {
      for (int i = 0; i < n; ++i; @outer) { for (int j = 0; j < 4; ++j; @inner) { out[i] = a[4*i + j]; } } }`);
    expect(generateCode(k!, "opencl").deviceCode).toMatch(/out\[/);
    expect(k!.instructions.every((insn) => insn.tags.includes("write_race_ok"))).toBe(true);
  });
});

describe("races write_race_ok cannot cover (OKL imports carry it)", () => {
  const okl = (body: string, args = "const int N, const int *idx, double *out") => parseOkl(`@kernel void f(${args}) {
  for (int b = 0; b < N; ++b; @outer) {
    @shared double s[16];
    for (int t = 0; t < 16; ++t; @inner) { s[t] = 0; }
    for (int t = 0; t < 16; ++t; @inner) { ${body} }
    for (int t = 0; t < 16; ++t; @inner) { if (t == 0) out[b] = s[0]; }
  }
}`)[0]!;

  it("every work-item updating one @shared cell is refused on every backend, with the place and the fixes", async () => {
    const k = okl("s[0] += t;");
    const e = refusal(() => generateCode(k, "c"));
    expect(e.message).toMatch(/instruction "insn_\d+" \(at 5:\d+\) races on local temporary "s": every work-item of loop "t_0" \(at 5:5\) \(l\.0\) updates the same cell s\[0\]/);
    expect(e.message).toMatch(/make the update atomic .* let one work-item do it/);
    expect(() => generateCode(k, "cuda")).toThrow(ScheduleError);
    await expect(run(k, { N: 2, idx: new Int32Array(16), out: new Float64Array(2) })).rejects.toThrow(/races on local temporary "s"/);
  });

  it("different values stored to one cell (the last writer wins) are refused; a global cell across groups too", () => {
    expect(refusal(() => generateCode(okl("s[0] = t;"), "c")).message).toMatch(/stores different values \(t_0\) to the same cell s\[0\]/);
    const g = parseOkl(`@kernel void g(const int N, double *out) {
      for (int b = 0; b < N; ++b; @outer) { for (int t = 0; t < 4; ++t; @inner) { if (t == 0) out[0] += b; } } }`)[0]!;
    expect(refusal(() => generateCode(g, "c")).message).toMatch(/global array "out" whenever 2 <= N: every group of loop "b" .* \(g\.0\) updates the same cell out\[0\]/);
  });

  it("a race only some parameter values make says which; lp.assume of the others makes the kernel run, checked at run (nekRS's neumannBCHex3D)", async () => {
    const k = parseOkl(`@kernel void f(const int Ns, const int Ne, const double *r, double *rhs) {
      for (int s = 0; s < Ns; ++s; @outer(1)) { for (int e = 0; e < Ne; ++e; @outer(0)) {
        for (int i = 0; i < 4; ++i; @inner) { rhs[4*e + i] -= r[4*e + i]; } } } }`)[0]!;
    expect(refusal(() => generateCode(k, "c")).message).toMatch(/races on global array "rhs" whenever 2 <= Ns: every group of loop "s" .* say so with lp\.assume/);
    const one = assume(k, "Ns <= 1");
    const r = Float64Array.from({ length: 8 }, (_, i) => i);
    expect(Array.from((await run(one, { Ns: 1, Ne: 2, r, rhs: new Float64Array(8) })).rhs as Float64Array)).toEqual([0, -1, -2, -3, -4, -5, -6, -7]);
    await expect(run(one, { Ns: 2, Ne: 2, r, rhs: new Float64Array(8) })).rejects.toThrow(/^Ns = 2 violates the assumptions/);
  });

  it("what cannot be proved racy is left to the run: one work-item, one value for all, data-dependent cells", async () => {
    for (const body of ["if (t == 0) s[0] += 1;", "s[0] = N;", "s[t] += t;", "s[idx[t]] += 1;", "if (t < 1) s[0] = t;"]) {
      expect(generateCode(okl(body), "c").deviceCode, body).toMatch(/s\[/);
    }
    // idx a permutation: no two work-items meet, and the run agrees with the serial meaning.
    const r = await run(okl("s[idx[t]] += 1;"), { N: 1, idx: Int32Array.from({ length: 16 }, (_, i) => 15 - i), out: new Float64Array(1) });
    expect(Array.from(r.out as Float64Array)).toEqual([1]);
  });
});
