/**
 * Law: for every corpus input and every random mutation of it (deleted spans, inserted OKL/C
 * tokens, duplicated spans), the front end either returns or throws an OklError — never a
 * TypeError, RangeError or any other crash; the same holds for the whole import and code generation
 * of mutants that still parse. Also: normalizing never loses an OKL loop.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeOkl, parseOklAst, parseOklFragment } from "../../src/okl/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { generateCode } from "../../codegen/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { LoomError, OklError } from "../../src/errors.js";
import { CORPUS } from "./corpus-path.js";
import { oklError } from "./helpers.js";

const present = existsSync(CORPUS);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) files(p, out);
    else out.push(p);
  }
  return out;
}

const inputs = present
  ? files(CORPUS)
      .filter((f) => (f.endsWith(".okl") || (f.endsWith(".cpp") && !f.endsWith("_ref.cpp"))) && !f.includes("occa-legacy-generated"))
      .map((f) => readFileSync(f, "utf8"))
  : [];

const TOKENS = ["@outer", "@inner", "@tile(4, @outer, @inner)", "@shared", "@exclusive", "@dim(2,2)", "@dimOrder(1,0)", "@barrier",
  "@atomic", "[[okl_outer(\"\")]]", "(", ")", "{", "}", "[", "]", ";", ",", "#define X(a) a##a\n", "#if 1\n", "#endif\n",
  "\"", "'", "/*", "*/", "//", "\\\n", "for", "int", "*", "&", "=", "template", "::", "<", ">", "0x", "1e", "...", "#", "@"];

type Mutation = { at: number; len: number; op: "delete" | "insert" | "dup"; tok: number };
const mutation = fc.record({
  at: fc.nat(),
  len: fc.integer({ min: 0, max: 40 }),
  op: fc.constantFrom("delete" as const, "insert" as const, "dup" as const),
  tok: fc.nat(TOKENS.length - 1),
});

function mutate(src: string, ms: readonly Mutation[]): string {
  let s = src;
  for (const m of ms) {
    const at = s.length ? m.at % s.length : 0;
    if (m.op === "delete") s = s.slice(0, at) + s.slice(at + m.len);
    else if (m.op === "insert") s = s.slice(0, at) + " " + TOKENS[m.tok] + " " + s.slice(at);
    else s = s.slice(0, at) + s.slice(at, at + m.len) + s.slice(at);
  }
  return s;
}

function onlyOklErrors(f: () => unknown): void {
  try {
    f();
  } catch (e) {
    // LoomError: guardDepth's "nested too deeply" for pathological nesting.
    if (!(e instanceof OklError) && !(e instanceof LoomError)) throw e;
  }
}

