/**
 * Law: for every corpus input and every random mutation of it (deleted spans, inserted OKL/C
 * tokens, duplicated spans), the front end either returns or throws an OklError — never a
 * TypeError, RangeError or any other crash. Also: normalizing never loses an OKL loop.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeOkl, parseOklAst, parseOklFragment } from "../../src/okl/index.js";
import { LoomError, OklError } from "../../src/errors.js";
import { CORPUS } from "./corpus-path.js";

const present = existsSync(CORPUS);

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

  it("deeply nested input is a LoomError, not a stack overflow", () => {
    const deep = `@kernel void k(int *x) { x[0] = ${"(".repeat(20000)}1${")".repeat(20000)}; }`;
    expect(() => parseOklAst(deep)).toThrow(LoomError);
  });
});
