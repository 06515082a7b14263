/**
 * Seen once sampling genCase filtered to vec cases (reproduced with seed 11, 30 runs): a
 * ScheduleError "vec lanes race on a_fetch" thrown out of the generator itself. The kernel is
 * stencil1d, the moves a split of `i` by 3 with a vec inner part, then a prefetch of `a` into
 * local memory sweeping nothing: every vec lane stores its own `a[a_dim_0 + 3*i_outer + i_inner - 1]`
 * into the one shared `a_fetch[a_dim_0]`, a real race (the serial kernel fetches per lane). The
 * refusal is right; addPrefetch accepted it (its store-race check counted ilp lanes, not vec:
 * transforms/fetch-races.ts; it now counts vec lanes too and refuses it itself), and the
 * generator, which only schedules the scheduled families, let the scheduler's refusal escape.
 * It now drops such a move and counts it.
 */
import { describe, expect, it } from "vitest";
import { TransformError } from "../../src/errors.js";
import { makeKernel } from "../../src/parse/index.js";
import { addPrefetch, splitIname } from "../../transforms/index.js";
import { applyPipeline, toJSON } from "../../transforms/pipeline.js";
import { GEN_STATS, buildPipeline, type Move } from "./gen-kernels.js";

const source = () => makeKernel("{[i]: 1<=i<n-1}", "out[i] = a[i-1] - 2*a[i] + a[i+1]", ["a, out: float64[n]", "n: int32"], { name: "stencil1d" });
const split: Move = { family: "split", pick: 953, factor: 3, tagOuter: false, tagInner: "vec", viaOpts: true, order: [123, 490] };
const prefetch: Move = { family: "prefetch", pick: 166, factor: 3, tagOuter: false, tagInner: "g", viaOpts: false, order: [759, 870, 400] };
const RACE = /a_fetch.*(lanes are parallel and would race|write race across the iname\(s\) i_inner)/;

describe("random-pipeline generator: vec lanes racing on a local fetch", () => {
  it("addPrefetch itself refuses it: a TransformError naming the race on a_fetch across the vec lanes", () => {
    const steps = [{ op: "splitIname", args: ["i", 3, { innerTag: "vec" }] }, { op: "addPrefetch", args: ["a", { temporaryAddressSpace: "local" }] }];
    const split3 = splitIname(source(), "i", 3, { innerTag: "vec" });
    expect(() => addPrefetch(split3, "a", { temporaryAddressSpace: "local" })).toThrow(TransformError);
    expect(() => addPrefetch(split3, "a", { temporaryAddressSpace: "local" }))
      .toThrow(/addPrefetch: temporary "a_fetch" cannot be made local because a write race across the iname\(s\) i_inner would emerge/);
    expect(() => applyPipeline(source(), steps)).toThrow(RACE);
    // Private storage (one copy per lane) is no race.
    expect(addPrefetch(split3, "a", { temporaryAddressSpace: "private" }).temporaries.map((t) => t.name)).toEqual(["a_fetch"]);
  });

  it("buildPipeline drops the prefetch move and counts it as a refusal instead of throwing", () => {
    const before = { refused: GEN_STATS.refused, sched: GEN_STATS.schedRefused };
    const built = buildPipeline(source(), [split, prefetch], { scheduled: false });
    expect(toJSON(built.pipeline)).toEqual([{ op: "splitIname", args: ["i", 3, { innerTag: "vec" }] }]);
    expect(built.transformed.temporaries).toEqual([]);
    expect(GEN_STATS.refused + GEN_STATS.schedRefused).toBe(before.refused + before.sched + 1);
  });
});
