import { defineConfig } from "vitest/config";

/** `npm run test:package`: the npm package, packed and installed into a new project (test/package.test.ts). */
export default defineConfig({
  test: {
    include: ["test/package.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 900_000,
  },
});
