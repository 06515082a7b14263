/**
 * Structs whose fields all have one scalar type: an array of them is an array of that scalar with
 * one more, innermost axis (C's layout, so the caller's bytes mean what they mean in C). Others are
 * OklErrors that name the struct and the reason.
 */
import { describe, expect, it } from "vitest";
import { OklError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { availableNative } from "../run/native-helpers.js";

const only = (src: string): Kernel => parseOkl(src)[0]!;
const shapeOf = (k: Kernel, name: string) => {
  const a = k.args.find((x) => x.name === name);
  return a?.kind === "array" ? a.shape?.map((e) => (e.kind === "const" ? e.value : e.kind === "var" ? e.name : "?")) : undefined;
};

const CMUL = `
typedef struct { float re, im; } Complex;
@kernel void cmul(const int n, const Complex *a, const Complex *b, Complex *c) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    c[i].re = a[i].re * b[i].re - a[i].im * b[i].im;
    c[i].im = a[i].re * b[i].im + a[i].im * b[i].re;
  }
}`;

const values = (x: unknown): number[] => Array.from(x as ArrayLike<number>);
/** n complex numbers as C lays them out: re0, im0, re1, im1, … */
const complexes = (n: number, f: (i: number) => [number, number]) => Float32Array.from({ length: 2 * n }, (_, k) => f(k >> 1)[k & 1]!);

describe("a pointer to a struct of one scalar type is an array with a field axis", () => {
  it("Complex *a becomes float32 a[n, 2]; a[i].im is a[i, 1]", () => {
    const k = only(CMUL);
    expect(k.args.map((a) => [a.name, a.dtype])).toEqual([["n", "int32"], ["a", "float32"], ["b", "float32"], ["c", "float32"]]);
    expect(shapeOf(k, "c")).toEqual(["n", 2]);
  });

  const n = 7;
  const a = complexes(n, (i) => [i + 1, -i]);
  const b = complexes(n, (i) => [0.5, i]);
  // (x + iy)(u + iv) = (xu - yv) + i(xv + yu)
  const want = complexes(n, (i) => [(i + 1) * 0.5 - -i * i, (i + 1) * i + -i * 0.5]);

  it("on the interpreter, a Float32Array of 2n values gives C's products", async () => {
    const out = await run(only(CMUL), { n, a, b });
    expect(values(out.c)).toEqual(Array.from(want));
  });

  for (const backend of availableNative(["c"])) {
    it(`on ${backend}, the same`, async () => {
      const out = await run(only(CMUL), { n, a, b }, { backend });
      expect(values(out.c)).toEqual(Array.from(want));
    });
  }

  it("`struct S` spellings, p->f, *p, and whole-struct copies (one assignment per field)", async () => {
    const k = only(`
struct Pair { int x; int y; };
@kernel void swap(const int n, struct Pair *p, Pair *q, struct Pair *first) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    struct Pair t = p[i];
    q[i] = t;
    p[i].x = t.y;
    p[i].y = t.x;
    if (i == 0) { first->x = t.x; (*first).y = t.y; }
  }
}`);
    const p = Int32Array.from([1, 2, 3, 4, 5, 6]);
    const out = await run(k, { n: 3, p, q: new Int32Array(6), first: new Int32Array(2) });
    expect(values(out.p)).toEqual([2, 1, 4, 3, 6, 5]);
    expect(values(out.q)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(values(out.first)).toEqual([1, 2]);
  });

  it("array fields and nested structs of the same scalar flatten in C's order", async () => {
    const k = only(`
typedef struct { float v[3]; } Vec3;
struct Seg { Vec3 from; Vec3 to; };
@kernel void len2(const int n, const struct Seg *s, float *out) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    float acc = 0;
    for (int d = 0; d < 3; ++d) acc += (s[i].to.v[d] - s[i].from.v[d]) * (s[i].to.v[d] - s[i].from.v[d]);
    out[i] = acc;
  }
}`);
    expect(shapeOf(k, "s")).toEqual(["n", 6]);
    const s = Float32Array.from([0, 0, 0, 1, 2, 2, /* */ 1, 1, 1, 1, 1, 4]);
    const out = await run(k, { n: 2, s });
    expect(values(out.out)).toEqual([9, 9]);
  });

  it("@shared and @exclusive struct arrays are local/private temporaries with a field axis", async () => {
    const k = only(`
typedef struct { float re, im; } Complex;
@kernel void rev(const Complex *a, Complex *b) {
  for (int g = 0; g < 2; ++g; @outer) {
    @shared Complex s[4];
    @exclusive Complex e;
    for (int j = 0; j < 4; ++j; @inner) { s[j] = a[4 * g + j]; e.re = j; e.im = 0.5f; }
    for (int j = 0; j < 4; ++j; @inner) { b[4 * g + j].re = s[3 - j].re + e.re; b[4 * g + j].im = s[3 - j].im + e.im; }
  }
}`);
    expect(k.temporaries.map((t) => [t.addressSpace, t.shape.map((e) => (e.kind === "const" ? e.value : "?"))])).toEqual(
      expect.arrayContaining([["local", [4, 2]], ["private", [2]]]));
    const a = complexes(8, (i) => [i, 10 * i]);
    const out = await run(k, { a });
    const g = (i: number) => 4 * (i >> 2) + 3 - (i & 3);
    expect(values(out.b)).toEqual(Array.from(complexes(8, (i) => [g(i) + (i & 3), 10 * g(i) + 0.5])));
  });

  it("a struct local initialized with {…} and @atomic updates of a field", async () => {
    const k = only(`
struct Masks { unsigned int lo; unsigned int hi; };
@kernel void f(const Masks *m, Masks *acc) {
  for (int i = 0; i < 2; ++i; @outer) {
    for (int j = 0; j < 4; ++j; @inner) {
      Masks init = {1u, 2u};
      @atomic acc->lo |= m[4 * i + j].lo | init.lo;
      @atomic acc->hi |= m[4 * i + j].hi | init.hi;
    }
  }
}`);
    const m = Uint32Array.from({ length: 16 }, (_, x) => 1 << (x + 2));
    const out = await run(k, { m, acc: new Uint32Array(2) });
    const lo = [0, 2, 4, 6, 8, 10, 12, 14].reduce((p, x) => p | (1 << (x + 2)), 1);
    const hi = [1, 3, 5, 7, 9, 11, 13, 15].reduce((p, x) => p | (1 << (x + 2)), 2);
    expect(values(out.acc)).toEqual([lo >>> 0, hi >>> 0]);
  });
});

describe("structs that are not arrays of one scalar are OklErrors naming the struct and why", () => {
  const kernelWith = (decl: string, arg: string, use = "") => () => parseOkl(`${decl}
@kernel void f(${arg}, float *out) {
  for (int i = 0; i < 4; ++i; @outer) { for (int j = 0; j < 4; ++j; @inner) { out[j] = 0; ${use} } }
}`);
  it.each([
    // Mixed fields (`{ float a; int b[2]; }`, nested structs) are split into field arrays: test/okl/real-world-structs.test.ts, record-fields.test.ts.
    ["typedef struct { float *p; } Holder;", "Holder *h", "out[j] = h[0].p[j];", /struct "Holder" cannot be lowered: field "p" is a pointer/],
    ["union U { float f; int i; };", "union U *u", "out[j] = u[j].f;", /struct "U" cannot be lowered: it is a union/],
    ["struct In { float x; double *d; }; struct Out { struct In in; float y; };", "Out *o", "out[j] = o[j].y;", /struct "Out" cannot be lowered: field type "In" cannot be lowered \(field "d" is a pointer \(line 1:29\)/],
    ["struct P { float x, y; };", "const P p", "out[j] = p;", /struct argument "p" passed by value is used whole; only its fields can be read/],
    ["struct P { float x, y; };", "const P p", "out[j] = p.z;", /struct "P" has no field "z"; its fields are x, y/],
  ])("%s", (decl, arg, use, msg) => {
    expect(kernelWith(decl, arg, use)).toThrow(OklError);
    expect(kernelWith(decl, arg, use)).toThrow(msg);
  });

  it("an argument Loom cannot represent is left out while unused, and an error where it is used", () => {
    const H = "typedef struct { float *p; } Holder;";
    const k = only(`${H}\n@kernel void f(Holder *h, float **pp, float *out) {
  for (int i = 0; i < 4; ++i; @outer) { for (int j = 0; j < 4; ++j; @inner) { float h = 1; out[j] = h; } }
}`);
    expect(k.args.map((a) => a.name)).toEqual(["out"]);
    expect(kernelWith("", "float **pp", "out[j] = pp[0][j];")).toThrow(/argument "pp": pointers to pointers are not supported \(an argument Loom cannot represent is left out/);
  });

  it("a whole struct used as a scalar, an unknown field, a struct assigned a scalar", () => {
    const S = "struct P { float x, y; };";
    expect(kernelWith(S, "P *p", "out[j] = p[j];")).toThrow(/a value of struct "P" is used as a scalar; use one of its fields \(x, y\)/);
    expect(kernelWith(S, "P *p", "out[j] = p[j].z;")).toThrow(/struct "P" has no field "z"; its fields are x, y/);
    expect(kernelWith(S, "P *p", "p[j] = out[j];")).toThrow(/struct "P" can only be assigned a value of struct "P"/);
    expect(kernelWith(S, "P *p", "p[j] += p[0];")).toThrow(/whole structs can only be copied with "=" \(not "\+="\)/);
  });
});
