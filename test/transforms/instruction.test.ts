/**
 * Instruction transformations (loopy/transform/instruction.py, add_barrier.py). Laws: on chains
 * of writes whose order matters, addDependency (without a cycle), removeInstructions of nops and
 * setInstructionPriority keep the meaning; removing instructions keeps the transitive order of
 * those that remain.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { TransformError } from "../../src/errors.js";
import { insnToString, type Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { tagInames } from "../../transforms/index.js";
import { addBarrier, addDependency, removeInstructions, setInstructionPriority } from "../../transforms/instruction.js";

const RUNS = { numRuns: Number(process.env.LOOM_PROPERTY_RUNS ?? 100) };

const deps = (k: Kernel) => Object.fromEntries(k.instructions.map((i) => [i.id, [...i.dependsOn]]));

/** Ids each instruction depends on, transitively. */
function closure(k: Kernel): Map<string, Set<string>> {
  const direct = new Map(k.instructions.map((i) => [i.id, i.dependsOn]));
  const out = new Map<string, Set<string>>();
  const go = (id: string): Set<string> => {
    const known = out.get(id);
    if (known) return known;
    const s = new Set<string>();
    out.set(id, s);
    for (const d of direct.get(id) ?? []) { s.add(d); for (const x of go(d)) s.add(x); }
    return s;
  };
  for (const i of k.instructions) go(i.id);
  return out;
}

async function sameMeaning(k: Kernel, t: Kernel, n: number): Promise<void> {
  const r = await autoTestVsRef(k, t, { params: { n }, seed: n });
  if (!r.ok) throw new Error(`not equivalent for n=${n}: ${r.mismatches.slice(0, 3).join("; ")}`);
}

const k = makeKernel("{[i]: 0<=i<n}", [
  "x[i] = a[i] {id=first}",
  "... nop {id=gather, dep=first}",
  "x[i] = 2*x[i] + 1 {id=second, dep=gather}",
  "y[i] = 3*a[i] {id=side}",
], ["a, x, y: float64[n]", "n: int32"]);

describe("addDependency", () => {
  it("adds the selected dependencies, once, in order", () => {
    const t = addDependency(k, "id:side", "id:first or id:second");
    expect(deps(t).side).toEqual(["first", "second"]);
    expect(deps(addDependency(t, ["side"], ["first"])).side).toEqual(["first", "second"]);
  });
  it("never makes an instruction depend on itself", () => {
    expect(deps(addDependency(k, "*", "id:side"))).toEqual({ first: ["side"], gather: ["first", "side"], second: ["gather", "side"], side: [] });
  });
  it("refuses a cycle, naming it", () => {
    expect(() => addDependency(k, "id:first", "id:second")).toThrow(/cycle first -> second -> gather -> first/);
  });
  it("names a match that selects nothing, and the instructions there are", () => {
    expect(() => addDependency(k, "id:nope", "id:first")).toThrow(/insnMatch "id:nope" selects no instruction.*first, gather, second, side/);
    expect(() => addDependency(k, "id:side", ["nope"])).toThrow(TransformError);
    expect(() => addDependency(k, "id:side", "id:(")).toThrow(/dependsOn match expression 1:4/);
  });
  it("leaves the input untouched", () => {
    const before = JSON.stringify(k);
    addDependency(k, "id:side", "id:first");
    expect(JSON.stringify(k)).toBe(before);
  });
});

describe("removeInstructions", () => {
  it("passes dependencies through what is removed", () => {
    const t = removeInstructions(k, "id:gather");
    expect(t.instructions.map((i) => i.id)).toEqual(["first", "second", "side"]);
    expect(deps(t).second).toEqual(["first"]);
  });
  it("transitively, through chains of removed instructions, and drops nosync entries", () => {
    const k2 = makeKernel("{[i]: 0<=i<n}", [
      "x[i] = a[i] {id=w0}", "... nop {id=n0, dep=w0}", "... nop {id=n1, dep=n0}",
      "y[i] = 2*a[i] {id=w1, dep=n1, nosync=n0}",
    ], ["a, x, y: float64[n]", "n: int32"]);
    const t = removeInstructions(k2, ["n0", "n1"]);
    expect(t.instructions.map(insnToString)).toEqual(["x[i] = a[i]  {id=w0}", "y[i] = 2*a[i]  {id=w1, dep=w0}"]);
  });
  it("refuses a match that selects nothing", () => {
    expect(() => removeInstructions(k, "tag:none")).toThrow(/removeInstructions: match "tag:none" selects no instruction/);
  });
});

describe("setInstructionPriority", () => {
  it("sets the priority of the selected instructions", () => {
    const t = setInstructionPriority(k, "writes:x", 5);
    expect(t.instructions.map((i) => i.priority)).toEqual([5, 0, 5, 0]);
  });
  it("wants an integer", () => {
    expect(() => setInstructionPriority(k, "*", 1.5)).toThrow(/priority must be an integer; got 1.5/);
  });
});

