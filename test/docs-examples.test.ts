/**
 * The TypeScript examples of the user documentation run as written, the way a user runs them:
 * each page's blocks in order, saved as one file in the clone, type-checked with `tsc --strict`
 * against the built package's declarations (tsx only strips types) and run with `npx tsx`
 * (importing the built package as `loom-kernels`); what their comments promise is checked on the
 * output, line by line where every `console.log(…);   // LINE` states its line exactly.
 * (README.md: test/readme.test.ts; docs/tuning.md, tuning-strategies.md and statistics.md have
 * tests of their own beside the code they show; the transformations table's one-liners:
 * test/transforms/docs-examples.test.ts.)
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { backendAvailability } from "../src/run/index.js";

const root = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(root, ".readme-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The page's TypeScript blocks, in order, as one file in the clone (where `loom-kernels` resolves to dist/). */
function pageFile(page: string): string {
  const text = readFileSync(join(root, "docs", page), "utf8");
  const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks.length).toBeGreaterThan(0);
  const file = join(dir, page.replace(/\.md$/, ".ts"));
  writeFileSync(file, blocks.join("\n"));
  return file;
}

/**
 * The page's file type-checks as a user's strict TypeScript project would check it (tsx only
 * strips types), against the built package's declarations.
 */
function typecheckPage(page: string): void {
  const file = pageFile(page);
  const r = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "--ignoreConfig", "--noEmit", "--strict",
    "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--skipLibCheck", "--types", "node", file],
  { cwd: root, encoding: "utf8", timeout: 120_000 });
  expect(r.stdout + r.stderr, `${page} does not type-check`).toBe("");
  expect(r.status).toBe(0);
}

/** What the comments of a page's one-line `console.log(…);   // LINE` statements promise, in order. */
function promisedLines(page: string): string[] {
  const code = readFileSync(pageFile(page), "utf8");
  return [...code.matchAll(/^\s*console\.log\(.*\);\s*\/\/ (.*)$/gm)].map((m) => m[1]!.trimEnd());
}

function runPage(page: string): string {
  expect(existsSync(join(root, "dist/src/index.js")), "dist/ is missing: npm install (or npm run build) makes it").toBe(true);
  const file = pageFile(page);
  const r = spawnSync(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), file], { cwd: root, encoding: "utf8", timeout: 240_000 });
  expect(r.stderr, r.stderr).toBe("");
  expect(r.status).toBe(0);
  return r.stdout;
}

