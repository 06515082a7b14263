/** Preprocessing: what the realized kernels look like, tag resolution, address spaces, tag checks. */
import { describe, expect, it } from "vitest";
import { ScheduleError } from "../../src/errors.js";
import { exprToString, parseInameTag, withKernel, type InameTag, type Kernel } from "../../src/ir/index.js";
import { makeKernel, parseExpr } from "../../src/parse/index.js";
import { preprocess } from "../../src/schedule/index.js";

/** `k` with iname tags given as strings: `tag(k, {i: "g.0", j: "l.auto"})`. */
function tag(k: Kernel, tags: Record<string, string>): Kernel {
  const parsed = Object.fromEntries(Object.entries(tags).map(([i, t]) => [i, parseInameTag(t) as InameTag]));
  return withKernel(k, { inameTags: { ...k.inameTags, ...parsed } });
}

/** Instructions as `id: lhs = rhs [within] <- deps (if preds)`, one a line. */
function insns(k: Kernel): string[] {
  return k.instructions.map((insn) => {
    const body = insn.kind === "assign" ? `${exprToString(insn.lhs)} = ${exprToString(insn.rhs)}` : insn.kind;
    const preds = insn.predicates.length > 0 ? ` if ${insn.predicates.map(exprToString).join(" and ")}` : "";
    return `${insn.id}: ${body} [${insn.withinInames.join(",")}] <- ${insn.dependsOn.join(",")}${preds}`;
  });
}

function temps(k: Kernel): string[] {
  return k.temporaries.map((t) => `${t.name}: ${t.dtype ?? "?"}[${t.shape.map(exprToString).join(",")}] ${t.addressSpace}`);
}

function scheduleError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ScheduleError);
    return (e as Error).message;
  }
  throw new Error("expected a ScheduleError");
}

describe("substitution rules", () => {
  it("expands rules that call rules, and drops them", () => {
    const k = makeKernel("{[i]: 0<=i<n}", ["sq(x) := x*x", "quad(x) := sq(sq(x))", "out[i] = quad(a[i]) {id=s}"], ["a: float32[n]", "..."]);
    const p = preprocess(k);
    expect(p.substitutions).toEqual([]);
    expect(insns(p)).toEqual(["s: out[i] = a[i]*a[i]*(a[i]*a[i]) [i] <- "]);
  });

  it("reports a rule that expands without end", () => {
    const k0 = makeKernel("{[i]: 0<=i<n}", ["f(x) := x + 1", "out[i] = f(a[i])"], ["a: float32[n]", "..."]);
    const self = parseExpr("f(x) + 1");
    const k = withKernel(k0, { substitutions: [{ name: "f", params: ["x"], expr: self }] });
    expect(scheduleError(() => preprocess(k))).toMatch(/substitution rule "f" .* expands without end/);
  });
});

