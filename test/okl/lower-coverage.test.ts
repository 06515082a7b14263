/**
 * The OKL constructs the corpus needed beyond plain loops: file-scope constants, device functions
 * with pointer parameters or several statements (inlined), local pointer aliases, const locals,
 * unsized arguments, kernels without @outer loops, runtime @inner extents, @barrier inside @inner
 * loops, host loops around @outer nests, sibling @inner loops of different ranges, and atomics on
 * the OpenMP and OpenCL targets. Each is imported, run on the interpreter and checked by hand.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import type { Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";

const iota = (n: number, f = (i: number) => i) => Float32Array.from({ length: n }, (_, i) => f(i));
const one = (src: string, opts = {}): Kernel => parseOkl(src, opts)[0]!;
async function out(k: Kernel, inputs: Record<string, unknown>): Promise<Record<string, Float32Array>> {
  return (await run(k, inputs as never, { backend: "interp" })) as Record<string, Float32Array>;
}

describe("file-scope constants and device functions", () => {
  it("a file-scope const is its value in kernels and device functions", async () => {
    const k = one(`const int offset = 2; const float scale = 0.5f;
      float add(float a, float b) { return a + b + offset; }
      @kernel void f(const int n, const float *a, float *b) {
        for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) b[i] = scale * add(a[i], offset);
      }`);
    expect([...(await out(k, { n: 5, a: iota(5), b: iota(5) })).b!]).toEqual([2, 2.5, 3, 3.5, 4]);
  });

  it("a device function with pointer parameters and several statements is inlined", async () => {
    const k = one(`float pick(const float *v, int i, int lim) {
        const int j = i + 1;
        if (j >= lim) return v[i];
        float s = v[i] + v[j];
        return s / 2;
      }
      @kernel void f(const int n, const float *a, float *b) {
        for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) b[i] = pick(a, i, n);
      }`);
    // The footprint counts both branches, so `a` is sized n + 1 (the source reads v[i + 1] under a guard).
    expect([...(await out(k, { n: 4, a: iota(5, (i) => i * i), b: iota(4) })).b!]).toEqual([0.5, 2.5, 6.5, 9]);
  });

  it("scalar arguments are converted to the parameter type (C semantics)", async () => {
    const k = one(`int halve(int x) { return x / 2; }
      float twice(float x) { const float y = x; if (y < 0) return 0; return 2 * y; }
      @kernel void f(const int n, const float *a, float *b) {
        for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) b[i] = halve(a[i]) + twice(i) / 4;
      }`);
    expect([...(await out(k, { n: 3, a: iota(3, (i) => 2.5 * i + 1), b: iota(3) })).b!]).toEqual([0, 1.5, 4]);
  });
});

describe("local pointers and const locals", () => {
  it("`p = a + k`, `&a[k]` and `*(p + j)` alias the argument", async () => {
    const k = one(`@kernel void f(const int n, const float *a, float *b) {
        for (int i = 0; i < n; ++i; @outer) {
          for (int j = 0; j < 2; ++j; @inner) {
            const float *row = a + 2 * i;
            float *dst = &b[2 * i];
            dst[j] = *(row + (1 - j));
          }
        }
      }`);
    expect([...(await out(k, { n: 2, a: iota(4), b: iota(4, () => 0) })).b!]).toEqual([1, 0, 3, 2]);
    expect(k.args.find((a) => a.name === "a")!.kind).toBe("array");
  });

  it("a const local of loop indices is its expression, so the argument's shape is derived", () => {
    const k = one(`@kernel void f(const int n, const float *a, float *b) {
        for (int ib = 0; ib < n; ib += 16; @outer) for (int it = 0; it < 16; ++it; @inner) {
          const int i = ib + it;
          if (i < n) b[i] = a[i];
        }
      }`);
    expect(k.temporaries).toEqual([]);
    for (const a of k.args.filter((x) => x.kind === "array")) expect(a.kind === "array" && a.shape).toEqual([{ kind: "var", name: "n" }]);
  });

  it("an argument without a derivable shape is a flat buffer (linear subscripts) and every target lowers it", () => {
    const k = one(`@kernel void f(const int n, float *a) {
        for (int i = 0; i < n; ++i; @outer) for (int j = 0; j < 4; ++j; @inner) a[i * j] = 1;
      }`);
    expect(k.args.find((a) => a.name === "a")).toMatchObject({ shape: undefined });
    expect(JSON.stringify(k.instructions)).toContain('"kind":"linear"');
    for (const t of ["c", "openmp", "opencl", "cuda", "js", "okl"] as const) expect(() => generateCode(k, t)).not.toThrow();
  });
});

describe("loop structures OCCA accepts", () => {
  it("a kernel without @outer loops (loop check off, as on serial/openmp) runs its body once", async () => {
    const k = one(`@kernel void f(float *a) { for (int i = 0; i < 3; ++i) a[i] += 1; a[0] *= 2; }`, { requireLoops: false });
    expect([...(await out(k, { a: iota(3) })).a!]).toEqual([2, 2, 3]);
  });

  it("an @inner loop with a runtime trip count affine in the arguments is work-items, sized at launch", async () => {
    const k = one(`@kernel void f(const int n, const float *a, float *b) {
        for (int i = 0; i < n; ++i; @outer) for (int j = 0; j < n; ++j; @inner) b[i * n + j] = a[j] + i;
      }`);
    expect(Object.values(k.inameTags).map((t) => t.kind)).toEqual(["g", "l"]);
    expect([...(await out(k, { n: 2, a: iota(2), b: iota(4) })).b!]).toEqual([0, 1, 1, 2]);
    const g = generateCode(k, "cuda");
    expect(g.kernels[0]!.localSize).toEqual(["n"]);
    expect(g.deviceCode).not.toContain("__launch_bounds__");
  });

  it("an @inner loop whose trip count uses an enclosing loop runs sequentially in the work-item when the nest has no barrier", async () => {
    const k = one(`@kernel void f(const int n, const float *a, float *b) {
        for (int i = 0; i < n; ++i; @outer) for (int j = 0; j <= i; ++j; @inner) b[i * n + j] = a[j] + i;
      }`);
    expect(Object.values(k.inameTags).map((t) => t.kind)).toEqual(["g"]);
    expect([...(await out(k, { n: 2, a: iota(2), b: iota(4) })).b!]).toEqual([0, 1, 1, 2]);
    expect(() => generateCode(k, "cuda")).not.toThrow();
  });

  it("@barrier inside an @inner loop splits the work-items' code there", async () => {
    const k = one(`@kernel void f(const int n, const float *a, float *b) {
        for (int i = 0; i < n; i += 4; @outer) {
          @shared float s[4];
          for (int j = 0; j < 4; ++j; @inner) {
            s[j] = a[i + j];
            @barrier;
            b[i + j] = s[3 - j];
          }
        }
      }`);
    // Shapes are n + 3 (the footprint bound of i + j for i < n, i % 4 == 0, j < 4).
    expect([...(await out(k, { n: 8, a: iota(11), b: iota(11) })).b!.slice(0, 8)]).toEqual([3, 2, 1, 0, 7, 6, 5, 4]);
    expect(generateCode(k, "cuda").deviceCode).toContain("__syncthreads()");
  });

  it("a host loop with constant bounds around @outer nests launches them once per iteration", async () => {
    const k = one(`@kernel void f(const int n, float *a) {
        for (int r = 0; r < 3; ++r) {
          for (int i = 0; i < n; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) a[i] = 2 * a[i] + r;
        }
      }`);
    expect([...(await out(k, { n: 2, a: iota(2) })).a!]).toEqual([4, 12]);
  });

  it("sibling @inner loops with different constant ranges share the hull, each guarded by its own range", async () => {
    const k = one(`@kernel void f(const int n, float *a, float *b) {
        for (int i = 0; i < n; ++i; @outer) {
          for (int j = 0; j < 3; ++j; @inner) a[4 * i + j] = 1;
          for (int j = 1; j < 5; ++j; @inner) b[4 * i + j - 1] = j;
        }
      }`);
    const r = await out(k, { n: 1, a: iota(4, () => 0), b: iota(4, () => 0) });
    expect([...r.a!]).toEqual([1, 1, 1, 0]);
    expect([...r.b!]).toEqual([1, 2, 3, 4]);
    expect(generateCode(k, "cuda").kernels[0]!.localSize).toEqual(["5"]);
  });
});

describe("atomics on every target", () => {
  const src = `@kernel void f(const int n, const float *a, float *s) {
      for (int i = 0; i < n; i += 4; @outer) {
        @shared float acc[1];
        for (int j = 0; j < 4; ++j; @inner) { if (j == 0) acc[0] = 0; }
        for (int j = 0; j < 4; ++j; @inner) { @atomic acc[0] += a[i + j]; }
        for (int j = 0; j < 4; ++j; @inner) { if (j == 0) { @atomic s[0] += acc[0]; } }
      }
    }`;

  it("OpenMP writes `#pragma omp atomic` before a plain update", () => {
    const code = generateCode(one(src), "openmp").deviceCode;
    expect(code).toMatch(/#pragma omp atomic\n\s*s\[0\] \+= /);
  });

  it("OpenCL adds float32 atomically by atomic_cmpxchg on the bit pattern, in the target's address space", () => {
    const code = generateCode(one(src), "opencl").deviceCode;
    expect(code).toContain("(volatile __local unsigned int *) &acc[0]");
    expect(code).toContain("(volatile __global unsigned int *) &s[0]");
    expect(code).toContain("atomic_cmpxchg(loopy_p, loopy_seen, as_uint(as_float(loopy_seen) + loopy_v))");
  });
});
