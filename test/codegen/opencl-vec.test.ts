/**
 * `vec` loops on OpenCL as vector types (codegen/lower/vec-opencl.ts): a loop of constant length
 * 2, 3, 4, 8 or 16 with a lane-wise body is vloadN/vstoreN and vector arithmetic, a register
 * tile's k loop keeps its accumulator rows in vector variables, and any other vec loop stays a
 * plain loop saying why. Run on PoCL against the interpreter (skipped with the reason where
 * OpenCL is not installed).
 */
import { describe, expect, it } from "vitest";
import { CodegenError } from "../../src/errors.js";
import { autoTestVsRef, generateCode, makeKernel, pipeline, prioritize, run, split, tagInames } from "../../src/index.js";
import { availableNative } from "../run/native-helpers.js";
import { thrownBy } from "../thrown.js";

const axpy = (dtype = "float32") => makeKernel("{[i]: 0<=i<n}", "y[i] = 2*x[i] + y[i]", [`x, y: ${dtype}[n]`, "n: int32"], { name: "axpy", assumptions: "n mod 16 = 0" });
const matmul = () => makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b, c: float32[n,n]", "n: int32"], { name: "mm", assumptions: "n mod 8 = 0" });
/** A 2x8 register tile: i_inner unrolled (ilp), j_inner 8 lanes (vec), k between them and the tile loops. */
const tiled = pipeline(split("i", 2, { innerTag: "ilp" }), split("j", 8, { innerTag: "vec" }), prioritize("i_outer,j_outer,k,i_inner,j_inner"));
/** y = Aᵀ x with 4 rows at once: the reduction over k keeps one accumulator per lane of i_inner. */
const matvec = () => makeKernel("{[i,k]: 0<=i,k<n}", "y[i] = sum(k, a[k,i]*x[k])", ["a: float64[n,n]", "x, y: float64[n]", "n: int32"], { name: "mv", assumptions: "n mod 4 = 0" });
const rows4 = pipeline(split("i", 4, { innerTag: "vec", outerTag: "g.0" }), prioritize("i_outer,k,i_inner"));

const lines = (code: string) => code.split("\n").map((l) => l.trim());
const OPENCL = availableNative(["opencl"]).length > 0;