describe("sequential reductions (realize_reduction)", () => {
  it("matvec: acc_j, an init before the loop, an update inside, the store reading acc_j", () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", "y[i] = sum(j, a[i,j]*x[j]) {id=insn}", ["a: float32[n,m]", "x: float32[m]", "..."]);
    const p = preprocess(k);
    expect(insns(p)).toEqual([
      "insn_j_init: acc_j = 0 [i] <- ",
      "insn_j_update: acc_j = acc_j + a[i, j]*x[j] [i,j] <- insn_j_init",
      "insn: y[i] = acc_j [i] <- insn_j_update",
    ]);
    expect(temps(p)).toEqual(["acc_j: float32[] private"]);
  });

  it("max starts at -inf, min of integers at the largest int32", () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", ["mx[i] = max(j, a[i,j]) {id=m1}", "mn[i] = min(j, b[i,j]) {id=m2}"],
      ["a: float64[n,m]", "b: int32[n,m]", "..."]);
    const p = preprocess(k);
    expect(insns(p).filter((s) => s.includes("_init:"))).toEqual([
      "m1_j_init: acc_j = -INFINITY [i] <- ",
      "m2_j_init: acc_j_0 = 2147483647 [i] <- ",
    ]);
    expect(insns(p)).toContain("m1_j_update: acc_j = max(acc_j, a[i, j]) [i,j] <- m1_j_init");
    expect(temps(p)).toEqual(["acc_j: float64[] private", "acc_j_0: int32[] private"]);
  });

  it("two reductions in one instruction get two accumulators", () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<n}", "out[i] = sum(j, a[i,j]) * product(j, b[i,j]) {id=two}", ["a, b: float32[n,n]", "..."]);
    const p = preprocess(k);
    expect(insns(p)).toEqual([
      "two_j_init: acc_j = 0 [i] <- ",
      "two_j_update: acc_j = acc_j + a[i, j] [i,j] <- two_j_init",
      "two_j_init_0: acc_j_0 = 1 [i] <- ",
      "two_j_update_0: acc_j_0 = acc_j_0*b[i, j] [i,j] <- two_j_init_0",
      "two: out[i] = acc_j*acc_j_0 [i] <- two_j_update,two_j_update_0",
    ]);
  });

  it("a reduction over (k, l) has one accumulator acc_k_l", () => {
    const k = makeKernel("{[i,k,l]: 0<=i,k,l<n}", "out[i] = sum((k, l), a[i,k,l]) {id=s}", ["a: float32[n,n,n]", "..."]);
    expect(insns(preprocess(k))).toEqual([
      "s_k_l_init: acc_k_l = 0 [i] <- ",
      "s_k_l_update: acc_k_l = acc_k_l + a[i, k, l] [i,k,l] <- s_k_l_init",
      "s: out[i] = acc_k_l [i] <- s_k_l_update",
    ]);
  });

  it("a nested reduction is realized inside the outer loop", () => {
    const k = makeKernel("{[i,j,k]: 0<=i,j,k<n}", "out[i] = sum(j, max(k, a[i,j,k])) {id=s}",
      ["a: float32[n,n,n]", "..."]);
    const p = preprocess(k);
    expect(insns(p)).toEqual([
      "s_j_init: acc_j = 0 [i] <- ",
      "s_k_init: acc_k = -INFINITY [i,j] <- ",
      "s_k_update: acc_k = max(acc_k, a[i, j, k]) [i,j,k] <- s_k_init",
      "s_j_update: acc_j = acc_j + acc_k [i,j] <- s_j_init,s_k_update",
      "s: out[i] = acc_j [i] <- s_j_update",
    ]);
  });

  it("generated instructions keep the original's dependencies and predicates", () => {
    const k = makeKernel("{[i,j]: 0<=i,j<n}", ["t[i] = 2 {id=w}", "out[i] = sum(j, a[i,j]) {id=s, dep=w, if=i > 0}"], ["a: float32[n,n]", "t: float32[n]", "..."]);
    expect(insns(preprocess(k)).slice(1)).toEqual([
      // As loopy's: the init writes a fresh accumulator and waits on nothing (global barriers aside).
      "s_j_init: acc_j = 0 [i] <-  if i > 0",
      "s_j_update: acc_j = acc_j + a[i, j] [i,j] <- s_j_init,w if i > 0",
      "s: out[i] = acc_j [i] <- w,s_j_update if i > 0",
    ]);
  });

  it("leaves the input kernel untouched", () => {
    const k = makeKernel("{[i,j]: 0<=i,j<n}", "out[i] = sum(j, a[i,j]) {id=s}", ["a: float32[n,n]", "..."]);
    const before = JSON.stringify(k);
    preprocess(k);
    expect(JSON.stringify(k)).toBe(before);
  });
});

