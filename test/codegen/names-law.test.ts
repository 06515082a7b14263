/**
 * The naming law (issues 14, 16.3): for all kernels whose user names are drawn from every
 * target's reserved words, libc symbols and the generators' own name shapes (`acc_j`, `i_hi`,
 * `loopy_*`, `i_inner`), js, c, openmp and opencl give what the interpreter gives.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allReservedWords } from "../../codegen/names.js";
import type { Kernel } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { splitIname } from "../../transforms/index.js";
import { availableNative } from "../run/native-helpers.js";

/** Shapes of names the printers and lowerings introduce, and runtime symbols. */
const GENERATED = [
  "acc_j", "acc_i", "i_hi", "j_hi", "i_hi_0", "loopy_min_int32", "loopy_floor_div_int32", "loopy_mod_int32", "i_inner", "i_outer",
  "red_i_inner", "H", "main", "system", "uv_run", "napi_create_object", "dlsym", "_g0", "_l0", "gid", "lid",
];

/** The candidate names the instruction language accepts as array, value and iname names. */
const NAMES: readonly string[] = (() => {
  const out: string[] = [];
  for (const w of new Set([...allReservedWords(), ...GENERATED])) {
    try {
      makeKernel(`{[${w}]: 0<=${w}<${w}_n}`, `${w}_o[${w}] = 2*${w}_a[${w}] + ${w}`, [`${w}_a: float32[${w}_n]`, `${w}_o: float32[${w}_n]`, `${w}_n: int32`]);
      makeKernel("{[i]: 0<=i<n}", `o[i] = 2*${w}[i]`, [`${w}: float32[n]`, "o: float32[n]", "n: int32"]);
      // At the start of a line too (the case's output array): `with[i] = …` is a statement, not a block.
      makeKernel("{[i]: 0<=i<n}", `${w}[i] = 2*o[i]`, [`${w}: float32[n]`, "o: float32[n]", "n: int32"]);
      out.push(w);
    } catch {
      // A word the instruction language keeps for itself (`if`, `and`, `sum`): not a name a user can write.
    }
  }
  return out;
})();

interface Case {
  readonly names: readonly string[];
  readonly split: "none" | "seq" | "gl";
  readonly n: number;
}

/** out[i] = sum(j, a[i, j] * (j + 1)) + v + t, with every name chosen by the case. */
function kernelOf(c: Case): Kernel {
  const [a, out, v, t, i, j, nn, kname] = c.names as [string, string, string, string, string, string, string, string];
  const k = makeKernel(`{[${i}, ${j}]: 0<=${i}<${nn} and 0<=${j}<3}`,
    [`<float32> ${t} = sum(${j}, ${a}[${i}, ${j}] * (${j} + 1)) {id=s}`, `${out}[${i}] = ${t} + ${v} {dep=s}`],
    [`${a}: float32[${nn}, 3]`, `${out}: float32[${nn}]`, `${v}: int32`, `${nn}: int32`], { name: kname });
  if (c.split === "seq") return splitIname(k, i, 2);
  if (c.split === "gl") return splitIname(k, i, 2, { outerTag: "g.0", innerTag: "l.0" });
  return k;
}

const cases = fc.record({
  names: fc.uniqueArray(fc.constantFrom(...NAMES), { minLength: 8, maxLength: 8 }),
  split: fc.constantFrom("none", "seq", "gl") as fc.Arbitrary<Case["split"]>,
  n: fc.integer({ min: 1, max: 6 }),
});

describe("for all kernels named with reserved words and generated-name shapes", () => {
  it("draws from enough names", () => {
    expect(NAMES).toEqual(expect.arrayContaining(["var", "float", "restrict", "kernel", "__global__", "main", "i_hi", "acc_j", "H", "with", "for"]));
  });

  it("js, c, openmp and opencl equal the interpreter", async () => {
    const backends = ["js", ...availableNative(["c", "openmp", "opencl"])];
    await fc.assert(fc.asyncProperty(cases, async (c) => {
      const k = kernelOf(c);
      const [a, out, v] = c.names as [string, string, string];
      const args = { [a]: Float32Array.from({ length: 3 * c.n }, (_, x) => (x % 7) - 2.5), [v]: 10 };
      const want = Array.from((await run(k, args, { backend: "interp" }))[out] as ArrayLike<number>);
      for (const backend of backends) {
        const got = Array.from((await run(k, args, { backend } as never))[out] as ArrayLike<number>);
        expect(got, `${backend} on ${JSON.stringify(c)}`).toEqual(want);
      }
    }), { numRuns: Number(process.env.LOOM_NAMES_RUNS ?? 12) });
  }, 300_000);
});
