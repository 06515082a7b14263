/**
 * Pointers chosen at run time among constant tables, as gslib's point-location kernels write
 * Lagrange weights: a `const double *z` assigned in a switch among file-scope `static const` node
 * tables, or a pointer argument in the default case (`w = z + n`), then read `z[j]`; if/else chains
 * and `?:` among such targets; strided views `(const T *)((const char *)p_base + i*p_stride)`.
 * Each kernel (written here, in that style) runs on interp and openmp against its serial meaning.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

/**
 * The interpreter checks every read; the native bounds proof cannot follow a read chosen by a value
 * computed at run time (the way taken, a byte stride read from an argument), so openmp runs unchecked.
 */
const UNPROVEN = { checkBounds: false } as const;

const TABLES: Record<number, readonly number[]> = {
  2: [-1.0, 1.0],
  3: [-1.0, 0.0, 1.0],
  4: [-1.0, -0.4472135954999579, 0.4472135954999579, 1.0],
};

const NODES = `
static const double nodes_2[2] = { -1.0, 1.0 };
static const double nodes_3[3] = { -1.0, 0.0, 1.0 };
static const double nodes_4[ 4] = {
  -1.0,
  -0.4472135954999579,
   0.4472135954999579,
   1.0
};
`;

const BASIS = `${NODES}
void basis_at(double *out, @restrict const double *fallback,
              const int n, const double x, const int i)
{
  if (i < n) {
    const double *z, *w;
    w = fallback;
    switch (n) {
      case 2: z = nodes_2; break;
      case 3: z = nodes_3; break;
      case 4: z = nodes_4; break;
      default: z = fallback; w = z + n;
    }
    double p = 1;
    for (int j = 0; j < n; ++j) {
      const double d = 2*(x - z[j]);
      p *= j == i ? 1 : d;
    }
    out[i] = w[i] * p;
  }
}

@kernel void basisWeights(const int Npts, const int n, @restrict const double *r,
                          @restrict const double *fallback, double *weights)
{
  for (int e = 0; e < Npts; ++e; @outer) {
    for (int i = 0; i < 8; ++i; @inner) {
      basis_at(weights + e*8, fallback, n, r[e], i);
    }
  }
}`;

/** The serial meaning of basisWeights. */
function basisWeights(Npts: number, n: number, r: readonly number[], fallback: readonly number[]): Float64Array {
  const out = new Float64Array(Npts * 8);
  const z = TABLES[n] ?? fallback;
  const w = TABLES[n] ? fallback : fallback.slice(n);
  for (let e = 0; e < Npts; e++) for (let i = 0; i < Math.min(n, 8); i++) {
    let p = 1;
    for (let j = 0; j < n; j++) p *= j === i ? 1 : 2 * (r[e]! - z[j]!);
    out[e * 8 + i] = w[i]! * p;
  }
  return out;
}

describe("a pointer chosen in a switch among file-scope tables and a pointer argument", () => {
  for (const n of [2, 3, 4, 5, 6]) {
    it(`n = ${n} at run time: reads the table (or the argument) the switch chose`, async () => {
      const [k] = parseOkl(BASIS);
      const Npts = 3, r = seeded(Npts, n);
      // Only what C reads is allocated: the tables' cases read fallback[0..n), the default case fallback[0..2n).
      const fallback = seeded(TABLES[n] ? n : 2 * n, 10 + n);
      await expectSerialMeaning(k!, () => ({ Npts, n, r: Float64Array.from(r), fallback: Float64Array.from(fallback), weights: new Float64Array(Npts * 8) }),
        { weights: basisWeights(Npts, n, r, fallback) }, 1e-12, UNPROVEN);
    });
  }

  it("a compile-time selector picks the case while importing (no run-time choice left)", async () => {
    const src = BASIS.replace("const int Npts, const int n,", "const int Npts,").replace("basis_at(weights + e*8, fallback, n,", "basis_at(weights + e*8, fallback, NR,");
    const [k] = parseOkl(src, { defines: { NR: 3 } });
    expect(k!.temporaries.some((t) => t.name.startsWith("way"))).toBe(false);
    const r = seeded(2, 9), fallback = seeded(3, 4);
    await expectSerialMeaning(k!, () => ({ Npts: 2, r: Float64Array.from(r), fallback: Float64Array.from(fallback), weights: new Float64Array(16) }),
      { weights: basisWeights(2, 3, r, fallback) }, 1e-12);
  });
});