describe("local tree reductions", () => {
  const base = (size: number) => tag(makeKernel(`{[i,k]: 0<=i<n and 0<=k<${size}}`, "out[i] = sum(k, a[i,k]) {id=insn}", [`a: float32[n,${size}]`, "..."]), { i: "g.0", k: "l.0" });

  it("size 16: a local array, each work-item's term, four halving stages on l.0", () => {
    const p = preprocess(base(16));
    expect(temps(p)).toEqual(["acc_k: float32[16] local"]);
    expect(insns(p)).toEqual([
      "insn_k_transfer: acc_k[k] = a[i, k] [i,k] <- ",
      "insn_k_stage0: acc_k[red_k_s0] = acc_k[red_k_s0] + acc_k[red_k_s0 + 8] [i,red_k_s0] <- insn_k_transfer if red_k_s0 < 8",
      "insn_k_stage1: acc_k[red_k_s1] = acc_k[red_k_s1] + acc_k[red_k_s1 + 4] [i,red_k_s1] <- insn_k_stage0 if red_k_s1 < 4",
      "insn_k_stage2: acc_k[red_k_s2] = acc_k[red_k_s2] + acc_k[red_k_s2 + 2] [i,red_k_s2] <- insn_k_stage1 if red_k_s2 < 2",
      "insn_k_stage3: acc_k[red_k_s3] = acc_k[red_k_s3] + acc_k[red_k_s3 + 1] [i,red_k_s3] <- insn_k_stage2 if red_k_s3 < 1",
      "insn: out[i] = acc_k[0] [i] <- insn_k_stage3",
    ]);
    for (const s of ["red_k_s0", "red_k_s1", "red_k_s2", "red_k_s3"]) expect(p.inameTags[s]).toEqual({ kind: "l", axis: 0 });
  });

  it("size 12: the top 4 are folded onto the lower 8 first", () => {
    const p = preprocess(base(12));
    expect(insns(p).map((s) => s.replace(/ \[.*\] <- .*? if/, " if"))).toEqual([
      "insn_k_transfer: acc_k[k] = a[i, k] [i,k] <- ",
      "insn_k_stage0: acc_k[red_k_s0] = acc_k[red_k_s0] + acc_k[red_k_s0 + 8] if red_k_s0 < 4",
      "insn_k_stage1: acc_k[red_k_s1] = acc_k[red_k_s1] + acc_k[red_k_s1 + 4] if red_k_s1 < 4",
      "insn_k_stage2: acc_k[red_k_s2] = acc_k[red_k_s2] + acc_k[red_k_s2 + 2] if red_k_s2 < 2",
      "insn_k_stage3: acc_k[red_k_s3] = acc_k[red_k_s3] + acc_k[red_k_s3 + 1] if red_k_s3 < 1",
      "insn: out[i] = acc_k[0] [i] <- insn_k_stage3",
    ]);
  });

  it("work-items outside a triangular domain contribute the neutral element", () => {
    const k = tag(makeKernel("{[i,k]: 0<=i<16 and 0<=k<=i}", "out[i] = max(k, a[i,k]) {id=insn}", ["a: float32[16,16]", "..."]), { k: "l.0" });
    const p = preprocess(k);
    expect(insns(p).slice(0, 2)).toEqual([
      "insn_k_init: acc_k[red_k] = -INFINITY [i,red_k] <- ",
      "insn_k_transfer: acc_k[k] = a[i, k] [i,k] <- insn_k_init",
    ]);
  });

  it("an l iname around the instruction gives the local array a leading axis", () => {
    const k = tag(makeKernel("{[i,k]: 0<=i<4 and 0<=k<8}", "out[i] = sum(k, a[i,k]) {id=insn}", ["a: float32[4,8]", "..."]), { i: "l.1", k: "l.0" });
    const p = preprocess(k);
    expect(temps(p)).toEqual(["acc_k: float32[4,8] local"]);
    expect(insns(p).at(-1)).toBe("insn: out[i] = acc_k[i, 0] [i] <- insn_k_stage2");
  });

  it("a reduction over a g iname needs a global barrier", () => {
    const k = tag(makeKernel("{[i,k]: 0<=i<n and 0<=k<n}", "out[i] = sum(k, a[i,k]) {id=insn}", ["a: float32[n,n]", "..."]), { k: "g.0" });
    expect(scheduleError(() => preprocess(k))).toMatch(/instruction "insn": reduction over iname "k" tagged g\.0 needs a global barrier/);
  });

  it("reductions over unr and ilp inames are sequential", () => {
    for (const t of ["unr", "ilp", "ilp.seq"]) {
      const k = tag(makeKernel("{[i,k]: 0<=i<n and 0<=k<4}", "out[i] = sum(k, a[i,k]) {id=insn}", ["a: float32[n,4]", "..."]), { k: t });
      expect(insns(preprocess(k))[1]).toBe("insn_k_update: acc_k = acc_k + a[i, k] [i,k] <- insn_k_init");
    }
  });
});

