/**
 * The pending accesses' index (barrier-pending.ts): for every later access, the candidates it
 * returns are, in pending order and each once, every pending access a barrier could be needed for
 * (a plain quadratic scan with a breadth-first dependency walk, below) and only accesses of the
 * same variable that the memory rule pairs: so barrier placement looks at fewer pairs and places
 * the same barriers.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { WRITE_RACE_OK, type Instruction } from "../../src/ir/index.js";
import { makeElementKernel } from "../../bench/scale.js";
import { generateCode } from "../../codegen/index.js";
import { DependencyClosure, type Access } from "../../src/schedule/barrier-accesses.js";
import { Pending } from "../../src/schedule/barrier-pending.js";
import { barrierPairChecks, insertBarriers } from "../../src/schedule/barriers.js";
import { SCHEDULE_PASSES, runPasses } from "../../src/schedule/index.js";
import { LoomError } from "../../src/errors.js";
import { makeKernel, temporary } from "../../src/parse/index.js";
import { splitIname } from "../../transforms/index.js";
import { reaches, tag } from "./schedule-kernels.js";

const IDS = ["a", "b", "c", "d", "e", "f", "g"];

const shared = (x: readonly string[], y: readonly string[]) => x.some((g) => y.includes(g));

/** Reference: whether a barrier could be needed for `earlier` (pending) before `later`, by scanning: barriers.ts's rules. */
function mayNeed(insns: ReadonlyMap<string, Instruction>, earlier: Access, later: Access, global: boolean, reverse: boolean): boolean {
  const raceOk = (a: Access) => a.insn.tags.includes(WRITE_RACE_OK);
  if (earlier.name !== later.name || (!earlier.write && !later.write) || (global && raceOk(earlier) && raceOk(later))) return false;
  if (!reverse && !earlier.source) return false;
  const [source, target] = reverse ? [later.insn, earlier.insn] : [earlier.insn, later.insn];
  return reaches(insns, target.id, source.id) || shared(source.groups, target.conflictsWithGroups) || shared(target.groups, source.conflictsWithGroups);
}

/** Whether `e` pairs with `later` by memory alone (what a candidate must satisfy). */
function memoryPartner(e: Access, later: Access, global: boolean): boolean {
  const raceOk = (a: Access) => a.insn.tags.includes(WRITE_RACE_OK);
  return e.name === later.name && (e.write || later.write) && !(global && raceOk(e) && raceOk(later));
}

const insnArb = fc.record({
  dependsOn: fc.array(fc.constantFrom(...IDS, "ghost"), { maxLength: 3 }),
  groups: fc.array(fc.constantFrom("p", "q"), { maxLength: 1 }),
  conflictsWithGroups: fc.array(fc.constantFrom("p", "q"), { maxLength: 1 }),
  raceOk: fc.boolean(),
});
const accessArb = fc.record({ insn: fc.nat(IDS.length - 1), name: fc.constantFrom("x", "y"), write: fc.boolean() });

describe("Pending.candidates", () => {
  it("holds every pending access a barrier could be needed for, in pending order, once, and only memory partners", () => {
    fc.assert(fc.property(
      fc.array(insnArb, { minLength: IDS.length, maxLength: IDS.length }),
      fc.array(accessArb, { maxLength: 14 }),
      fc.array(accessArb, { minLength: 1, maxLength: 5 }),
      fc.constantFrom(0, 1, 2, 64),
      fc.boolean(),
      (shapes, pendingSpec, laterSpec, narrow, global) => {
        const insns = new Map<string, Instruction>();
        shapes.forEach((s, x) => insns.set(IDS[x]!, {
          id: IDS[x]!, dependsOn: s.dependsOn, groups: s.groups, conflictsWithGroups: s.conflictsWithGroups, tags: s.raceOk ? [WRITE_RACE_OK] : [],
        } as unknown as Instruction));
        const deps = new DependencyClosure(insns, narrow);
        // As barriers.ts's canBeSource: only an instruction something depends on, or with groups, is a source.
        const dependedOn = new Set([...insns.values()].flatMap((i) => i.dependsOn));
        const access = (s: { insn: number; name: string; write: boolean }): Access => {
          const insn = insns.get(IDS[s.insn]!)!;
          const source = dependedOn.has(insn.id) || insn.groups.length > 0 || insn.conflictsWithGroups.length > 0;
          return { insn, name: s.name, write: s.write, indices: [], source };
        };
        const list = pendingSpec.map(access);
        // Added in two steps, one access twice: a set union in order.
        const pending = new Pending(deps, list.slice(0, 5)).add(list).add(list.slice(0, 1));
        expect(pending.list).toEqual([...new Set(list)]);
        for (const later of laterSpec.map(access)) {
          for (const reverse of later.source ? [false, true] : [false]) {
            const got = pending.candidates(later, global, reverse);
            const at = got.map((e) => pending.list.indexOf(e));
            expect(at.every((p, x) => p >= 0 && (x === 0 || p > at[x - 1]!))).toBe(true);
            expect(got.every((e) => memoryPartner(e, later, global))).toBe(true);
            const needed = pending.list.filter((e) => mayNeed(insns, e, later, global, reverse));
            for (const e of needed) expect(got).toContain(e);
          }
        }
      }), { numRuns: 200 });
  });

  it("leaves out the earlier stores of an unrolled kernel whose only dependent is a barrier after them", () => {
    const insns = new Map<string, Instruction>();
    const store = (id: string): Instruction => ({ id, dependsOn: [], groups: [], conflictsWithGroups: [], tags: [] }) as unknown as Instruction;
    const ids = Array.from({ length: 200 }, (_, x) => `store${x}`);
    for (const id of ids) insns.set(id, store(id));
    insns.set("gb", { ...store("gb"), dependsOn: ids });
    const pending = new Pending(new DependencyClosure(insns));
    let looked = 0;
    for (const id of ids) {
      const a: Access = { insn: insns.get(id)!, name: "out", write: true, indices: [], source: true };
      looked += pending.candidates(a, true, false).length + pending.candidates(a, true, true).length;
      pending.add([a]);
    }
    expect(looked).toBe(0);
    // The barrier's own access (were it one) would find all 200.
    const gb: Access = { insn: insns.get("gb")!, name: "out", write: false, indices: [], source: false };
    expect(pending.candidates(gb, true, false)).toHaveLength(200);
  });
});

