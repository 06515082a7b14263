/**
 * The tiled-matmul sweep on the native backends (openmp, opencl on PoCL): every variant is checked
 * against the interpreter, an ok best is found, and its pipeline replays to the same kernel.
 * Skipped, with the reason, where the backend is not available.
 */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { matmul, tiled, TILE_SPACE } from "./helpers.js";

describe.each(["openmp", "opencl"] as const)("autotune on %s", (backend) => {
  const avail = lp.backendAvailability(backend);
  it.skipIf(!avail.available)(`finds an ok best variant of the tiled matmul${avail.available ? "" : ` (skipped: ${avail.reason})`}`, async () => {
    const { best, records } = await lp.autotune(matmul(), {
      space: TILE_SPACE, build: (_k, p) => tiled(p), params: { n: 24 }, backend, repeats: 2,
      strategy: "random", seed: 1, budget: { variants: 6 },
    });
    expect(records).toHaveLength(6);
    expect(records.every((r) => r.ok), JSON.stringify(records.filter((r) => !r.ok).map((r) => r.error))).toBe(true);
    expect(best.backend).toBe(backend);
    expect(best.medianMs).toBe(Math.min(...records.map((r) => r.medianMs)));
    if (backend === "openmp") expect(best.compiler).toMatch(/fopenmp|cc|gcc/);
    expect(lp.applyPipeline(matmul(), best.pipeline)).toEqual(tiled(best.point)(matmul()));
  }, 120_000);

  it.skipIf(avail.available)("refuses the sweep with a LoomError where the backend is not available", async () => {
    await expect(lp.autotune(matmul(), { space: TILE_SPACE, build: (_k, p) => tiled(p), params: { n: 8 }, backend }))
      .rejects.toThrow(lp.LoomError);
  });
});