const GATHER = `${NODES}
#define VIEW(T, var, i) (const T*)((const char*)var##_base + (i)*var##_stride)

@kernel void gatherNodes(const int N,
                         const double *src_base, const int src_stride,
                         const int *kind_base, const int kind_stride,
                         @restrict const double *alt, double *out)
{
  for (int i = 0; i < N; ++i; @outer) {
    for (int t = 0; t < 2; ++t; @inner) {
      const int kd = *VIEW(int, kind, i);
      const double *s = VIEW(double, src, i);
      const double *q;
      if (kd == 0) q = nodes_3;
      else if (kd == 1) { q = s; }
      else q = alt + kd;
      const double *v = kd > 1 ? s + 1 : (kd == 1 ? nodes_4 + 2 : nodes_2);
      out[2*i + t] = q[t] + v[t];
    }
  }
}`;

describe("if/else chains, ?: and strided byte views", () => {
  const gather = async (kindOf: readonly number[], srcStride: number, kindStride: number): Promise<void> => {
    const [k] = parseOkl(GATHER);
    const N = kindOf.length; // strides in elements; the kernel takes bytes
    const src = seeded(N * srcStride, 2), alt = seeded(8, 3);
    const kinds = Int32Array.from({ length: N * kindStride }, (_, j) => (j % kindStride === 0 ? kindOf[j / kindStride]! : 99));
    const want = new Float64Array(2 * N);
    for (let i = 0; i < N; i++) {
      const kd = kinds[i * kindStride]!, s = src.slice(i * srcStride);
      const q = kd === 0 ? TABLES[3]! : kd === 1 ? s : alt.slice(kd);
      const v = kd > 1 ? s.slice(1) : kd === 1 ? TABLES[4]!.slice(2) : TABLES[2]!;
      for (let t = 0; t < 2; t++) want[2 * i + t] = q[t]! + v[t]!;
    }
    await expectSerialMeaning(k!, () => ({
      N, src_base: Float64Array.from(src), src_stride: 8 * srcStride, kind_base: kinds, kind_stride: 4 * kindStride,
      alt: Float64Array.from(alt), out: new Float64Array(2 * N),
    }), { out: want }, 0, UNPROVEN);
  };

  it("reads the chosen targets, with (T *)((char *)p + bytes) as p + bytes / sizeof(T)", () => gather([0, 1, 2, 5, 1, 0], 3, 2));

  it("property: for any kinds per element and any strides, each element reads the target its kind chose", async () => {
    const fc = await import("fast-check");
    await fc.assert(fc.asyncProperty(
      fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 3, max: 5 }), fc.integer({ min: 1, max: 3 }), // v reads s[1..2]: a row of at least 3
      (kinds, srcStride, kindStride) => gather(kinds, srcStride, kindStride)), { numRuns: 4 });
  });
});

describe("a local pointer assigned again in its block", () => {
  it("reads through the alias assigned last before each read", async () => {
    const [k] = parseOkl(`
@kernel void k(const int n, const float *a, const float *b, float *x) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    const float *p = a;
    const float y = p[i];
    p = b + 1;
    x[i] = y + p[i];
  }
}`);
    const n = 6, a = seeded(n, 5), b = seeded(n + 1, 6);
    const f32 = Math.fround;
    await expectSerialMeaning(k!, () => ({ n, a: Float32Array.from(a), b: Float32Array.from(b), x: new Float32Array(n) }),
      { x: a.map((v, i) => f32(f32(v) + f32(b[i + 1]!))) }, 0);
  });
});

