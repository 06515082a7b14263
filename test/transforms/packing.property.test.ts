/**
 * Law (issue 18B): every packing pipeline (test/transforms/gen-packing.ts: BLIS-style blocking,
 * panels of a and/or b packed into private or global temporaries at the block loops or inside the
 * reduction over k blocks, micro-tiles of ilp / ilp.seq / unr / plain lanes, partial blocks) keeps
 * the meaning of the matmul: autoTestVsRef is ok on interp and js for many random pipelines, and
 * on c, openmp and opencl (those available here) for a few, the BLIS-shaped one always first.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { autoTestVsRef } from "../../src/run/index.js";
import { availableNative } from "../run/native-helpers.js";
import { BLIS_SPEC, packingCase, packingSpec, type PackingCase, type PackingSpec } from "./gen-packing.js";

const RUNS = Number(process.env.LOOM_PACKING_RUNS ?? 14);
const NATIVE_RUNS = Number(process.env.LOOM_PACKING_NATIVE_RUNS ?? 1);

async function holds(c: PackingCase, backends: readonly string[]): Promise<void> {
  for (const backend of backends) {
    const r = await autoTestVsRef(c.ref, c.transformed, { params: c.params, backend: backend as never, seed: 3 });
    expect(r.ok, `${backend}: ${r.mismatches.slice(0, 3).join("; ")}\n  spec ${JSON.stringify(c.spec)}\n  pipeline ${JSON.stringify(c.json)}`).toBe(true);
  }
}

const caseOf = (s: PackingSpec) => packingCase(s);

describe("packing pipelines keep the meaning of the matmul", () => {
  it(`on interp and js (${RUNS} random pipelines and the BLIS-shaped one)`, async () => {
    let packedOutside = 0;
    await fc.assert(fc.asyncProperty(packingSpec, async (s) => {
      const c = caseOf(s);
      // The point of packing: with the outer inames given, the update form's store runs outside
      // the micro-tile loops (within the block loops only).
      if (s.form === "update" && s.explicitOuter) {
        const store = c.transformed.instructions.find((i) => i.id === `${s.pack[0]}_fetch_rule`)!;
        expect(store.withinInames.filter((n) => n.endsWith("_mid") || n.endsWith("_r"))).toEqual([]);
        packedOutside++;
      }
      await holds(c, ["interp", "js"]);
    }), { numRuns: RUNS, seed: Number(process.env.LOOM_PACKING_SEED ?? 1818), examples: [[BLIS_SPEC]] });
    expect(packedOutside).toBeGreaterThan(0);
  });

  const natives = availableNative(["c", "openmp", "opencl"]);
  it.skipIf(natives.length === 0)(`on ${natives.join(", ") || "no native backend (none available here)"} (${NATIVE_RUNS} random pipelines and the BLIS-shaped one)`, async () => {
    await fc.assert(fc.asyncProperty(packingSpec, async (s) => holds(caseOf(s), natives)),
      { numRuns: NATIVE_RUNS, seed: Number(process.env.LOOM_PACKING_SEED ?? 1818) + 1, examples: [[BLIS_SPEC]] });
  }, 120_000 * (1 + NATIVE_RUNS));
});
