/** lowerForCpu: hardware axes become loops, phases split at barriers, barrier-crossing values privatized. */
import { describe, expect, it } from "vitest";
import { exprToString, findTemporary, iterationDomain, type Assignment, type Expr, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { affEval, containsPoint, dimBounds } from "../../src/poly/index.js";
import { lowerForCpu, schedule, type Schedule, type ScheduleNode } from "../../src/schedule/index.js";
import { tag, text, tiledMatmul } from "./schedule-kernels.js";

describe("lowerForCpu", () => {
  it("without barriers the work-item loops enclose the whole body, l.0 innermost, inside the group loops", () => {
    const k = tag(makeKernel("{[io,ii]: 0<=ii<16 and 0<=16*io+ii<n}", "out[16*io+ii] = 2*a[16*io+ii] {id=w}"), { io: "g.0", ii: "l.0" });
    const s = lowerForCpu(schedule(k));
    const dk = s.deviceKernels[0]!;
    expect(text(dk.body)).toBe("io{ii{w}}");
    expect(dk.groupAxes).toEqual([]);
    expect(dk.localAxes).toEqual([]);
    expect(s.kernel.inameTags.io).toBeUndefined();
  });

  it("the tiled matmul: phases split at barriers inside k_outer, the accumulator gets one slot per work-item", () => {
    const s = lowerForCpu(schedule(tiledMatmul()));
    const dk = s.deviceKernels[0]!;
    expect(text(dk.body)).toBe("jo{io{ii{ji{init}} ko{ii{ji{fetch}} ii{ji{ki{compute}}}} ii{ji{store}}}}");
    expect(JSON.stringify(dk.body)).not.toContain("barrier");
    const acc = findTemporary(s.kernel, "acc")!;
    expect(acc.shape.map(exprToString)).toEqual(["16", "16"]);
    const byId = (id: string) => s.kernel.instructions.find((x) => x.id === id) as Assignment;
    expect(exprToString(byId("init").lhs)).toBe("acc[ii, ji]");
    expect(exprToString(byId("compute").rhs)).toBe("acc[ii, ji] + a_fetch[ii, ki]*b[16*ko + ki, 16*jo + ji]");
    expect(exprToString(byId("store").rhs)).toBe("acc[ii, ji]");
    // The local prefetch stays one per group.
    expect(findTemporary(s.kernel, "a_fetch")!.shape.map(exprToString)).toEqual(["16", "16"]);
  });

  it("a private value used within one phase stays a scalar", () => {
    const k = tag(makeKernel("{[i]: 0<=i<16}", ["<float32> t = a[i] {id=w}", "out[i] = t {id=r, dep=w}"]), { i: "l.0" });
    const s = lowerForCpu(schedule(k));
    expect(findTemporary(s.kernel, "t")!.shape).toEqual([]);
  });
});

/**
 * A tiny sequential evaluator of a lowered schedule (no hardware axes): loops run over their
 * iname's bounds given the enclosing loops, instructions where their domain and predicates hold.
 * Arrays are maps from the joined indices; enough for integer kernels of + - * // < max min.
 */
function evaluate(s: Schedule, params: Record<string, number>, arrays: Record<string, Map<string, number>>): void {
  const k: Kernel = s.kernel;
  const ev = (e: Expr, env: Record<string, number>): number => {
    switch (e.kind) {
      case "const": return e.value;
      case "var": {
        const x = env[e.name] ?? arrays[e.name]?.get("");
        if (x === undefined) throw new Error(`no value for ${e.name}`);
        return x;
      }
      case "subscript": {
        const x = arrays[e.array]?.get(e.indices.map((i) => ev(i, env)).join(","));
        if (x === undefined) throw new Error(`read of unset ${exprToString(e)} at ${JSON.stringify(env)}`);
        return x;
      }
      case "arith": {
        const [a, b] = [ev(e.left, env), ev(e.right, env)];
        return e.op === "+" ? a + b : e.op === "-" ? a - b : e.op === "*" ? a * b : e.op === "//" ? Math.floor(a / b) : NaN;
      }
      case "neg": return -ev(e.operand, env);
      case "compare": {
        const [a, b] = [ev(e.left, env), ev(e.right, env)];
        return Number(e.op === "<" ? a < b : e.op === "<=" ? a <= b : e.op === ">" ? a > b : e.op === ">=" ? a >= b : e.op === "==" ? a === b : a !== b);
      }
      case "call": {
        const xs = e.args.map((x) => ev(x, env));
        return e.fn === "max" ? Math.max(...xs) : e.fn === "min" ? Math.min(...xs) : NaN;
      }
      default: throw new Error(`evaluate: ${e.kind}`);
    }
  };
  const walk = (nodes: readonly ScheduleNode[], env: Record<string, number>, loops: string[]): void => {
    for (const n of nodes) {
      if (n.kind === "barrier") throw new Error("a barrier in a lowered schedule");
      if (n.kind === "loop") {
        const b = dimBounds(iterationDomain(k, [...loops, n.iname]), n.iname, loops);
        const at = { ...params, ...env };
        const lo = Math.max(...b.lower.map((q) => Math.ceil(affEval(q.aff, at) / q.denom)));
        const hi = Math.min(...b.upper.map((q) => Math.floor(affEval(q.aff, at) / q.denom)));
        for (let x = lo; x <= hi; x++) walk(n.body, { ...env, [n.iname]: x }, [...loops, n.iname]);
        continue;
      }
      const insn = k.instructions.find((x) => x.id === n.id) as Assignment;
      for (const i of insn.withinInames) if (!loops.includes(i)) throw new Error(`${insn.id} runs within ${i}, not a loop around it`);
      const dom = iterationDomain(k, insn.withinInames);
      if (!containsPoint(dom, { ...params, ...env })) continue;
      if (!insn.predicates.every((p) => ev(p, { ...params, ...env }) !== 0)) continue;
      const value = ev(insn.rhs, { ...params, ...env }) + 0; // no -0
      const lhs = insn.lhs;
      if (lhs.kind === "var") (arrays[lhs.name] ??= new Map()).set("", value);
      else if (lhs.kind === "subscript") (arrays[lhs.array] ??= new Map()).set(lhs.indices.map((i) => ev(i, { ...params, ...env })).join(","), value);
      else throw new Error("evaluate: flat store");
    }
  };
  for (const dk of s.deviceKernels) walk(dk.body, {}, []);
}

describe("lowerForCpu: several inames on one axis", () => {
  const reduction = (size: number, op = "sum") =>
    tag(makeKernel(`{[i,k]: 0<=i<n and 0<=k<${size}}`, `out[i] = ${op}(k, a[i,k]) {id=s}`, [`a: int32[n, ${size}]`, "out: int32[n]", "n: int32"]),
      { i: "g.0", k: "l.0" });

  it("a local tree reduction: one loop per axis, the stages' inames replaced by the axis's loop iname", () => {
    const s0 = schedule(reduction(16));
    expect(s0.deviceKernels[0]!.localAxes.map((a) => a.iname)).toEqual(["k"]);
    const s = lowerForCpu(s0);
    const dk = s.deviceKernels[0]!;
    expect(dk.groupAxes).toEqual([]);
    expect(dk.localAxes).toEqual([]);
    expect(text(dk.body)).toBe("i{k{s_k_transfer} k{s_k_stage0} k{s_k_stage1} k{s_k_stage2} k{s_k_stage3} k{s}}");
    const stage0 = s.kernel.instructions.find((x) => x.id === "s_k_stage0") as Assignment;
    expect(stage0.withinInames).toEqual(["i", "k"]);
    expect(exprToString(stage0.lhs)).toBe("acc_k[k]");
    expect(exprToString(stage0.rhs)).toBe("acc_k[k] + acc_k[k + 8]");
    expect(stage0.predicates.map(exprToString)).toEqual(["k < 8"]);
    expect(JSON.stringify(s.kernel.instructions)).not.toMatch(/red_k_s/);
    expect(Object.values(s.kernel.inameTags).filter((t) => t.kind === "l" || t.kind === "g")).toEqual([]);
  });

  for (const [size, op] of [[16, "sum"], [12, "sum"], [5, "max"], [1, "sum"]] as const) {
    it(`the lowered schedule computes ${op} over ${size} work-items`, () => {
      const n = 3;
      const a = new Map<string, number>();
      for (let i = 0; i < n; i++) for (let k = 0; k < size; k++) a.set(`${i},${k}`, ((i * size + k) * 7919) % 23 - 11);
      const out = new Map<string, number>();
      evaluate(lowerForCpu(schedule(reduction(size, op))), { n }, { a, out });
      for (let i = 0; i < n; i++) {
        const row = Array.from({ length: size }, (_, k) => a.get(`${i},${k}`)!);
        expect(out.get(`${i}`)).toBe(op === "sum" ? row.reduce((x, y) => x + y, 0) : Math.max(...row));
      }
    });
  }

  it("a reduction over part of the axis: the neutral-element init runs on the whole axis, the transfer keeps its guard", () => {
    // k < m: the transfer is guarded by k's domain; the init over the fresh iname covers every work-item.
    const k = tag(makeKernel(["{[i]: 0<=i<n}", "{[k]: 0<=k<8 and k<m}"], "out[i] = sum(k, a[i,k]) {id=s}", ["a: int32[n, 8]", "out: int32[n]", "n, m: int32"]),
      { i: "g.0", k: "l.0" });
    const s = lowerForCpu(schedule(k));
    // Init and transfer touch the same cell from the same work-item (both index by the l.0 id):
    // no barrier between them, as in loopy, so they share a phase.
    expect(text(s.deviceKernels[0]!.body)).toMatch(/^i\{(\w+)\{s_k_init s_k_transfer\}/);
    const n = 2;
    for (const m of [0, 3, 8, 11]) {
      const a = new Map<string, number>();
      for (let i = 0; i < n; i++) for (let x = 0; x < 8; x++) a.set(`${i},${x}`, i * 10 + x);
      const out = new Map<string, number>();
      evaluate(s, { n, m }, { a, out });
      for (let i = 0; i < n; i++) {
        let want = 0;
        for (let x = 0; x < Math.min(8, m); x++) want += i * 10 + x;
        expect(out.get(`${i}`)).toBe(want);
      }
    }
  });

  it("no iname covers the whole axis: a fresh loop iname over the box, every instruction guarded by its own domain", () => {
    const k = tag(makeKernel(["{[i]: 0<=i<8 and i<m}", "{[j]: 0<=j<8 and j<p}"], ["x[i] = i {id=wx}", "y[j] = 2*j {id=wy}"],
      ["x, y: int32[8]", "m, p: int32"]), { i: "l.0", j: "l.0" });
    const s = lowerForCpu(schedule(k));
    expect(text(s.deviceKernels[0]!.body)).toMatch(/^(i_l0)\{(wx wy|wy wx)\}$/);
    for (const [m, p] of [[3, 5], [8, 0], [11, 2]] as const) {
      const x = new Map<string, number>(), y = new Map<string, number>();
      evaluate(s, { m, p }, { x, y });
      expect([...x.keys()].map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: Math.min(8, m) }, (_, q) => q));
      expect([...y.entries()].sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(Array.from({ length: Math.min(8, p) }, (_, q) => [`${q}`, 2 * q]));
    }
  });

  it("two group inames on one axis share its loop", () => {
    const k = tag(makeKernel(["{[i]: 0<=i<n}", "{[j]: 0<=j<n}"], ["x[i] = i {id=wx}", "y[j] = 2*j {id=wy}"], ["x, y: int32[n]", "n: int32"]),
      { i: "g.0", j: "g.0" });
    const s = lowerForCpu(schedule(k));
    expect(text(s.deviceKernels[0]!.body)).toMatch(/^i\{(wx wy|wy wx)\}$/);
    const x = new Map<string, number>(), y = new Map<string, number>();
    evaluate(s, { n: 4 }, { x, y });
    expect([...y.values()]).toEqual([0, 2, 4, 6]);
  });

  it("the tiled matmul and the single-iname axes keep their inames", () => {
    const s = lowerForCpu(schedule(tiledMatmul()));
    expect(text(s.deviceKernels[0]!.body)).toContain("ko{ii{ji{fetch}} ii{ji{ki{compute}}}}");
  });
});
