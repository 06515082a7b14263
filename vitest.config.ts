import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
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
  },
});
