/**
 * The README's code runs exactly as written, as a user who follows it runs it: the TypeScript
 * blocks, in order, saved as one file in the clone and run with `npx tsx`, importing the package by
 * its name (`loom-kernels`, resolved by Node's self-reference to the built `dist/`, which
 * `npm install` makes). What the comments promise is checked on its output.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
const dir = mkdtempSync(join(root, ".readme-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("has the first kernel and its continuation", () => {
  expect(blocks.length).toBeGreaterThanOrEqual(2);
  expect(blocks[0]).toContain('import * as lp from "loom-kernels";');
});

it("runs the README's TypeScript as written (npx tsx first.ts)", () => {
  expect(existsSync(join(root, "dist/src/index.js")), "dist/ is missing: npm install (or npm run build) makes it").toBe(true);
  const file = join(dir, "first.ts");
  writeFileSync(file, blocks.join("\n"));
  const r = spawnSync(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), file], { cwd: root, encoding: "utf8", timeout: 300_000 });
  expect(r.stderr, r.stderr).toBe("");
  expect(r.status).toBe(0);
  const out = r.stdout;
  expect(out).toContain("ARGUMENTS");
  expect(out).toContain("INSTRUCTIONS");
  expect(out).toContain("Float32Array(4) [ 2, 3, 4, 5 ]");
  expect(out).toMatch(/__kernel void/);
  expect(out).toMatch(/ok: true/);
  expect(out).toMatch(/Op\(float32, add, workitem\)/);
  expect(out).toMatch(/flops: \d+/);
  expect(out).toMatch(/^4 \{ ti: \d+ \} [\d.]+ [\d.]+$/m);
  expect(out).toMatch(/<okl>:2:20: warning: .*\[OCCA leniency\]/);
  expect(out).toContain("Float32Array(3) [ 3, 5, 8 ]");
}, 320_000);

it("names in its apt-get lines exactly the Debian packages .ci/run installs", () => {
  const packagesOf = (text: string) => new Set([...text.matchAll(/apt-get install ((?:[^#\n\\]|\\\n)*)/g)]
    .flatMap((m) => m[1]!.replace(/\\\n/g, " ").split(/\s+/)).filter((w) => /^[a-z0-9][a-z0-9.+-]+$/.test(w)));
  const ci = packagesOf(readFileSync(join(root, ".ci", "run"), "utf8"));
  expect(ci.size).toBeGreaterThan(10);
  expect([...packagesOf(readme)].sort()).toEqual([...ci].sort());
});