describe.runIf(present)("robustness on mutated corpus files", () => {
  it("parseOklAst, parseOklFragment and normalizeOkl throw nothing but OklError", () => {
    fc.assert(
      fc.property(fc.nat(inputs.length - 1), fc.array(mutation, { minLength: 1, maxLength: 4 }), (k, ms) => {
        const src = mutate(inputs[k]!, ms);
        onlyOklErrors(() => parseOklAst(src, { readFile: () => undefined }));
        onlyOklErrors(() => parseOklFragment(src, { readFile: () => undefined, structure: false }));
        onlyOklErrors(() => normalizeOkl(src));
      }),
      { numRuns: 400, seed: 42 },
    );
  });

  it("parseOkl and generateCode throw nothing but LoomErrors on mutants that reach the lowering", () => {
    // Self-contained statements the lowering treats specially (blocks, vectors, barriers, loops),
    // inserted or removed at statement boundaries, so that many mutants still parse and import.
    const STMTS = ["{ int q = 0; while (q < 3) { q++; } }", "{ int q = 4; do { q -= 2; } while (q > 0); }",
      "for (int q = 0; q < 2; ++q) { if (q) break; }", "{ float3 v = make_float3(1, 2, 3); v.x = v.y + length(v); }",
      "@barrier;", "{ const int q = 2; int r[2] = {q, 1}; r[1] = r[0]; }", "{ auto q = 1.5f; q *= 2; }"];
    const defines = { BLOCK_SIZE: 16, block: 16, WIDTH: 8, HEIGHT: 8, BATCH_SIZE: 4, SHAPE_FUNCTION: "mandelbulb", PIXEL: "0.1", HALF_PIXEL: "0.05" };
    let imported = 0;
    fc.assert(
      fc.property(fc.nat(inputs.length - 1), fc.array(fc.record({ at: fc.nat(), stmt: fc.nat(STMTS.length - 1), del: fc.nat(3) }), { minLength: 1, maxLength: 3 }), (k, ms) => {
        let src = inputs[k]!;
        for (const m of ms) {
          const ends = [...src.matchAll(/;[ \t]*\n/g)].map((x) => x.index! + 1);
          if (ends.length === 0) break;
          const at = ends[m.at % ends.length]!;
          const next = src.indexOf(";", at);
          src = m.del === 0 && next > at ? src.slice(0, at) + src.slice(next + 1) : `${src.slice(0, at)} ${STMTS[m.stmt]} ${src.slice(at)}`;
        }
        let kernels: readonly Kernel[] = [];
        try {
          kernels = parseOkl(src, { defines, readFile: () => undefined });
          if (src !== inputs[k]) imported++;
        } catch (e) {
          if (!(e instanceof LoomError)) throw e;
        }
        for (const kk of kernels) {
          for (const t of ["c", "opencl", "cuda", "js", "okl"] as const) {
            try {
              generateCode(kk, t);
            } catch (e) {
              if (!(e instanceof LoomError)) throw e;
            }
          }
        }
      }),
      { numRuns: 300, seed: 7 },
    );
    // The law is about the lowering: enough mutants must get that far.
    expect(imported).toBeGreaterThan(60);
  });

  it("deeply nested input is a LoomError, not a stack overflow", () => {
    const deep = `@kernel void k(int *x) { x[0] = ${"(".repeat(20000)}1${")".repeat(20000)}; }`;
    expect(() => parseOklAst(deep)).toThrow(LoomError);
  });

  it("input deep enough for the lowering's recursion though not the parser's is a LoomError too", () => {
    // vitest's workers have a large stack; node's default one (what a user's script gets) overflowed
    // in the lowering at 2,000 nested ifs, a RangeError before. Run in a child with node's stack.
    const script = `import { parseOkl } from "./src/okl/parse-okl.ts";
      const ifs = "@kernel void f(const int n, float *a) { for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) { " + "if (i > 0) ".repeat(2500) + "a[i] = 1; } }";
      try { parseOkl(ifs); console.log("accepted"); } catch (e) { console.log(e.constructor.name + ": " + e.message); }`;
    const r = spawnSync(process.execPath, ["--stack-size=984", "--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(r.stdout).toContain("LoomError: parseOkl: the input is nested or chained too deeply to process");
  });

  it("a macro bomb (each macro twice the last) is an OklError at its use, saying why, not a wrong claim that it never ends", () => {
    let defs = "#define A0 1\n";
    for (let i = 1; i < 30; i++) defs += `#define A${i} (A${i - 1} + A${i - 1})\n`;
    const e = oklError(() => parseOkl(`${defs}@kernel void f(const int n, float *a) { for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) a[i] = A29; }`));
    expect([e.line, e.detail]).toEqual([31, expect.stringMatching(/^macro expansion of "A\d+" takes more than 100,000 steps: a macro that expands without end, or to exponentially many tokens/)]);
  });

  it("options of the wrong kind or name are LoomErrors naming the option and what it takes", () => {
    const src = "@kernel void f(const int n, float *a) { for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) a[i] = 1; }";
    // Before: a TypeError inside the preprocessor ("object is not iterable").
    expect(() => parseOkl(src, { includes: { "x.okl": "" } as never })).toThrow(`parseOkl: option "includes" must be an array of strings; got`);
    expect(() => parseOkl(src, { defines: { N: {} } as never })).toThrow(`parseOkl: option "defines" must be an object of names to strings`);
    expect(() => parseOkl(src, { warnings: "loud" as never })).toThrow(`parseOkl: option "warnings" must be "collect" or "error"`);
    expect(() => parseOkl(src, { define: { N: "1" } } as never)).toThrow(`parseOkl: unknown option "define" (did you mean "defines"?)`);
    expect(parseOkl(src, { defines: { N: 3, M: "x" }, includes: [], warnings: "error", filename: "f.okl" })).toHaveLength(1);
  });
});