describe("barrier placement in an unrolled kernel with a global barrier after its stores", () => {
  it("looks at a number of pairs that does not grow with the stores, and still splits at the barrier", () => {
    const pairs = (n: number) => {
      const k = splitIname(makeElementKernel(n, true), "e", 4, { outerTag: "g.0", innerTag: "l.0" });
      const before = barrierPairChecks.count;
      const code = generateCode(k, "opencl").deviceCode;
      return { pairs: barrierPairChecks.count - before, code };
    };
    const small = pairs(60);
    const large = pairs(240);
    // 12 and 48 stores to `out`, each depended on by the global barrier only: pairing each with
    // every earlier one (and loop-carried, every other) would be sixteen times as many.
    expect(large.pairs).toBeLessThanOrEqual(2 * Math.max(1, small.pairs));
    for (const { code } of [small, large]) {
      expect(code.match(/__kernel void/g)).toHaveLength(2);
      expect(code).not.toContain("barrier(");
    }
  });
});

/** One random statement: a store to a local or global array from reads of them, inside some of the loops j, k. */
const stmtArb = fc.record({
  target: fc.constantFrom("s", "u", "g"),
  at: fc.constantFrom("i", "(i + 1) % 8", "7 - i"),
  reads: fc.array(fc.tuple(fc.constantFrom("s", "u", "g", "h"), fc.constantFrom("i", "(i + 3) % 8", "7 - i", "0")), { minLength: 1, maxLength: 2 }),
  loops: fc.subarray(["j", "k"]),
  deps: fc.array(fc.nat(8), { maxLength: 2 }),
  lbarrier: fc.boolean(),
});

describe("barrier placement with the pending index and one walk of loops after nothing pending", () => {
  it("places the barriers the plain route places (every pending access looked at, every loop body walked twice)", () => {
    let placed = 0;
    fc.assert(fc.property(fc.array(stmtArb, { minLength: 2, maxLength: 7 }), (stmts) => {
      const lines: string[] = [];
      stmts.forEach((st, n) => {
        const deps = [...new Set(st.deps.filter((d) => d < n).map((d) => `x${d}`))];
        const rhs = [...st.reads.map(([a, x]) => `${a}[${x}]`), ...st.loops].join(" + ");
        // An explicit barrier now and then (only where every work-item reaches it: outside the loops).
        if (st.lbarrier && n > 0 && st.loops.length === 0) lines.push(`... lbarrier {id=lb${n}, dep=x${n - 1}}`);
        lines.push(`${st.target}[${st.at}] = ${rhs} {id=x${n}${deps.length > 0 ? `, dep=${deps.join(":")}` : ""}}`);
      });
      let state;
      try {
        const k = tag(makeKernel("{[i, j, k]: 0 <= i < 8 and 0 <= j < 3 and 0 <= k < 3}", lines, [
          temporary("s", "float32", [8], "local"), temporary("u", "float32", [8], "local"), "g: float32[8]", "h: float32[8]",
        ], { name: "random_barriers" }), { i: "l.0" });
        state = runPasses(k, SCHEDULE_PASSES.slice(0, 3));
      } catch (e) {
        // Refused before barrier placement (a write race, a dependency cycle): nothing to compare.
        if (e instanceof LoomError) return;
        throw e;
      }
      const fast = insertBarriers(state.kernel, state.nodes!);
      expect(fast).toEqual(insertBarriers(state.kernel, state.nodes!, { plain: true }));
      if (JSON.stringify(fast.nodes).includes('"barrier"')) placed++;
    }), { numRuns: 80 });
    // Not vacuous: barriers were placed.
    expect(placed).toBeGreaterThan(6);
  });
});