describe("docs examples run as written", () => {
  it("okl.md", () => {
    typecheckPage("okl.md");
    const out = runPage("okl.md").trimEnd().split("\n");
    expect(out).toEqual(["1000 3", "true", "true"]);
  }, 250_000);

  it("architecture.md", () => {
    typecheckPage("architecture.md");
    const out = runPage("architecture.md").trimEnd().split("\n");
    expect(out).toEqual(["types → preprocess → linearize → barriers → device kernels → cpu lowering → names → lower → render", "true"]);
  }, 250_000);

  it.skipIf(!backendAvailability("openmp").available)("tuning-measurement.md (openmp; skipped where it is not available)", () => {
    typecheckPage("tuning-measurement.md");
    const out = runPage("tuning-measurement.md").trimEnd().split("\n");
    expect(out[0]).toMatch(/^\d+% of this machine's FMA peak$/);
    expect(out[1]).toBe("4 0 true");
  }, 250_000);

  it("occa.md", () => {
    const out = runPage("occa.md");
    expect(out).toMatch(/^true$/m);
    expect(out).toMatch(/__global__ void .*_occa_addVectors_0\(/);
  }, 250_000);

  it("tutorial.md", () => {
    typecheckPage("tutorial.md");
    const out = runPage("tutorial.md");
    // A kernel, shown as loopy prints it.
    for (const section of ["KERNEL: twice", "ARGUMENTS:", "DOMAINS:", "INAME TAGS:", "INSTRUCTIONS:"]) expect(out).toContain(section);
    expect(out).toMatch(/^i: None$/m);
    expect(out).toMatch(/^for i\n\s+out\[i\] = 2\*a\[i\]/m);
    expect(out).toContain("twice: Float32Array(5) [ 0, 2, 4, 6, 8 ]");
    // The C of the untransformed kernel is one sequential loop.
    expect(out).toMatch(/void twice\([^)]*\)\n\{\n\s+for \(int i = 0; i <= n - 1; \+\+i\)\n\s+out\[i\] = 2\.0f \* a\[i\];/);
    // Split and tagged: 128 work-items per group, a guard for the last group.
    expect(out).toContain("__kernel void __attribute__ ((reqd_work_group_size(128, 1, 1))) twice(");
    expect(out).toContain("if (128 * gid(0) + lid(0) < n)");
    expect(out).toContain("launch: [ '(n + 127) / 128' ] [ '128' ]");
    expect(out).toMatch(/^cuda: true$/m);
    // The schedule: the fetches, then a barrier, the k_inner loop, and a barrier closing each k_outer step.
    expect(out).toMatch(/for k_outer\n.*a_fetch_rule.*\n.*b_fetch_rule.*\n.*\.\.\. lbarrier.*\n.*for k_inner\n.*\n.*end k_inner\n.*\.\.\. lbarrier.*\n.*end k_outer/);
    expect(out).toMatch(/^true\nfalse$/m);
    // Backends: interp and js always, openmp where it is available; all agree.
    expect(out).toMatch(/^interp: 1 device kernel\(s\), [\d.]+ ms$/m);
    expect(out).toMatch(/^js: 1 device kernel\(s\), [\d.]+ ms$/m);
    expect(out).toMatch(/^openmp: (1 device kernel\(s\), [\d.]+ ms|not available here \(.+\))$/m);
    expect(out).toMatch(/^backends agree: true$/m);
    expect(out).toMatch(/^autoTestVsRef ok: true 0$/m);
    // The sweep: four variants, all ok; the best one's pipeline described.
    expect(out).toMatch(/^variants: 4 ok: 4$/m);
    const best = /^best: \{ ti: (\d+), tj: (\d+) \}$/m.exec(out);
    expect(best).not.toBeNull();
    expect(["4", "8"]).toContain(best![1]);
    expect(["8", "16"]).toContain(best![2]);
    expect(out).toContain(`splitIname i by ${best![1]} (outer g.0, inner l.1)\nsplitIname j by ${best![2]} (outer g.1, inner l.0)`);
    expect(out).toMatch(/^tuned kernel matches the reference: true$/m);
  }, 250_000);

  it("integer-sets.md", () => {
    typecheckPage("integer-sets.md");
    // Every console.log of the page promises its line in a comment: the output is those lines, in order.
    const out = runPage("integer-sets.md").trimEnd().split("\n");
    const promised = promisedLines("integer-sets.md");
    expect(promised.length).toBe(8);
    expect(out).toEqual(promised);
  }, 250_000);

  it("kernels.md", () => {
    typecheckPage("kernels.md");
    const out = runPage("kernels.md").trimEnd().split("\n");
    const promised = promisedLines("kernels.md");
    expect(promised.length).toBe(11);
    expect(out).toEqual(promised);
  }, 250_000);

  it("transformations.md", () => {
    typecheckPage("transformations.md");
    const out = runPage("transformations.md").trimEnd().split("\n");
    const promised = promisedLines("transformations.md");
    expect(promised.length).toBe(15);
    expect(out).toEqual(promised);
  }, 250_000);

  it("loopy.md", () => {
    typecheckPage("loopy.md");
    const out = runPage("loopy.md").trimEnd().split("\n");
    const promised = promisedLines("loopy.md");
    expect(promised.length).toBe(8);
    expect(out).toEqual(promised);
  }, 250_000);

  it("running.md", () => {
    typecheckPage("running.md");
    const out = runPage("running.md").trimEnd().split("\n");
    const promised = promisedLines("running.md");
    // Every machine: the interpreter, js, errors, autoTestVsRef and generateCode, line for line.
    expect(out.slice(0, 13)).toEqual(promised.slice(0, 13));
    expect(promised[13]).toBe("1 true");
    expect(out[13]).toBe("1 true");
    expect(out[14]).toMatch(/^cuda: (available|the "cuda" backend is not available here: .+)$/);
    if (backendAvailability("openmp").available) {
      // The native part: the gather proved through idx's contents runs; an index past a is refused,
      // saying what idx holds; a non-affine subscript is refused, checkBounds: false runs it; flags are taken.
      expect(out[15]).toBe(promised[15]);
      expect(promised[16]).toBe("ExecutionError: instruction \"insn\" reads a may be outside its bounds …");
      expect(out[16]!.startsWith(promised[16]!.replace(" …", ""))).toBe(true);
      expect(out[16]).toContain("idx holds 0…7");
      expect(promised[17]).toMatch(/^ExecutionError: instruction "insn" reads a at i\*i%m, which is not affine …$/);
      expect(out[17]!.startsWith(promised[17]!.replace(" …", ""))).toBe(true);
      expect(out[17]).toContain("checkBounds: false");
      expect(out.slice(18)).toEqual(promised.slice(18));
      expect(out.length).toBe(20);
    } else {
      expect(out.length).toBe(15);
    }
  }, 250_000);

  it("every code block of these pages names its language, and their TypeScript is run above", () => {
    const pages = ["tutorial.md", "kernels.md", "running.md", "transformations.md", "loopy.md", "integer-sets.md", "testing.md"];
    for (const page of pages) {
      const fences = [...readFileSync(join(root, "docs", page), "utf8").matchAll(/^[ \t]*```(\S*)/gm)].map((m) => m[1]!);
      expect(fences.length % 2, `${page}: a code block is not closed`).toBe(0);
      const opening = fences.filter((_, n) => n % 2 === 0);
      expect(opening.filter((lang) => lang === ""), `${page}: a code block without a language`).toEqual([]);
      expect(fences.filter((_, n) => n % 2 === 1).every((lang) => lang === ""), `${page}: fences out of step`).toBe(true);
    }
  });
});