describe("what stays refused, naming the construct and its place", () => {
  it("writing through a pointer chosen at run time between two offsets of one array", () => {
    // Writes through chosen pointers are accepted (test/okl/real-world-choice-writes.test.ts); two
    // targets in one array at different offsets are not: stores of different work-items may overlap.
    const err = oklError(() => parseOkl(`${NODES}
@kernel void k(const int n, double *a, double *b) {
  for (int i = 0; i < n; ++i; @outer) for (int t = 0; t < 2; ++t; @inner) {
    double *p;
    if (i % 2) p = a; else p = a + n;
    p[t] = 1.0;
  }
}`));
    expect([err.line, err.column]).toEqual([15, 5]);
    expect(err.message).toMatch(/cannot write through pointer "p": two of the targets it is chosen among are the same array "a" at different offsets/);
  });

  it("a switch that assigns a pointer and does something else", () => {
    const err = oklError(() => parseOkl(`${NODES}
@kernel void k(const int n, double *a) {
  for (int i = 0; i < n; ++i; @outer) for (int t = 0; t < 2; ++t; @inner) {
    const double *z; double s = 1;
    switch (n) { case 2: z = nodes_2; s = 2; break; default: z = a; }
    a[t] = z[t] * s;
  }
}`));
    expect([err.line, err.column]).toEqual([14, 39]);
    expect(err.message).toMatch(/a switch that assigns local pointer "z" may hold only assignments of those pointers/);
  });

  it("a byte view read as another type than its array's", () => {
    const err = oklError(() => parseOkl(`
@kernel void k(const int n, const double *x_base, const int x_stride, float *out) {
  for (int i = 0; i < n; ++i; @outer) for (int t = 0; t < 1; ++t; @inner) {
    const float *v = (const float*)((const char*)x_base + i*x_stride);
    out[i] = v[0];
  }
}`));
    expect(err.line).toBe(4);
    expect(err.message).toMatch(/a cast from a pointer to float64 to a pointer to float32 would read the float64 elements' bytes as float32 values/);
  });

  it("a byte stride that is not a whole number of elements is refused before launch, a constant one at import (C: misaligned)", async () => {
    const [k] = parseOkl(`@kernel void f(const int n, const double *a_base, const unsigned int a_stride, double *out) {
  for (int i = 0; i < n; ++i; @outer) for (int t = 0; t < 1; ++t; @inner) { out[i] = *(const double*)((const char*)a_base + i*a_stride); } }`);
    const a = Float64Array.from({ length: 8 }, (_, i) => i + 0.5);
    await expect(run(k!, { n: 3, a_base: a, a_stride: 12, out: new Float64Array(3) })).rejects.toThrow(/the byte stride "a_stride" = 12 is not a whole number of 8-byte elements/);
    expect(Array.from((await run(k!, { n: 3, a_base: a, a_stride: 16, out: new Float64Array(3) })).out as Float64Array)).toEqual([0.5, 2.5, 4.5]);
    const err = oklError(() => parseOkl(`@kernel void g(const int n, const double *x, double *out) {
  for (int i = 0; i < n; ++i; @outer) for (int t = 0; t < 1; ++t; @inner) { out[i] = *(const double*)((const char*)x + 12); } }`));
    expect(err.message).toMatch(/a byte offset of 12 is not a whole number of 8-byte elements/);
  });

  it("a byte pointer used as a pointer", () => {
    const err = oklError(() => parseOkl(`
@kernel void k(const int n, const double *x, double *out) {
  for (int i = 0; i < n; ++i; @outer) for (int t = 0; t < 1; ++t; @inner) {
    const char *v = (const char*)x + 8*i;
    out[i] = v[0];
  }
}`));
    expect(err.line).toBe(4);
    expect(err.message).toMatch(/a byte pointer `\(char \*\)…` is supported only inside `\(T \*\)\(\(char \*\)p \+ bytes\)`/);
  });
});
