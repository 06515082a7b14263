/**
 * `sizeof` as C computes it (issue 20): of a type (scalars, typedefs, structs mixing int and double
 * with C's padding, OCCA vector types), of an array (not decayed), of an element, a field, a
 * dereference or arithmetic; folded before validation, so @shared sizes may use it. A kernel in
 * the style of the element codes runs on interp and openmp against its serial meaning; the sizes
 * of random structs agree with the lowering's record layout (src/okl/lower/record-type.ts).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { recordType, type MemberSpec, type RecordType } from "../../src/okl/lower/record-type.js";
import type { Dtype } from "../../src/ir/index.js";
import { run } from "../../src/run/index.js";
import { oklError } from "./helpers.js";

/** The values `out[0..count)` the first kernel of `src` writes (one work-item), on the interpreter. */
async function written(src: string, count: number): Promise<number[]> {
  const [k] = parseOkl(src);
  const out = (await run(k!, { n: 1, out: new BigInt64Array(count) } as never, { backend: "interp" } as never)) as { out: BigInt64Array };
  return Array.from(out.out, Number);
}
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const DEFINES = { dfloat: "double", dlong: "int", p_Nfp: 5 };

// A face-data struct as boundary codes declare it: 4 + 4 (padding) + 8 + 24 = 40 bytes.
const FACE_PACK = `
typedef struct { int bc; dfloat x; dfloat n[3]; } face_t;

@kernel void packFaces(const dlong Nfaces, @restrict const dfloat *q, @restrict dfloat *out) {
  for (dlong f = 0; f < Nfaces; ++f; @outer(0)) {
    @shared dfloat s_q[p_Nfp][2];
    @shared dfloat s_w[sizeof(face_t) / sizeof(dfloat)];
    for (int n = 0; n < p_Nfp; ++n; @inner(0)) {
      s_q[n][0] = q[f*p_Nfp + n];
      s_q[n][1] = 2*q[f*p_Nfp + n];
      if (n < sizeof(s_w) / sizeof(s_w[0])) s_w[n] = 0.5*n;
    }
    for (int n = 0; n < p_Nfp; ++n; @inner(0)) {
      const int Ncols = sizeof(s_q[0]) / sizeof(dfloat);
      const int Nrows = sizeof s_q / sizeof(s_q[0]);
      const dlong stride = sizeof(face_t) / sizeof(double);
      dfloat acc = s_w[(n + 2) % Nrows];
      for (int c = 0; c < Ncols; ++c) acc += s_q[(n + 1) % Nrows][c];
      out[f*p_Nfp*stride + n*stride] = acc + (sizeof(dlong) == 4 ? 100 : 200) + sizeof(float4) + sizeof(*q);
    }
  }
}`;