describe("ilp privatization (realize_ilp)", () => {
  it("a private temporary written in an ilp loop gets an axis of the ilp extent", () => {
    const k = tag(makeKernel("{[i,j]: 0<=i<n and 0<=j<4}", ["<float32> t = a[i,j] {id=w}", "out[i,j] = 2*t {id=r, dep=w}"], ["a: float32[n,4]", "..."]), { j: "ilp" });
    const p = preprocess(k);
    expect(temps(p)).toEqual(["t: float32[4] private"]);
    expect(insns(p)).toEqual(["w: t[j] = a[i, j] [i,j] <- ", "r: out[i, j] = 2*t[j] [i,j] <- w"]);
  });

  it("an accumulator inside an ilp loop is privatized too", () => {
    const k = tag(makeKernel("{[i,j,k]: 0<=i<n and 2<=j<6 and 0<=k<n}", "out[i,j] = sum(k, a[i,j,k]) {id=s}", ["a: float32[n,6,n]", "..."]), { j: "ilp.seq" });
    const p = preprocess(k);
    expect(temps(p)).toEqual(["acc_k: float32[4] private"]);
    expect(insns(p)).toEqual([
      "s_k_init: acc_k[j - 2] = 0 [i,j] <- ",
      "s_k_update: acc_k[j - 2] = acc_k[j - 2] + a[i, j, k] [i,j,k] <- s_k_init",
      "s: out[i, j] = acc_k[j - 2] [i,j] <- s_k_update",
    ]);
  });
});

describe("address spaces of auto temporaries", () => {
  const k = makeKernel("{[i,j]: 0<=i<16 and 0<=j<16}", [
    "<> tl[j] = a[i,j] {id=wl}", "<> tg[i] = a[i,0] {id=wg}", "<> tp = a[i,j] {id=wp}", "out[i,j] = tl[j] + tg[i] + tp {dep=wl:wg:wp}",
  ], ["a: float32[16,16]", "..."]);
  it("l-indexed: local, g-indexed: global, else private", () => {
    const p = preprocess(tag(k, { i: "g.0", j: "l.0" }));
    expect(temps(p)).toEqual(["tl: float32[16] local", "tg: float32[16] global", "tp: float32[] private"]);
  });
  it("without hardware tags everything is private", () => {
    expect(preprocess(k).temporaries.map((t) => t.addressSpace)).toEqual(["private", "private", "private"]);
  });
});

describe("l.auto", () => {
  it("takes the lowest local axis its instructions leave free", () => {
    const k = makeKernel("{[i,j,m]: 0<=i,j<16 and 0<=m<8}", ["out[i,j] = 1 {id=a}", "o2[m] = 2 {id=b}"], ["out: float32[16,16]", "o2: float32[8]"]);
    const p = preprocess(tag(k, { i: "l.0", j: "l.auto", m: "l.auto" }));
    expect(p.inameTags.j).toEqual({ kind: "l", axis: 1 });
    expect(p.inameTags.m).toEqual({ kind: "l", axis: 0 });
  });
  it("takes a parametric size, and one bounded by an outer iname (the maximum over it); refuses one computed in the kernel", () => {
    const k = tag(makeKernel("{[i]: 0<=i<n}", "out[i] = 1 {id=a}", ["out: float32[n]", "..."]), { i: "l.auto" });
    expect(preprocess(k).inameTags.i).toEqual({ kind: "l", axis: 0 });
    const k2 = tag(makeKernel("{[i,j]: 0<=i<n and 0<=j<i}", "out[i,j] = 1 {id=a}", ["out: float32[n,n]", "..."]), { j: "l.auto" });
    expect(preprocess(k2).inameTags.j).toEqual({ kind: "l", axis: 0 });
    const k3 = tag(makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<r}"], ["<int32> r = i {id=len}", "out[i,j] = 1 {id=a, dep=len}"], ["out: float32[n,n]", "..."]), { j: "l.auto" });
    expect(scheduleError(() => preprocess(k3))).toMatch(/instruction "a": iname "j" is tagged l.auto, but its extent depends on "r", computed inside the kernel/);
  });
  it("fails when every local axis is taken", () => {
    const k = makeKernel("{[i,j,m,q]: 0<=i,j,m,q<2}", "out[i,j,m,q] = 1 {id=a}", ["out: float32[2,2,2,2]"]);
    expect(scheduleError(() => preprocess(tag(k, { i: "l.0", j: "l.1", m: "l.2", q: "l.auto" })))).toMatch(/instruction "a": iname "q" .* every local axis/);
  });
});

