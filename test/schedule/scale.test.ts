/**
 * Scheduling at scale (issues 20, 21): the passes that once compared every pair of instructions
 * (linearization's pick, barrier placement, privatization's barrier-crossing test) are indexed.
 * No timing here: the indexed pick against a reference list scheduler on random dependency graphs,
 * the touched-names index against a walk per name, and the number of access pairs barrier
 * placement looks at, which must grow with the kernel, not with its square.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCode, parseOkl } from "../../src/index.js";
import { c, insnExprs, mapExpr, withKernel, type Expr, type Instruction, type Kernel, type Temporary } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { barrierPairChecks } from "../../src/schedule/barriers.js";
import { privatize, privatizeAll, touchedNames, touches } from "../../src/schedule/cpu-privatize.js";
import { linearize, schedule, type HwAxis, type ScheduleNode } from "../../src/schedule/index.js";
import { clearPolyMemos, polyWork } from "../../src/poly/index.js";

/** The instruction ids of a schedule in order, loops flattened. */
function ids(nodes: readonly ScheduleNode[]): string[] {
  return nodes.flatMap((n) => (n.kind === "insn" ? [n.id] : n.kind === "loop" ? ids(n.body) : []));
}

/** A random dependency graph: `deps[j]` are indices below `j`; `order` is the text order of the instructions. */
const graphs = fc.integer({ min: 1, max: 14 }).chain((n) =>
  fc.record({
    deps: fc.tuple(...Array.from({ length: n }, (_, j) => fc.uniqueArray(fc.nat({ max: Math.max(0, j - 1) }), { maxLength: j > 0 ? 3 : 0 }))),
    priority: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: n, maxLength: n }),
    order: fc.shuffledSubarray(Array.from({ length: n }, (_, j) => j), { minLength: n, maxLength: n }),
    inLoop: fc.boolean(),
  }));

/** The reference: run, one at a time, the ready instruction of highest priority, the first in the text among equals. */
function listSchedule(insns: readonly Instruction[]): string[] {
  const done = new Set<string>();
  const out: string[] = [];
  while (out.length < insns.length) {
    let best: Instruction | undefined;
    for (const x of insns) {
      if (done.has(x.id) || !x.dependsOn.every((d) => done.has(d))) continue;
      if (!best || x.priority > best.priority) best = x;
    }
    done.add(best!.id);
    out.push(best!.id);
  }
  return out;
}

describe("linearization's pick of the next instruction", () => {
  it("is the reference list scheduler's, in a loop or outside any", () => {
    fc.assert(fc.property(graphs, ({ deps, priority, order, inLoop }) => {
      const lines = order.map((j) => {
        const dep = deps[j]!.length > 0 ? `, dep=${deps[j]!.map((d) => `s${d}`).join(":")}` : "";
        return `o${j}[${inLoop ? "i" : "0"}] = ${j} {id=s${j}${dep}, priority=${priority[j]}}`;
      });
      const k = makeKernel("{[i]: 0<=i<n}", lines);
      expect(ids(linearize(k))).toEqual(listSchedule(k.instructions));
    }), { numRuns: 150 });
  });
});

/** `touches` as it was: a walk of the instruction's expressions per name. */
function touchesByWalk(insn: Instruction, name: string): boolean {
  let found = false;
  const look = (e: Expr) => mapExpr(e, (n) => {
    if ((n.kind === "var" && n.name === name) || ((n.kind === "subscript" || n.kind === "linear") && n.array === name)) found = true;
    return found ? n : undefined;
  });
  insnExprs(insn).forEach(look);
  return found;
}

describe("the names an instruction touches", () => {
  it("are those a walk per name finds", () => {
    const k = makeKernel("{[i,j]: 0<=i<n and 0<=j<m}", [
      "<> t = a[i, j] * s {id=w}",
      "out[i] = sum(j, t * b[[i*m + j]]) {id=r, dep=w}",
      "c[i, j] = if(i > j, t, 0) {id=c, dep=w}",
    ]);
    const names = ["t", "a", "s", "out", "b", "c", "i", "j", "m", "n", "x"];
    for (const insn of k.instructions) {
      for (const name of names) expect(touches(insn, name), `${insn.id} ${name}`).toBe(touchesByWalk(insn, name));
      expect([...touchedNames(insn)].every((name) => touchesByWalk(insn, name))).toBe(true);
    }
  });
});

/** `k` with array arguments `names` made private temporaries (makeKernel declares none by a flat index). */
function asTemporaries(k: Kernel, names: readonly string[]): Kernel {
  const made = k.args.filter((a) => names.includes(a.name)).map((a): Temporary =>
    ({ name: a.name, dtype: a.dtype, shape: a.kind === "array" ? a.shape ?? [] : [], addressSpace: "private", order: "C", dimTags: undefined }));
  return withKernel(k, { args: k.args.filter((a) => !names.includes(a.name)), temporaries: [...k.temporaries, ...made] });
}

