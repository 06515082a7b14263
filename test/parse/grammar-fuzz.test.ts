/**
 * Grammar fuzzing (issue 16): every front end — the domain language, the instruction language,
 * OKL — answers any text with a kernel or a LoomError, never another exception, and a kernel it
 * accepts generates code on every target without any name reaching the code unchecked: names are
 * drawn from every target's reserved words and from libc, libuv and N-API symbols.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allReservedWords } from "../../codegen/names.js";
import { generateCode } from "../../codegen/index.js";
import { LoomError } from "../../src/errors.js";
import { TARGET_NAMES, type Kernel, type TargetName } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { parseSet } from "../../src/poly/index.js";

const RUNS = Number(process.env.LOOM_FUZZ_RUNS ?? 150);
const SYMBOLS = ["main", "system", "printf", "exit", "malloc", "free", "uv_run", "uv_loop_init", "napi_create_object", "napi_module_register", "dlopen", "dlsym"];
const HOSTILE = ["#define X 1\n", "\"", "*/", "/*", "\\", "\n#include <stdlib.h>\n", "a b", "1x", "`", "${x}", "'", "\u0000"];
const WORDS = [...new Set([...allReservedWords(), ...SYMBOLS])];
const BUILT: readonly TargetName[] = TARGET_NAMES.filter((t) => ["c", "openmp", "opencl", "cuda", "js", "okl"].includes(t));

const name = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...WORDS) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/) });

/** Call `f`; anything thrown must be a LoomError. Returns what `f` returned, or undefined. */
function loomOnly<T>(f: () => T, what: string): T | undefined {
  try {
    return f();
  } catch (e) {
    if (!(e instanceof LoomError)) throw new Error(`${what}: threw ${(e as Error)?.constructor?.name}: ${String((e as Error)?.message ?? e)}`);
    return undefined;
  }
}

/** Code for `k` on `t` is a LoomError or code into which no name injected a directive. */
function checkCode(k: Kernel, t: TargetName): void {
  const code = loomOnly(() => generateCode(k, t), `generateCode(${t})`);
  if (!code) return;
  const text = code.deviceCode;
  // The generators print no #define and no NUL of their own: one in the code came from a name.
  expect(text.includes("#define X"), `${t}: a name's #define reached the code`).toBe(false);
  expect(text.includes("\u0000"), `${t}: a NUL reached the code`).toBe(false);
}

describe("the grammars answer any text with a kernel or a LoomError", () => {
  it(`random instruction text, domains and argument lists built from hostile and reserved names (${RUNS} cases)`, () => {
    let accepted = 0;
    fc.assert(fc.property(fc.array(name, { minLength: 5, maxLength: 5 }), fc.constantFrom(...BUILT), ([kn, a, o, i, n], target) => {
      const k = loomOnly(() => makeKernel(`{[${i}]: 0<=${i}<${n}}`, `${o}[${i}] = 2*${a}[${i}] + 1`, [`${a}: float32[${n}]`, `${o}: float32[${n}]`, `${n}: int32`], { name: kn }), "makeKernel");
      if (k) {
        accepted++;
        checkCode(k, target);
      }
    }), { numRuns: RUNS });
    expect(accepted).toBeGreaterThan(RUNS / 10);
  });

  it(`random bytes into the domain and instruction languages (${RUNS} cases)`, () => {
    const text = fc.oneof(fc.string({ maxLength: 60 }), fc.array(fc.constantFrom("{", "}", "[", "]", ":", "<", "<=", "=", "and", "or", "i", "n", "0", "1", ",", "+", "-", "*", "//", "%", "sum(", ")", "(", "exists", " ", ";", "\n", "{id=", "dep=", "*", "!", "if", "else", ...WORDS.slice(0, 40)), { maxLength: 30 }).map((xs) => xs.join(" ")));
    fc.assert(fc.property(text, text, (d, insn) => {
      loomOnly(() => parseSet(d), "parseSet");
      const k = loomOnly(() => makeKernel(d, insn), "makeKernel");
      if (k) for (const t of BUILT) checkCode(k, t);
    }), { numRuns: RUNS });
  });

  it(`OKL kernels whose kernel, argument and loop names are hostile or reserved (${RUNS} cases)`, () => {
    let accepted = 0;
    fc.assert(fc.property(fc.array(name, { minLength: 4, maxLength: 4 }), fc.constantFrom(...BUILT), ([kn, a, i, n], target) => {
      const src = `@kernel void ${kn}(const int ${n}, float *${a}) {\n  for (int ${i} = 0; ${i} < ${n}; ++${i}; @tile(16, @outer, @inner)) {\n    ${a}[${i}] = 2.0f * ${a}[${i}];\n  }\n}\n`;
      const ks = loomOnly(() => parseOkl(src), "parseOkl") ?? [];
      accepted += ks.length;
      for (const k of ks) checkCode(k, target);
    }), { numRuns: RUNS });
    expect(accepted).toBeGreaterThan(RUNS / 10);
  });
});