describe("addBarrier", () => {
  const k2 = tagInames(makeKernel("{[i]: 0<=i<16}", ["<> t[i] = 2*a[i] {id=fill}", "out[i] = t[15-i] {id=use}"], ["a, out: float64[16]"]), { i: "l.0" });

  it("inserts a barrier the after group waits for, which waits for the before group", async () => {
    const t = addBarrier(k2, "writes:t", "reads:t", "local");
    expect(t.instructions.map(insnToString)).toEqual([
      "t[i] = 2*a[i]  {id=fill}", "... lbarrier  {id=l_barrier, dep=fill}", "out[i] = t[15 - i]  {id=use, dep=fill:l_barrier}",
    ]);
    const a = Float64Array.from({ length: 16 }, (_, i) => i);
    expect(Array.from((await run(t, { a })).out as Float64Array)).toEqual(Array.from({ length: 16 }, (_, i) => 2 * (15 - i)));
  });
  it("makes ids unique and lives in the sequential loops both groups share", () => {
    const k3 = makeKernel("{[i,j]: 0<=i,j<n}", ["x[i,j] = a[i,j] {id=p}", "y[i,j] = x[i,j] {id=q}"], ["a, x, y: float64[n,n]", "n: int32"]);
    const t = addBarrier(addBarrier(k3, "id:p", "id:q", "global"), "id:p", "id:q", "global");
    expect(t.instructions.filter((i) => i.kind === "barrier").map((b) => [b.id, b.withinInames.join(",")]).sort()).toEqual([["g_barrier", "i,j"], ["g_barrier_0", "i,j"]]);
    const u = addBarrier(tagInames(k3, { j: "l.0" }), "id:p", "id:q", "local", { id: "sync" });
    expect(u.instructions.find((i) => i.id === "sync")!.withinInames).toEqual(["i"]);
  });
  it("refuses bad scopes, clashing ids, overlapping groups", () => {
    expect(() => addBarrier(k2, "id:fill", "id:use", "group" as "local")).toThrow(/scope must be "local" or "global"/);
    expect(() => addBarrier(k2, "id:fill", "id:use", "local", { id: "use" })).toThrow(/id "use" is already an instruction/);
    expect(() => addBarrier(k2, "*", "id:use", "local")).toThrow(/use are selected both before and after/);
    expect(() => addBarrier(k2, "id:fill", "id:use", "local", { withinInames: ["q"] })).toThrow(/"q" are not inames/);
  });
});

// ---- properties ----------------------------------------------------------------------------

/**
 * A chain of writes to x whose order matters (x = a, then x = c*x + d, …), with nops between
 * them, listed in `order` (a permutation): only the dependencies say which runs first.
 */
function chain(coeffs: readonly number[], nops: readonly number[], order: readonly number[]): Kernel {
  const insns: string[] = ["x[i] = a[i] {id=w0}", "y[i] = 3*a[i] + 1 {id=side}"];
  let prev = "w0";
  coeffs.forEach((cf, idx) => {
    for (let m = 0; m < (nops[idx] ?? 0); m++) {
      const id = `n${idx}_${m}`;
      insns.push(`... nop {id=${id}, dep=${prev}}`);
      prev = id;
    }
    insns.push(`x[i] = ${cf}*x[i] + ${idx + 1} {id=w${idx + 1}, dep=${prev}}`);
    prev = `w${idx + 1}`;
  });
  const listed = [...insns.keys()].sort((p, q) => (order[p % order.length] ?? 0) - (order[q % order.length] ?? 0) || p - q).map((p) => insns[p]!);
  return makeKernel("{[i]: 0<=i<n}", listed, ["a, x, y: float64[n]", "n: int32"]);
}

const chainArb = fc.tuple(
  fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 1, maxLength: 4 }),
  fc.array(fc.nat({ max: 2 }), { minLength: 4, maxLength: 4 }),
  fc.array(fc.nat({ max: 20 }), { minLength: 1, maxLength: 12 }),
).map(([cf, nops, order]) => chain(cf, nops, order));

describe("law: removing nops keeps the meaning and the transitive order of what remains", () => {
  it("for random chains and random sets of nops", async () => {
    await fc.assert(fc.asyncProperty(chainArb, fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 5 }), async (k0, pick, n) => {
      const nops = k0.instructions.filter((i) => i.kind === "nop").map((i) => i.id);
      const chosen = nops.filter((_, idx) => pick[idx % pick.length]);
      if (chosen.length === 0) return true;
      const t = removeInstructions(k0, chosen);
      const [before, after] = [closure(k0), closure(t)];
      for (const insn of t.instructions) {
        expect([...after.get(insn.id)!].sort()).toEqual([...before.get(insn.id)!].filter((d) => !chosen.includes(d)).sort());
      }
      await sameMeaning(k0, t, n);
      return true;
    }), RUNS);
  });
});

describe("law: addDependency keeps the meaning unless it would make a cycle", () => {
  it("for random pairs in random chains", async () => {
    await fc.assert(fc.asyncProperty(chainArb, fc.nat(), fc.nat(), fc.boolean(), fc.integer({ min: 1, max: 5 }), async (k0, p, q, asText, n) => {
      const ids = k0.instructions.map((i) => i.id);
      const [a, b] = [ids[p % ids.length]!, ids[q % ids.length]!];
      if (a !== b && closure(k0).get(b)!.has(a)) {
        expect(() => addDependency(k0, asText ? `id:${a}` : [a], asText ? `id:${b}` : [b])).toThrow(/cycle/);
        return true;
      }
      const t = addDependency(k0, asText ? `id:${a}` : [a], asText ? `id:${b}` : [b]);
      if (a !== b) expect(t.instructions.find((i) => i.id === a)!.dependsOn).toContain(b);
      await sameMeaning(k0, t, n);
      return true;
    }), RUNS);
  });
});

describe("law: priorities do not change the meaning", () => {
  it("for random chains and priorities", async () => {
    await fc.assert(fc.asyncProperty(chainArb, fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 5 }), async (k0, prios, n) => {
      let t = k0;
      k0.instructions.forEach((insn, idx) => { t = setInstructionPriority(t, [insn.id], prios[idx % prios.length]!); });
      expect(t.instructions.map((i) => i.priority)).toEqual(k0.instructions.map((_, idx) => prios[idx % prios.length]));
      await sameMeaning(k0, t, n);
      return true;
    }), RUNS);
  });
});
