/**
 * `vec` inames: innermost loops whose lanes run at once. C and OpenMP mark the loop
 * `#pragma omp simd`; OpenCL and js run it as a plain loop; a loop whose lanes would depend on
 * each other is a CodegenError naming the access. Register tiles (`ilp` rows by a `vec` row of
 * columns) keep one accumulator per lane and give the reference's results on every CPU backend.
 */
import { describe, expect, it } from "vitest";
import { CodegenError } from "../../src/errors.js";
import { autoTestVsRef, generateCode, makeKernel, pipeline, prefetch, prioritize, split, tagInames } from "../../src/index.js";
import { availableNative } from "../run/native-helpers.js";
import { thrownBy } from "../thrown.js";

const axpy = () => makeKernel("{[i]: 0<=i<n}", "y[i] = 2*x[i] + y[i]", ["x, y: float32[n]", "n: int32"], { name: "axpy" });
const matmul = () => makeKernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", ["a, b, c: float32[n,n]", "n: int32"], { name: "mm" });
/** A 2x8 register tile: i_inner unrolled (ilp), j_inner a SIMD row, k between them and the tile loops. */
const tiled = (k = matmul()) => pipeline(
  split("i", 2, { innerTag: "ilp" }), split("j", 8, { innerTag: "vec" }),
  prioritize("i_outer,j_outer,k,i_inner,j_inner"),
)(k);

/** The line after each `#pragma omp simd` of `code`. */
const simdLoops = (code: string) => code.split("\n").flatMap((l, n, all) => (l.trim() === "#pragma omp simd" ? [all[n + 1]!.trim()] : []));

describe("vec inames", () => {
  it("C and OpenMP mark the vec loop (and only it) #pragma omp simd; OpenCL and js run a plain loop", () => {
    const k = split("i", 8, { innerTag: "vec" })(axpy());
    for (const target of ["c", "openmp"] as const) {
      expect(simdLoops(generateCode(k, target).deviceCode), target).toEqual(["for (int i_inner = 0; i_inner <= loopy_min_int32(n - 8 * i_outer - 1, 7); ++i_inner)"]);
    }
    expect(generateCode(k, "opencl").deviceCode).not.toContain("simd");
    expect(generateCode(split("i", 8, { innerTag: "vec", outerTag: "g.0" })(axpy()), "opencl").deviceCode).toMatch(/for \(int i_inner = 0; /);
    expect(generateCode(k, "js").deviceCode).toMatch(/for \(let i_inner = 0, /);
  });

  it("a register tile keeps one accumulator per lane: each SIMD row updates its own slice across k", () => {
    const code = generateCode(tiled(), "c").deviceCode;
    // Two unrolled rows, each a SIMD loop over its 8 lanes of the accumulator, inside the k loop.
    const rows = simdLoops(code).filter((l) => l.startsWith("for (int j_inner"));
    expect(rows.length).toBe(6); // init, update and store of each of the 2 rows
    expect(code).toMatch(/float acc_k\[16\];/);
    expect(code).toMatch(/acc_k\[8 \+ j_inner\] = acc_k\[8 \+ j_inner\] \+ a\[/);
  });

  it("lanes that would depend on each other are refused, naming the access", () => {
    const red = pipeline(split("k", 4, { innerTag: "vec" }))(matmul());
    expect(thrownBy(CodegenError, () => generateCode(red, "c")).message).toMatch(/^kernel "mm", instruction "[^"]+": iname "k_inner" is tagged vec, but every lane writes the same acc_k_outer_k_inner, so its lanes cannot run at once; tag it ilp\.seq or for instead$/);
    const cross = tagInames(makeKernel("{[j]: 0<=j<8}", ["x[j] = 2*a[j] {id=w}", "y[j] = x[7 - j] {id=r, dep=w}"], ["a, x, y: float32[8]"], { name: "cross" }), { j: "vec" });
    for (const target of ["c", "openmp", "js", "opencl"] as const) {
      expect(thrownBy(CodegenError, () => generateCode(cross, target)).message, target).toBe(
        'kernel "cross", instruction "r": iname "j" is tagged vec, but it accesses x[7 - j], which another lane writes (at [j]), so its lanes cannot run at once; tag it ilp.seq or for instead');
    }
  });

  it("a vec loop of one value (a split by 1) has one lane: what every lane would write alike is no race (found by the random-pipeline law)", async () => {
    // The prefetch's store runs inside i_inner (extent 1) without indexing by it; addPrefetch
    // accepts it (no race across one value), so code generation must too.
    const st = () => makeKernel("{[i,j]: 1<=i<n-1 and 1<=j<m-1}", "out[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1] - 4*a[i,j]", ["a, out: float64[n,m]", "n, m: int32"], { name: "stencil2d" });
    const t = pipeline(split("i", 1, { innerTag: "vec" }), prefetch("a", { temporaryAddressSpace: "local" }))(st());
    for (const backend of ["interp", "js", ...availableNative(["c", "openmp"])] as const) {
      for (const params of [{ n: 0, m: 0 }, { n: 6, m: 5 }]) expect((await autoTestVsRef(st(), t, { params, backend })).mismatches, backend).toEqual([]);
    }
    // With two lanes addPrefetch refuses the race itself.
    expect(() => pipeline(split("i", 2, { innerTag: "vec" }), prefetch("a", { temporaryAddressSpace: "local" }))(st())).toThrow(/write race across the iname\(s\) i_inner/);
  });

  it("register tiles and SIMD rows with remainders give the reference's results on every CPU backend", async () => {
    const backends = ["js" as const, ...availableNative(["c", "openmp"])];
    for (const backend of backends) {
      for (const n of [1, 7, 16, 21]) {
        expect((await autoTestVsRef(matmul(), tiled(), { params: { n }, backend })).mismatches, `${backend} n=${n}`).toEqual([]);
      }
      expect((await autoTestVsRef(axpy(), split("i", 8, { innerTag: "vec", outerTag: "g.0" })(axpy()), { params: { n: 29 }, backend })).mismatches, backend).toEqual([]);
    }
  }, 240_000);
});
