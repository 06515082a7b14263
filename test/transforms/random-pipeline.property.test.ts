/**
 * Law: for every random kernel k and every legal random pipeline p (splits with any factor, chunks,
 * g/l/unr/ilp tags, loop priorities, tiles, joins, renames, prefetches, array layouts),
 * autoTestVsRef(k, p(k)) is ok on the interpreter and on the js backend. A counterexample prints
 * the kernel's source and the (shrunk) pipeline as JSON, ready for fromJSON / applyPipeline.
 */
import { afterAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { autoTestVsRef } from "../../src/run/index.js";
import { applyPipeline, toJSON } from "../../transforms/pipeline.js";
import { GEN_STATS, MOVE_FAMILIES, genCase, type Case } from "./gen-kernels.js";

const RUNS = Number(process.env.LOOM_PIPELINE_RUNS ?? 320);

async function lawHolds(c: Case): Promise<void> {
  const json = JSON.stringify(c.json);
  for (const backend of ["interp", "js"] as const) {
    const r = await autoTestVsRef(c.kernel, c.transformed, { params: c.params, backend, seed: 7 });
    expect(r.ok, `${backend}: ${r.mismatches.slice(0, 3).join("; ")}\n  kernel ${JSON.stringify(c.source)}\n  params ${JSON.stringify(c.params)}\n  pipeline ${json}`).toBe(true);
  }
}

describe("random pipelines preserve the meaning of random kernels", () => {
  afterAll(() => {
    const share = GEN_STATS.moves === 0 ? 0 : (GEN_STATS.refused / GEN_STATS.moves) * 100;
    const notApplicable = GEN_STATS.moves === 0 ? 0 : (GEN_STATS.illegal / GEN_STATS.moves) * 100;
    console.log(`random pipelines: families ${MOVE_FAMILIES.join(", ")}; ${GEN_STATS.moves} moves, ${share.toFixed(1)}% refused by a TransformError (filtered), ${notApplicable.toFixed(1)}% not applicable; by family ${JSON.stringify(GEN_STATS.byFamily)}`);
  });

  it(`autoTestVsRef(k, p(k)) is ok on interp and js (${RUNS} cases)`, async () => {
    await fc.assert(fc.asyncProperty(genCase, lawHolds), { numRuns: RUNS, seed: Number(process.env.LOOM_PIPELINE_SEED ?? 20240531) });
  });

  it("every generated pipeline replays exactly from its JSON", () => {
    fc.assert(fc.property(genCase, (c) => {
      expect(toJSON(c.pipeline)).toEqual(c.json);
      expect(JSON.stringify(applyPipeline(c.kernel, JSON.parse(JSON.stringify(c.json))))).toBe(JSON.stringify(c.transformed));
    }), { numRuns: 60 });
  });
});
