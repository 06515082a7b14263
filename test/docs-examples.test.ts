/**
 * The TypeScript examples of the user documentation run as written, the way a user runs them:
 * each page's blocks in order, saved as one file in the clone and run with `npx tsx` (importing the
 * built package as `loom-kernels`); what their comments promise is checked on the output.
 * (README.md: test/readme.test.ts; docs/tuning.md, tuning-strategies.md and statistics.md have
 * tests of their own beside the code they show.)
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(root, ".readme-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runPage(page: string): string {
  const text = readFileSync(join(root, "docs", page), "utf8");
  const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks.length).toBeGreaterThan(0);
  expect(existsSync(join(root, "dist/src/index.js")), "dist/ is missing: npm install (or npm run build) makes it").toBe(true);
  const file = join(dir, page.replace(/\.md$/, ".ts"));
  writeFileSync(file, blocks.join("\n"));
  const r = spawnSync(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), file], { cwd: root, encoding: "utf8", timeout: 240_000 });
  expect(r.stderr, r.stderr).toBe("");
  expect(r.status).toBe(0);
  return r.stdout;
}

describe("docs examples run as written", () => {
  it("occa.md", () => {
    const out = runPage("occa.md");
    expect(out).toMatch(/^true$/m);
    expect(out).toMatch(/__global__ void .*_occa_addVectors_0\(/);
  }, 250_000);
});
