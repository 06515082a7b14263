/**
 * Register tiles in vector values (codegen/lower/vec-registers.ts): on C and OpenMP a loop whose
 * body is only full `vec` rows adding to a private accumulator keeps each row in GCC vector
 * values across the loop, loaded before and stored after it. Law: for random tile shapes, dtypes,
 * reduction splits and sizes the kernel gives the reference's results natively; the code has the
 * vector values exactly where the rows are full, and no other target changes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { autoTestVsRef, generateCode, makeKernel, pipeline, prioritize, split, step } from "../../src/index.js";
import { packedMatmulPipeline, matmulUpdate } from "../../bench/packing-matmul.js";
import { availableNative } from "../run/native-helpers.js";

const matmul = (dtype: "float32" | "float64", body = "a[i,k]*b[k,j]") =>
  makeKernel("{[i,j,k]: 0<=i,j,k<n}", `c[i,j] = sum(k, ${body})`, [`a, b, c: ${dtype}[n,n]`, "n: int32"], { name: "mm" });

/** An mr x nr register tile (ilp rows, a vec row), k around it, split in two loops where `kSplit`. */
function tiled(mr: number, nr: number, kSplit: number | undefined, exactOf?: number) {
  const k = kSplit === undefined ? "k" : "k_outer,k_inner";
  return pipeline(
    ...(exactOf === undefined ? [] : [step.assume(`n mod ${exactOf} = 0 and n >= ${exactOf}`)]),
    split("i", mr, { innerTag: "ilp" }), split("j", nr, { innerTag: "vec" }),
    ...(kSplit === undefined ? [] : [split("k", kSplit)]),
    prioritize(`i_outer,j_outer,${k},i_inner,j_inner`),
  );
}

/** The body of the innermost loop over `v` (the text between its head and the next closing brace at its depth). */
function loopText(code: string, v: string): string {
  const at = code.indexOf(`for (int ${v} = `);
  if (at < 0) return "";
  const lines = code.slice(at).split("\n");
  const ind = /^\s*/.exec(code.slice(code.lastIndexOf("\n", at) + 1, at + 1))![0]!.length;
  const end = lines.findIndex((l, n) => n > 1 && l.length - l.trimStart().length === ind && l.trim() === "}");
  return lines.slice(0, end + 1).join("\n");
}

const NATIVE = availableNative(["c", "openmp"]);

describe("register tiles in vector values (C, OpenMP)", () => {
  it("full rows: the accumulators are vector values inside the k loop, loaded before and stored after it; other targets unchanged", () => {
    const k = tiled(2, 16, 4, 16)(matmul("float32"));
    for (const target of ["c", "openmp"] as const) {
      const code = generateCode(k, target).deviceCode;
      const inner = loopText(code, "k_inner");
      expect(inner, target).toContain("acc_k_outer_k_inner_v8 = acc_k_outer_k_inner_v8 + a[");
      expect(inner, target).not.toMatch(/acc_k_outer_k_inner\[/);
      expect(code, target).toContain("float __attribute__((vector_size(32))) acc_k_outer_k_inner_v24;");
      expect(code, target).toContain("__builtin_memcpy(&acc_k_outer_k_inner[24], &acc_k_outer_k_inner_v24, sizeof acc_k_outer_k_inner_v24);");
    }
    for (const target of ["opencl", "js", "cuda"] as const) expect(generateCode(k, target).deviceCode, target).not.toContain("vector_size");
    // float64: 4 lanes a vector
    expect(generateCode(tiled(1, 4, undefined, 4)(matmul("float64")), "c").deviceCode).toContain("double __attribute__((vector_size(32))) acc_k_v0;");
  });

  it("rows that are not full vectors, or a remainder bound, stay SIMD loops over the array", () => {
    const narrow = generateCode(tiled(2, 4, undefined, 4)(matmul("float32")), "c").deviceCode; // 4 floats: half a vector
    const partial = generateCode(tiled(2, 8, undefined)(matmul("float32")), "c").deviceCode; // min bound on the row
    for (const code of [narrow, partial]) {
      expect(code).not.toContain("vector_size");
      expect(code).toMatch(/acc_k\[\d+ \+ j_inner\] = acc_k\[\d+ \+ j_inner\] \+ a\[/);
    }
  });

  it.skipIf(NATIVE.length === 0)(`law: random tiles, dtypes, k splits and sizes give the reference's results on ${NATIVE.join(", ") || "c/openmp (none here)"}`, async () => {
    let vectors = 0;
    await fc.assert(fc.asyncProperty(
      fc.record({
        mr: fc.integer({ min: 1, max: 3 }), lanes: fc.constantFrom(1, 2), dtype: fc.constantFrom("float32" as const, "float64" as const),
        kSplit: fc.constantFrom(undefined, 3, 8), exact: fc.boolean(), m: fc.integer({ min: 1, max: 3 }),
        body: fc.constantFrom("a[i,k]*b[k,j]", "2*a[i,k]*b[k,j] - b[k,j]", "(a[i,k] + 1)*(b[k,j] - a[i,k])"),
      }),
      async ({ mr, lanes, dtype, kSplit, exact, m, body }) => {
        const nr = lanes * (dtype === "float32" ? 8 : 4);
        const n = exact ? nr * mr * m : nr * m + mr + 1;
        const ref = matmul(dtype, body);
        const k = tiled(mr, nr, kSplit, exact ? nr * mr : undefined)(ref);
        if (generateCode(k, "c").deviceCode.includes("vector_size")) vectors++;
        for (const backend of NATIVE) {
          expect((await autoTestVsRef(ref, k, { params: { n }, backend })).mismatches, `${backend} ${JSON.stringify({ mr, nr, dtype, kSplit, n, body })}`).toEqual([]);
        }
      },
    ), { numRuns: 5, seed: 1809 });
    expect(vectors).toBeGreaterThan(0);
  }, 300_000);

  it.skipIf(NATIVE.length === 0)("the packed (BLIS-style) matmul of bench/packing-matmul.ts, micro-tile in vector values, equals the reference, blocks exact and not", async () => {
    const blocks = { MC: 16, NC: 16, KC: 8, MR: 2, NR: 8 };
    const ref = makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b, c: float32[n,n]", "n: int32"], { name: "mm" });
    for (const n of [32, 21]) {
      const k = packedMatmulPipeline(n, { blocks })(matmulUpdate(blocks.KC));
      if (n === 32) expect(generateCode(k, "openmp").deviceCode).toContain("vector_size");
      for (const backend of NATIVE) expect((await autoTestVsRef(ref, k, { params: { n }, backend })).mismatches, `${backend} n=${n}`).toEqual([]);
    }
  }, 300_000);
});