describe("sizeof folds to C's value", () => {
  it("a face-packing kernel: strides and counts from sizeof agree with the serial meaning", async () => {
    const [k] = parseOkl(FACE_PACK, { defines: DEFINES });
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 99 }), async (Nfaces, seed) => {
      const q = seeded(Nfaces * 5, seed);
      const out = new Float64Array(Nfaces * 5 * 5);
      for (let f = 0; f < Nfaces; f++) {
        for (let n = 0; n < 5; n++) out[f * 25 + n * 5] = 0.5 * ((n + 2) % 5) + 3 * q[f * 5 + ((n + 1) % 5)]! + 100 + 16 + 8;
      }
      await expectSerialMeaning(k!, () => ({ Nfaces, q: Float64Array.from(q), out: new Float64Array(Nfaces * 25) }), { out }, 1e-14);
    }), { numRuns: 3 });
  });

  it("sizes of types, arrays, fields and expressions are C's (x86-64 / aarch64)", async () => {
    const cases: [string, number][] = [
      ["sizeof(char)", 1], ["sizeof(short)", 2], ["sizeof(long long)", 8], ["sizeof(unsigned long)", 8],
      ["sizeof(float *)", 8], ["sizeof(double[3][4])", 96], ["sizeof(int2)", 8], ["sizeof(double3)", 24],
      ["sizeof(struct mix)", 24], ["sizeof(m)", 24], ["sizeof(m.c)", 1], ["sizeof(m.v)", 8], ["sizeof(pm->d)", 8], ["sizeof(*pm)", 24],
      ["sizeof(arr) / sizeof(arr[0])", 7], ["sizeof(arr[0] + 1)", 4], ["sizeof(1.0f)", 4], ["sizeof(1.0)", 8], ["sizeof 'a'", 4],
      ["sizeof(2UL)", 8], ["sizeof(i * 1.5f)", 4], ["sizeof(i < 2)", 4], ["sizeof(union u_t)", 16], ["sizeof(&arr[0])", 8], ["sizeof(half)", 2],
      ["sizeof(sizeof(int))", 8], ["sizeof(twice(1))", 8], ["sizeof(K)", 4],
    ];
    const src = `struct mix { char c; double d; int v[2]; };
union u_t { char c[13]; double d; };
enum { K = 3 };
double twice(double x) { return 2 * x; }
@kernel void f(const int n, long *out) {
  for (int b = 0; b < n; ++b; @outer) for (int i = 0; i < 1; ++i; @inner) {
    struct mix m; struct mix *pm = &m; int arr[7];
    ${cases.map(([e], j) => `out[${j}] = ${e};`).join("\n    ")}
  }
}`;
    expect(await written(src, cases.length)).toEqual(cases.map(([, v]) => v));
  });

  it("names what it cannot size, with the operand and what is accepted", () => {
    const bad = (body: string) => oklError(() => parseOkl(`@kernel void f(const int n, double *y) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { ${body} } }`));
    const e1 = bad("y[i] = sizeof(sqrt(y[i]));");
    expect(e1.message).toMatch(/sizeof: the result type of "sqrt\(\.\.\.\)" is not known/);
    expect(e1.message).toMatch(/accepted are sizeof of a type/);
    expect(e1.line).toBe(2);
    expect(bad("y[i] = sizeof(undeclared);").message).toMatch(/"undeclared" is not a variable declared before this point/);
    expect(bad("y[i] = sizeof(void);").message).toMatch(/incomplete type \(void\)/);
    expect(bad("y[i] = sizeof(y[i].x);").message).toMatch(/has no field "x"/);
  });
});

/** A random field of a struct: a scalar or an array of one (dtype, C name), or a nested struct. */
type Field = { readonly dtype: Dtype; readonly c: string; readonly n: number } | { readonly nested: readonly Field[]; readonly n: number };
const SCALARS: readonly (readonly [Dtype, string])[] = [["int8", "char"], ["int16", "short"], ["int32", "int"], ["float32", "float"], ["float64", "double"], ["int64", "long"]];
const field: fc.Memo<Field> = fc.memo((depth) => depth <= 1
  ? fc.record({ s: fc.constantFrom(...SCALARS), n: fc.integer({ min: 1, max: 3 }) }).map(({ s, n }) => ({ dtype: s[0], c: s[1], n }))
  : fc.oneof(field(1), fc.record({ nested: fc.array(field(depth - 1), { minLength: 1, maxLength: 3 }), n: fc.integer({ min: 1, max: 2 }) })));

describe("struct sizes agree with the lowering's record layout", () => {
  it("random structs of scalars, arrays and nested structs", async () => {
    const layout = (fs: readonly Field[], name: string): RecordType =>
      recordType(name, fs.map((f, j): MemberSpec => "nested" in f ? { name: `f${j}`, dims: [f.n], type: layout(f.nested, `${name}_${j}`) } : { name: `f${j}`, dims: [f.n], dtype: f.dtype }));
    const decl = (fs: readonly Field[]): string =>
      `struct { ${fs.map((f, j) => "nested" in f ? `${decl(f.nested)} f${j}[${f.n}];` : `${f.c} f${j}[${f.n}];`).join(" ")} }`;
    await fc.assert(fc.asyncProperty(fc.array(field(3), { minLength: 1, maxLength: 4 }), async (fs) => {
      const [v] = await written(`typedef ${decl(fs)} s_t;
@kernel void f(const int n, long *out) { for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) out[i] = sizeof(s_t); }`, 1);
      expect(v).toBe(layout(fs, "s").size);
    }), { numRuns: 30 });
  });
});
