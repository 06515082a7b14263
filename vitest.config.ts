import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The npm package test packs and installs the package from the registry (about two minutes):
    // its own command, `npm run test:package`, which .ci/run runs after the suite.
    exclude: ["test/package.test.ts", "**/node_modules/**"],
    testTimeout: 60_000,
    pool: "threads",
    setupFiles: ["test/setup-fast-check.ts"],
  },
});