describe("tag checks", () => {
  const k2 = makeKernel("{[i,j]: 0<=i,j<16}", "out[i,j] = 1 {id=a}", ["out: float32[16,16]"]);
  it("two inames on one hardware axis", () => {
    expect(scheduleError(() => preprocess(tag(k2, { i: "l.0", j: "l.0" })))).toBe(
      'instruction "a" uses inames "i" and "j", both tagged l.0; a hardware axis can carry one iname per instruction');
  });
  it("an l iname of parametric extent is accepted, and one bounded by another iname; one without a bound in the parameters is not", () => {
    const k = tag(makeKernel("{[i]: 0<=i<n}", "out[i] = 1 {id=a}", ["out: float32[n]", "..."]), { i: "l.0" });
    expect(() => preprocess(k)).not.toThrow();
    const k2 = tag(makeKernel("{[i,j]: 0<=i<n and 0<=j<=i}", "out[i,j] = 1 {id=a}", ["out: float32[n,n]", "..."]), { j: "l.0" });
    expect(() => preprocess(k2)).not.toThrow();
    const k3 = tag(makeKernel("{[i,j]: 0<=i and 0<=j<=i}", "out[j] = 1 {id=a}", ["out: float32[100]", "..."]), { j: "l.0" });
    expect(scheduleError(() => preprocess(k3))).toMatch(/^instruction "a": iname "j" is tagged l\.0, but its range has no bound in the kernel's parameters/);
  });
  it("a tree reduction over a parametric l iname needs a constant extent", () => {
    const k = tag(makeKernel("{[i]: 0<=i<n}", "out[0] = sum(i, a[i]) {id=a}", ["out: float32[1]", "a: float32[n]", "..."]), { i: "l.0" });
    expect(scheduleError(() => preprocess(k))).toMatch(/iname "i" is tagged l\.0 and its extent depends on the kernel's parameters; the tree reduction over "i" .* needs a compile-time constant extent/);
  });
  it("an l iname whose extent is constant under the assumptions", () => {
    const k = tag(makeKernel("{[i]: 0<=i<n}", "out[i] = 1 {id=a}", ["out: float32[n]", "..."], { assumptions: "n = 32" }), { i: "l.0" });
    expect(() => preprocess(k)).not.toThrow();
  });
  it("an l iname of a tile: constant size whatever the offset", () => {
    const k = tag(makeKernel(["{[o]: 0<=o<n}", "{[i]: 16*o<=i<16*o+16}"], "out[i] = 1 {id=a}", ["out: float32[16*n]", "..."]), { o: "g.0", i: "l.0" });
    expect(() => preprocess(k)).not.toThrow();
  });
  it("unr without a constant trip count", () => {
    const k = tag(makeKernel("{[i]: 0<=i<n}", "out[i] = 1 {id=a}", ["out: float32[n]", "..."]), { i: "unr" });
    expect(scheduleError(() => preprocess(k))).toMatch(/^instruction "a": iname "i" is tagged unr, but its trip count is not a compile-time constant/);
  });
  it("ilp that is not innermost", () => {
    const k = tag(makeKernel(["{[i]: 0<=i<4}", "{[j]: 0<=j<=i}"], "out[i,j] = 1 {id=a}", ["out: float32[4,4]"]), { i: "ilp" });
    expect(scheduleError(() => preprocess(k))).toBe(
      'instruction "a": iname "i" is tagged ilp, so it must be innermost, but sequential iname "j" nests inside it (the bounds of "j" use "i")');
    const byPriority = withKernel(tag(k2, { i: "ilp" }), { loopPriority: [["i", "j"]] });
    expect(scheduleError(() => preprocess(byPriority))).toMatch(/"i" is tagged ilp, so it must be innermost, but sequential iname "j" nests inside it \(a loop priority/);
  });
  it("vec that is not innermost (vec is ilp's rule: an innermost loop)", () => {
    expect(() => preprocess(tag(k2, { j: "vec" }))).not.toThrow();
    const byPriority = withKernel(tag(k2, { i: "vec" }), { loopPriority: [["i", "j"]] });
    expect(scheduleError(() => preprocess(byPriority))).toMatch(/"i" is tagged vec, so it must be innermost, but sequential iname "j" nests inside it \(a loop priority/);
  });
});
