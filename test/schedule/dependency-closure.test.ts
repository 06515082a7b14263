/** The dependency closure barrier placement asks about: the same answers as a plain walk. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Instruction } from "../../src/ir/index.js";
import { DependencyClosure } from "../../src/schedule/barrier-accesses.js";
import { reaches } from "./schedule-kernels.js";

describe("DependencyClosure", () => {
  it("answers dependsOn as a walk does, cycles, unknown ids and sinks included", () => {
    const ids = ["a", "b", "c", "d", "e", "f"];
    const graph = fc.array(fc.tuple(fc.constantFrom(...ids), fc.array(fc.constantFrom(...ids, "ghost"), { maxLength: 3 })), { maxLength: 6 });
    fc.assert(fc.property(graph, fc.array(fc.tuple(fc.constantFrom(...ids, "ghost"), fc.constantFrom(...ids, "ghost")), { minLength: 1, maxLength: 12 }), (edges, asks) => {
      const insns = new Map<string, Instruction>();
      for (const [id, dependsOn] of edges) insns.set(id, { id, dependsOn } as unknown as Instruction);
      const closure = new DependencyClosure(insns);
      for (const [t, s] of asks) expect([t, s, closure.dependsOn(t, s)]).toEqual([t, s, reaches(insns, t, s)]);
    }), { numRuns: 300 });
  });
});