describe("vec loops on OpenCL: the generated code", () => {
  it("axpy: one vstore of vector arithmetic on two vloads and a broadcast literal", () => {
    const code = generateCode(split("i", 8, { innerTag: "vec", outerTag: "g.0" })(axpy()), "opencl").deviceCode;
    expect(lines(code)).toContain("vstore8(((float8)(2.0f) * vload8(0, x + 8 * gid(0))) + vload8(0, y + 8 * gid(0)), 0, y + 8 * gid(0));");
    expect(code).not.toMatch(/for \(int i_inner/);
  });

  it("a vec iname from 2 to 9: the lanes start at 2, the lane index is an int8 literal converted to float8", () => {
    const k = tagInames(makeKernel("{[j]: 2<=j<10}", "y[j] = x[j-2] * j + 1", ["x, y: float32[12]"], { name: "lo" }), { j: "vec" });
    expect(lines(generateCode(k, "opencl").deviceCode)).toContain("vstore8((vload8(0, x) * convert_float8((int8)(2, 3, 4, 5, 6, 7, 8, 9))) + (float8)(1.0f), 0, y + 2);");
  });

  it("a register tile (ilp x vec): the k loop keeps each accumulator row in a float8, loaded before and stored after it", () => {
    const code = lines(generateCode(tiled(matmul()), "opencl").deviceCode);
    const k = code.indexOf("for (int k = 0; k <= n - 1; ++k)");
    expect(code.slice(k - 2, k)).toEqual(["float8 acc_k_v0 = vload8(0, acc_k);", "float8 acc_k_v8 = vload8(0, acc_k + 8);"]);
    expect(code.slice(k + 2, k + 4)).toEqual([
      "acc_k_v0 = acc_k_v0 + ((float8)(a[n * (2 * i_outer) + k]) * vload8(0, b + n * k + 8 * j_outer));",
      "acc_k_v8 = acc_k_v8 + ((float8)(a[n * (2 * i_outer + 1) + k]) * vload8(0, b + n * k + 8 * j_outer));",
    ]);
    expect(code.slice(k + 5, k + 7)).toEqual(["vstore8(acc_k_v0, 0, acc_k);", "vstore8(acc_k_v8, 0, acc_k + 8);"]);
  });

  it("a reduction privatized over the vec iname accumulates in a vector (double4) across k", () => {
    const code = lines(generateCode(rows4(matvec()), "opencl").deviceCode);
    expect(code).toContain("double4 acc_k_v0 = vload4(0, acc_k);");
    expect(code).toContain("acc_k_v0 = acc_k_v0 + (vload4(0, a + n * k + 4 * gid(0)) * (double4)(x[k]));");
    expect(code).toContain("vstore4(acc_k_v0, 0, acc_k);");
  });

  it("loops that cannot be vector code stay plain loops and say why", () => {
    const why = (k: ReturnType<typeof axpy>, iname = "i_inner") => {
      const code = generateCode(k, "opencl").deviceCode;
      const m = code.match(new RegExp(`/\\* vec ${iname}: a plain loop: (.*) \\*/`));
      return m?.[1];
    };
    const k8 = (insn: string, args: string[], lanes = 4) => split("i", lanes, { innerTag: "vec" })(makeKernel("{[i]: 0<=i<n}", insn, args, { assumptions: `n mod ${lanes} = 0` }));
    const plain = makeKernel("{[i]: 0<=i<n}", "y[i] = 2*x[i] + y[i]", ["x, y: float32[n]", "n: int32"], { name: "axpy" });
    expect(why(split("i", 8, { innerTag: "vec" })(plain))).toMatch(/^its bounds are not constants/);
    expect(why(k8("y[i] = x[i]", ["x, y: float32[n]", "n: int32"], 6))).toBe("its length 6 is no OpenCL vector width (2, 3, 4, 8, 16)");
    expect(why(k8("y[i] = x[n - 1 - i]", ["x, y: float32[n]", "n: int32"]))).toBe("x[…] is not unit-stride in i_inner (stride -1: a gather)");
    expect(why(k8("y[i] = x[i] % 7", ["x, y: int32[n]", "n: int32"]))).toBe("% on int32 has no lane-wise vector form here");
    expect(why(k8("y[i] = x[i] + 1", ["x, y: int8[n]", "n: int32"]))).toBe("int8 values have no OpenCL vector type here");
    const rowMajor = makeKernel("{[i,k]: 0<=i,k<n}", "y[i] = sum(k, a[i,k]*x[k])", ["a: float64[n,n]", "x, y: float64[n]", "n: int32"], { assumptions: "n mod 4 = 0" });
    expect(why(rows4(rowMajor))).toBe("a[…] is not unit-stride in i_inner (its stride is not a constant: a gather)");
    expect(why(k8("y[i] = if(x[i] > 0, x[i], 0)", ["x, y: float32[n]", "n: int32"]))).toBe("a condition depends on the lane");
  });

  it("lanes that depend on each other are still a CodegenError", () => {
    const cross = tagInames(makeKernel("{[j]: 0<=j<8}", ["x[j] = 2*a[j] {id=w}", "y[j] = x[7 - j] {id=r, dep=w}"], ["a, x, y: float32[8]"], { name: "cross" }), { j: "vec" });
    expect(thrownBy(CodegenError, () => generateCode(cross, "opencl")).message).toMatch(/iname "j" is tagged vec, but it accesses x\[7 - j\]/);
  });
});

describe.skipIf(!OPENCL)("vec loops on OpenCL: run on PoCL against the interpreter", () => {
  it("axpy (float32, 8 lanes; float64 with sqrt and fma, 3 lanes), the 2x8 register tile and the 4-lane matvec", async () => {
    const dsqrt = makeKernel("{[i]: 0<=i<n}", "y[i] = fma(x[i], sqrt(x[i]*x[i] + 1), min(y[i], 0.5))", ["x, y: float64[n]", "n: int32"], { name: "dsq", assumptions: "n mod 3 = 0" });
    const cases = [
      [axpy(), split("i", 8, { innerTag: "vec", outerTag: "g.0" })(axpy()), { n: 48 }],
      [dsqrt, split("i", 3, { innerTag: "vec", outerTag: "g.0" })(dsqrt), { n: 21 }],
      [matmul(), tiled(matmul()), { n: 16 }],
      [matvec(), rows4(matvec()), { n: 12 }],
    ] as const;
    for (const [ref, k, params] of cases) {
      expect(generateCode(k, "opencl").deviceCode, k.name).toMatch(/vstore[2-8]\(/);
      expect((await autoTestVsRef(ref, k, { params, backend: "opencl" })).mismatches, k.name).toEqual([]);
    }
  }, 120_000);

  it("int32 and uint32 lanes wrap, shift and select as the interpreter does at the edges; arrays named like OpenCL's vector built-ins are renamed", async () => {
    // x is named vload4, z int4 and m convert_int4: what the vector code calls and declares.
    const k = split("i", 4, { innerTag: "vec", outerTag: "g.0" })(makeKernel("{[i]: 0<=i<n}", [
      "y[i] = vload4[i] * 3 + int4[i] - 2147483647 + i",
      "u[i] = ((v[i] >> 3) ^ v[i]) + (v[i] << 7) + max(v[i], w) - 5 + if(w > 5, v[i], 3)",
      "convert_int4[i] = min(vload4[i], int4[i]) + max(-vload4[i], 7)",
    ], ["vload4, int4, y, convert_int4: int32[n]", "v, u: uint32[n]", "w: uint32", "n: int32"], { name: "edges", assumptions: "n mod 4 = 0" }));
    const code = generateCode(k, "opencl").deviceCode;
    expect(code).toContain("vstore4(min(vload4(0, vload4_0 + 4 * gid(0)), vload4(0, int4_0 + 4 * gid(0)))");
    expect(code).toContain("(w > 5u) ? vload4(0, v + 4 * gid(0)) : (uint4)(3u)");
    expect(code).toContain(", 0, loom_convert_int4 + 4 * gid(0));");
    const edges = [-2147483648, 2147483647, -1, 0, 1, 65536, -65537, 123456789];
    const args = {
      vload4: Int32Array.from(edges), int4: Int32Array.from(edges.slice().reverse()), v: Uint32Array.from(edges.map((e) => e >>> 0)), w: 4000000000, n: 8,
    };
    const got = await run(k, args, { backend: "opencl" });
    const want = await run(k, args, { backend: "interp" });
    for (const out of ["y", "u", "convert_int4"]) expect(Array.from(got[out]! as Int32Array), out).toEqual(Array.from(want[out]! as Int32Array));
  }, 60_000);
});