describe("privatizing barrier-crossing temporaries in one pass", () => {
  const k = asTemporaries(makeKernel("{[i,j]: 0<=i<16 and 0<=j<4}", [
    "<> a = x[i] {id=wa}",
    "<> b = 2*a {id=wb, dep=wa}",
    "q[j] = a*j {id=wq, dep=wa}",
    "y[i] = a + b + q[b] {id=use, dep=wb:wq}",
    "<> f = 1 {id=wf}",
    "z[i] = f {id=uf, dep=wf}",
    "p[[0]] = a {id=wp, dep=wa}",
  ], ["x: float64[16]", "y: float64[16]", "z: float64[16]", "q: float64[4]", "p: float64[1]"]), ["q", "p"]);
  const axes: HwAxis[] = [{ iname: "i", tag: "l", axis: 0, base: c(0), size: c(16) }];
  const temps = (names: readonly string[]) => names.map((n) => k.temporaries.find((t) => t.name === n)!);

  it("is privatizing them one at a time, whatever the order", () => {
    for (const names of [["a", "b", "q"], ["q", "a"], ["b"], ["f", "a", "q", "b"]]) {
      const oneByOne = names.reduce((acc, n) => privatize(acc, acc.temporaries.find((t) => t.name === n)!, axes), k);
      const once = privatizeAll(k, temps(names), axes);
      expect(String(once), names.join(",")).toBe(String(oneByOne));
      expect(once.temporaries.filter((t) => names.includes(t.name)).every((t) => t.shape.length === (t.name === "q" ? 2 : 1))).toBe(true);
      expect(once.instructions).toEqual(oneByOne.instructions);
      expect(once.temporaries).toEqual(oneByOne.temporaries);
    }
  });

  it("refuses the first temporary one at a time would refuse, with its error", () => {
    expect(() => privatizeAll(k, temps(["a", "p", "b"]), axes)).toThrow(/"p" lives across a barrier and is accessed by a flat index/);
    const tagged = withKernel(k, { temporaries: k.temporaries.map((t) => (t.name === "b" ? { ...t, dimTags: [] } : t)) });
    const tt = (names: readonly string[]) => names.map((n) => tagged.temporaries.find((t) => t.name === n)!);
    expect(() => privatizeAll(tagged, tt(["b", "p"]), axes)).toThrow(/"b" lives across a barrier and has explicit axis tags/);
    expect(() => privatizeAll(tagged, tt(["p", "b"]), axes)).toThrow(/"p" lives across a barrier and is accessed by a flat index/);
  });
});

/** An element-local assembly kernel as bench/okl-scale.ts makes them: `n` chained statements in one @inner loop after a @shared fetch. */
function assembly(n: number): string {
  const body: string[] = [];
  for (let q = 0; q < n; q++) {
    const prev = q === 0 ? "r_G00" : `t${q - 1}`;
    body.push(`      const dfloat t${q} = r_G00 * s_D[${q % 16} * 16 + n] + ${prev} * r_G11;`);
    if (q % 4 === 3) body.push(`      A[(e * 16 + n) * 64 + ${(q >> 2) % 64}] += t${q} - t${q - 2};`);
  }
  return `#define dfloat double
@kernel void assemble(const int Nelements, @restrict const dfloat *ggeo, @restrict const dfloat *D, @restrict dfloat *A) {
  for (int e = 0; e < Nelements; ++e; @outer) {
    @shared dfloat s_D[256];
    @exclusive dfloat r_G00, r_G11;
    for (int n = 0; n < 16; ++n; @inner) {
      for (int m = 0; m < 16; ++m) s_D[m * 16 + n] = D[m * 16 + n];
      r_G00 = ggeo[2 * (e * 16 + n) + 0];
      r_G11 = ggeo[2 * (e * 16 + n) + 1];
    }
    for (int n = 0; n < 16; ++n; @inner) {
${body.join("\n")}
    }
  }
}
`;
}

/** The pairs of accesses barrier placement looks at while generating C for `assembly(n)`, and the code. */
function pairsFor(n: number): { pairs: number; code: string } {
  const k = parseOkl(assembly(n))[0]!;
  const before = barrierPairChecks.count;
  const code = generateCode(k, "c").deviceCode;
  return { pairs: barrierPairChecks.count - before, code };
}

describe("barrier placement at scale", () => {
  it("looks at a number of access pairs linear in the kernel's statements, and still places the barrier", () => {
    const small = pairsFor(40);
    const large = pairsFor(160);
    // Four times the statements: about four times the pairs (every pair would be sixteen times;
    // the pending index finds none to look at).
    expect(large.pairs).toBeLessThanOrEqual(5 * Math.max(1, small.pairs));
    // The @shared fetch and its readers are still two phases (one work-item loop each), and the
    // @exclusive values crossing between them get one slot per work-item.
    for (const { code } of [small, large]) {
      expect(code.match(/for \(int n = 0; n <= 15; \+\+n\)/g)).toHaveLength(2);
      expect(code).toContain("double r_G00[16];");
    }
  });
});

