/**
 * Law (the random-pipeline law of test/transforms/random-pipeline.property.test.ts, on the cucl
 * target): for random kernels k and legal random pipelines p, p(k)'s cucl code after CUCL's OpenCL
 * prelude, launched 1-D on PoCL, writes what the interpreter computes for p(k) on the same inputs
 * (and the interpreter agrees with k there: the law of that file). Multi-dimensional g/l axes,
 * local prefetches, barriers and host loops all go through the linearized ids; and so for a few
 * kernels with a barrier inside a loop and a loop bounded by the local id after it
 * (random-pipeline-barrier-loops.ts), whose loops cucl's OpenCL form makes uniform. Skipped with the
 * reason where OpenCL is unavailable.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { LoomError } from "../../src/errors.js";
import { backendAvailability, run } from "../../src/run/index.js";
import { nativeBackends } from "../../src/run/native.js";
import { genCase, type Case } from "../transforms/gen-kernels.js";
import { genBarrierLoopCase, hasUniformLoopShape } from "../transforms/random-pipeline-barrier-loops.js";
import { randomArgs, sameOutputs } from "./hip-cucl-kernels.js";

const RUNS = Number(process.env.LOOM_CUCL_LAW_RUNS ?? 8);
/** Cases of PoCL's uniform-loop class (random-pipeline-barrier-loops.ts), each a PoCL build: few. */
const BARRIER_LOOP_RUNS = Number(process.env.LOOM_BARRIER_LOOP_RUNS ?? 3);
const opencl = backendAvailability("opencl");
if (!opencl.available) console.warn(`[skip] the cucl law: OpenCL is not available here: ${opencl.reason}`);

const stats = { checked: 0, multiAxis: 0, refused: [] as string[] };

/** The hardware axes `c`'s transformed kernel uses (the cases this law is about: the 1-D launch and its linearized ids). */
const hwAxes = (c: Case): number[] => Object.values(c.transformed.inameTags).flatMap((t) => (t.kind === "g" || t.kind === "l" ? [t.axis] : []));

async function lawHolds(c: Case): Promise<void> {
  const k = c.transformed;
  const args = randomArgs(k, c.params, 11);
  const want = await run(k, args);
  let got;
  try {
    got = (await nativeBackends.cucl(k, args, {})).outputs;
  } catch (e) {
    // What the native runtimes refuse before running (bounds not provable, int32 index range) is
    // refused on opencl alike: not the cucl target's doing.
    if (!(e instanceof LoomError)) throw e;
    const onOpencl = await run(k, args, { backend: "opencl" }).then(() => undefined, (x: unknown) => x);
    expect(onOpencl, `cucl refused what opencl runs: ${(e as Error).message}\n  kernel ${JSON.stringify(c.source)}\n  pipeline ${JSON.stringify(c.json)}`).toBeInstanceOf(LoomError);
    stats.refused.push(e.constructor.name);
    return;
  }
  expect(sameOutputs(got, want), `kernel ${JSON.stringify(c.source)}\n  params ${JSON.stringify(c.params)}\n  pipeline ${JSON.stringify(c.json)}`).toBeUndefined();
  stats.checked++;
  if (hwAxes(c).some((axis) => axis > 0)) stats.multiAxis++;
}

describe.skipIf(!opencl.available)("random pipelines: cucl on PoCL computes what the interpreter does", () => {
  afterAll(() => console.log(`cucl law: ${stats.checked} checked (all with g/l axes, ${stats.multiAxis} with a second or third axis), refused before running on opencl too: ${JSON.stringify(stats.refused)}`));

  it(`cucl(p(k)) = interp(p(k)) (${RUNS} cases)`, async () => {
    // Only pipelines that tag g/l axes (a third of them): the others run one work-item, as on opencl.
    await fc.assert(fc.asyncProperty(genCase.filter((c) => hwAxes(c).length > 0), lawHolds), { numRuns: RUNS, seed: Number(process.env.LOOM_CUCL_LAW_SEED ?? 20261129) });
    expect(stats.checked).toBeGreaterThanOrEqual(Math.ceil(RUNS / 2));
    expect(stats.multiAxis).toBeGreaterThanOrEqual(Math.ceil(RUNS / 8));
  }, 300_000);

  it(`a barrier in a loop and a loop bounded by the local id after it: cucl(p(k)) = interp(p(k)) (${BARRIER_LOOP_RUNS} cases)`, async () => {
    // cucl's OpenCL form runs such loops over work-group-uniform bounds, as the opencl target (PoCL 3.1 segfaulted on the varying ones).
    const before = stats.checked;
    let shaped = 0;
    await fc.assert(fc.asyncProperty(genBarrierLoopCase, async (c) => {
      if (hasUniformLoopShape(c.transformed)) shaped++;
      await lawHolds(c);
    }), { numRuns: BARRIER_LOOP_RUNS, seed: Number(process.env.LOOM_CUCL_LAW_SEED ?? 20261129) });
    expect(stats.checked - before).toBeGreaterThanOrEqual(Math.ceil(BARRIER_LOOP_RUNS / 2));
    expect(shaped).toBeGreaterThanOrEqual(Math.ceil(BARRIER_LOOP_RUNS / 2));
  }, 120_000 * BARRIER_LOOP_RUNS);
});
