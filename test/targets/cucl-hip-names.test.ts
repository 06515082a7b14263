/**
 * Hostile names on the cucl and hip targets: a kernel named with reserved words of these dialects
 * (CUCL's macros, its linearized ids `GRP_ID_1D_g0`/`LOC_ID_1D_l0`, OpenCL's and CUDA's built-ins,
 * HIP's `hip*` names) prints as the same kernel with plain names would, each name replaced one for
 * one by a name the dialect does not reserve (fast-check over the words).
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { allReservedWords, dialectOf, isReserved } from "../../codegen/names.js";
import { LoomError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { splitIname } from "../../transforms/index.js";
import { expectRenaming } from "./renaming.js";

const TARGETS = ["cucl", "hip"] as const;
const IDS = ["GRP_ID_1D_g0", "GRP_ID_1D_g1", "LOC_ID_1D_l0", "LOC_ID_1D_l1"];
const WORDS = [...IDS, ...allReservedWords().filter((w) => /^[A-Za-z]\w*$/.test(w) && TARGETS.some((t) => isReserved(w, dialectOf(t))))];

/** `out[i] = sum(j, a[i, j]) * s` over i < n (split g/l by 8) and j < 4, with the names given, in that order. */
function kernel([name, a, out, n, s, j]: readonly string[]): Kernel | undefined {
  try {
    const k = makeKernel(`{[i, ${j}]: 0<=i<${n} and 0<=${j}<4}`, `${out}[i] = sum(${j}, ${a}[i, ${j}]) * ${s}`,
      [`${a}: float32[${n}, 4]`, `${out}: float32[${n}]`, `${n}: int32`, `${s}: float32`], { name });
    return splitIname(k, "i", 8, { outerTag: "g.0", innerTag: "l.0" });
  } catch (e) {
    if (e instanceof LoomError) return undefined; // a word of Loom's own syntax (`sum`, `if`)
    throw e;
  }
}

const PLAIN = ["p_kernel", "p_a", "p_out", "p_n", "p_s", "p_j"];

describe("hostile names on cucl and hip", () => {
  it("print as the plain names do, each replaced one for one by a name the dialect does not reserve", () => {
    const plain = kernel(PLAIN)!;
    const names = fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 6, maxLength: 6 });
    fc.assert(fc.property(names, (words) => {
      const k = kernel(words);
      fc.pre(k !== undefined);
      for (const t of TARGETS) expectRenaming(generateCode(plain, t).deviceCode, generateCode(k!, t).deviceCode, PLAIN, (w) => isReserved(w, dialectOf(t)), t);
    }), { numRuns: 40 });
  });
});