/**
 * bench/scale.ts's `make` kernel: a chain of private temporaries over (e, n), every fourth one
 * stored to global `out` (a store nothing depends on), `e` split into g.0 / l.0; with `barrier`,
 * a store that reads what another work-item's earlier one wrote (one barrier between them).
 */
function unrolledStores(n: number, barrier: boolean): Kernel {
  const lines: string[] = [];
  let stores = 0;
  for (let q = 0; lines.length < n; q++) {
    lines.push(`<> t${q} = g[e, n, 1] * d[${q % 16}, n] + ${q === 0 ? "g[e, n, 0]" : `t${q - 1}`} * w`);
    if (q % 4 === 3) lines.push(`out[e, n, ${stores++}] = t${q} - t${q - 2}`);
  }
  if (barrier) lines.push("s[e, n] = g[e, n, 0] {id=put}", "out[e, n, 0] = s[e, (n + 1) % 16] {id=get, dep=put}");
  const k = makeKernel("{[e, n]: 0 <= e < nel and 0 <= n < 16}", lines.join("\n"), [
    "g: float64[nel, 16, 3]", "d: float64[16, 16]", `out: float64[nel, 16, ${stores}]`, "w: float64", "nel: int32",
    "s: float64[nel, 16]", "...",
  ], { name: "element", assumptions: "nel >= 1" });
  return withKernel(k, { inameTags: { ...k.inameTags, e: { kind: "g", axis: 0 }, n: { kind: "l", axis: 0 } } });
}

describe("barrier placement over stores nothing depends on", () => {
  it("does not pair them (a store can be no dependency's source), and still places the barrier a dependency needs", () => {
    const pairs = (k: Kernel) => {
      const before = barrierPairChecks.count;
      const code = generateCode(k, "opencl").deviceCode;
      return { pairs: barrierPairChecks.count - before, code };
    };
    const small = pairs(unrolledStores(40, true));
    const large = pairs(unrolledStores(160, true));
    // 32 and 128 stores to one variable: every pair of them would be 16 times as many.
    expect(large.pairs).toBeLessThanOrEqual(5 * Math.max(1, small.pairs));
    for (const { code } of [small, large]) expect(code.match(/barrier\(CLK_(LOCAL|GLOBAL)_MEM_FENCE/g) ?? []).toHaveLength(1);
    expect(pairs(unrolledStores(40, false)).code).not.toContain("barrier(");
  });
});

/** Whether `x` and everything reachable from it is frozen. */
function deepFrozen(x: unknown, seen = new Set<unknown>()): boolean {
  if (x === null || typeof x !== "object" || seen.has(x)) return true;
  seen.add(x);
  if (!Object.isFrozen(x)) return false;
  return Object.values(x as Record<string, unknown>).every((v) => deepFrozen(v, seen));
}

describe("the CPU lowering of a big element kernel", () => {
  // Two @inner loops on one axis (shared: the second's iname becomes the first's) and @exclusive
  // values crossing the barrier (privatized): both rewrite nearly every statement, in one kernel.
  it("is one frozen kernel with the axis shared and the crossing values privatized", () => {
    const k = parseOkl(assembly(24))[0]!;
    const s = schedule(k, { cpu: true });
    expect(deepFrozen(s.kernel)).toBe(true);
    const within = new Set(s.kernel.instructions.map((i) => i.withinInames.join(",")));
    expect([...within].some((w) => w.split(",").includes("n_0"))).toBe(false);
    for (const name of ["r_G00", "r_G11"]) expect(s.kernel.temporaries.find((t) => t.name === name)!.shape).toHaveLength(1);
    const readers = s.kernel.instructions.filter((i) => touches(i, "r_G11"));
    expect(readers.length).toBeGreaterThan(24);
    expect(readers.every((i) => i.withinInames.includes("n"))).toBe(true);
  });
});

describe("code generation's poly work at scale", () => {
  // Statements share their domains: the questions asked of the poly layer (bounds, gists,
  // projections) are the same whatever the number of statements.
  it("does not grow with the number of statements", () => {
    const work = (n: number, target: "c" | "opencl") => {
      const k = parseOkl(assembly(n))[0]!;
      clearPolyMemos();
      const before = polyWork();
      generateCode(k, target);
      return polyWork() - before;
    };
    for (const target of ["c", "opencl"] as const) {
      // Answers remembered per object (not emptied with the memos) come from a first kernel.
      work(16, target);
      const small = work(20, target);
      expect(small).toBeGreaterThan(0);
      expect(work(80, target), target).toBe(small);
    }
  });
});
