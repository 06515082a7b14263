import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * The folders whose test files run in shared module instances (isolate: false): each worker loads
 * the library once instead of once per file, which halves those folders' time (module loading was
 * about half of the suite's CPU: 316 s of 620). Their tests use no mocks, environment variables or
 * other global state, and must keep it so; a file that does (vi.mock, a patched prototype, a native
 * device) belongs in ISOLATED.
 */
const SHARED = ["okl", "transforms", "codegen", "schedule", "parse", "poly", "ir", "analysis"].map((d) => `test/${d}/**/*.test.ts`);
/**
 * Files in SHARED's folders that need a fresh module graph: statistics-interp mocks the
 * interpreter; the others read module-level counters (memo hits, routes taken, poly answers),
 * which memos warmed by an earlier file in the same worker would change.
 */
const ISOLATED = [
  "test/analysis/statistics-interp.test.ts",
  "test/codegen/context-factor.test.ts",
  "test/codegen/generate-memo.test.ts",
  "test/codegen/lower-cross-variant.test.ts",
  "test/ir/domain-memo.test.ts",
  "test/poly/counts.test.ts",
  "test/poly/intern-creation.test.ts",
  "test/poly/intern.test.ts",
  "test/poly/intersect-side-by-side.test.ts",
  "test/poly/memo-budget.test.ts",
  "test/poly/shift-dims.test.ts",
  "test/schedule/hw-axis-chain-witness.test.ts",
  "test/schedule/linearize-memo.test.ts",
  "test/schedule/local-range-rows.test.ts",
  "test/schedule/local-ranges-owner.test.ts",
  "test/schedule/scale.test.ts",
  "test/transforms/fetch-context.test.ts",
  "test/transforms/fetch-domain-memo.test.ts",
  "test/transforms/fetch-local-sizes.test.ts",
  "test/transforms/fetch-tags-alone.test.ts",
  "test/transforms/fetch-tile-memo.test.ts",
  "test/transforms/fetch-tile.test.ts",
  "test/transforms/split-by-construction.test.ts",
  "test/transforms/step-memo.test.ts",
];

export default defineConfig({
  test: {
    // The npm package test packs and installs the package from the registry (about two minutes):
    // its own command, `npm run test:package`, which .ci/run runs after the suite.
    exclude: ["test/package.test.ts", "**/node_modules/**"],
    // A budget, not a speed check: toolchain tests (gcc, nvcc, PoCL) wait on compilers, and a loaded
    // machine (two suites side by side, load 15+) stretches them past 60 s.
    testTimeout: 120_000,
    pool: "threads",
    // Two workers at least: vitest's default (one fewer than the cores) is one on a 2-core machine,
    // where much of a test file's time is spent waiting for gcc, nvcc, PoCL or a child process; two
    // overlap that (the suite took 616 s with one worker and 404 s with two, on 2 cores, idle).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    setupFiles: ["test/setup-fast-check.ts"],
    projects: [
      { extends: true, test: { name: "shared", include: SHARED, exclude: [...ISOLATED, "**/node_modules/**"], isolate: false } },
      { extends: true, test: { name: "isolated", include: ["test/**/*.test.ts"], exclude: [...SHARED, "test/package.test.ts", "**/node_modules/**"] } },
      { extends: true, test: { name: "isolated-in-shared-folders", include: ISOLATED } },
    ],
  },
});
