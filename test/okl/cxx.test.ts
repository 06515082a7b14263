/**
 * The C++ the OKL front end accepts (struct templates, namespaces of types, functional casts), and
 * the struct forms the lowering accepts beyond one-scalar structs: fields of one size differing in
 * signedness, structs passed by value (flattened), pointer typedefs. Each runs with the values C
 * gives; what stays unsupported is an OklError with line and column.
 */
import { describe, expect, it } from "vitest";
import { OklError } from "../../src/errors.js";
import { parseOklAst } from "../../src/okl/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { generateCode } from "../../codegen/index.js";
import { run } from "../../src/run/index.js";
import { availableNative } from "../run/native-helpers.js";
import { oklError, only, TARGETS, values } from "./helpers.js";

describe("struct templates are instantiated where they are used", () => {
  const SRC = `
template <class T>
struct ComplexType { T real; T imag; };

template <typename T, int N>
struct Vec { T v[N]; };

@kernel void k(const int n, const ComplexType<float> *a, ComplexType<float> *sum, const Vec<int, 3> *w, Vec<double, 2> *o) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    @atomic sum->real += a[i].real;
    @atomic sum->imag += a[i].imag;
    o[i].v[0] = w[i].v[0] + w[i].v[2];
    o[i].v[1] = w[i].v[1];
  }
}`;

  it("ComplexType<float> is struct { float real, imag; }, Vec<int, 3> is struct { int v[3]; }", async () => {
    const k = only(SRC);
    expect(k.args.map((x) => [x.name, x.dtype])).toEqual([["n", "int32"], ["a", "float32"], ["sum", "float32"], ["w", "int32"], ["o", "float64"]]);
    const n = 4;
    const a = Float32Array.from({ length: 2 * n }, (_, k) => k);
    const w = Int32Array.from({ length: 3 * n }, (_, k) => k);
    const out = await run(k, { n, a, sum: new Float32Array(2), w });
    expect(values(out.sum)).toEqual([0 + 2 + 4 + 6, 1 + 3 + 5 + 7]);
    expect(values(out.o)).toEqual([0 + 2, 1, 3 + 5, 4, 6 + 8, 7, 9 + 11, 10]);
    for (const t of TARGETS) expect(() => generateCode(k, t)).not.toThrow();
  });

  it("one instance per argument list; a template argument may be an instance (C<C<float> >)", () => {
    const unit = parseOklAst(`
template <class T> struct C { T re, im; };
@kernel void k(C<C<float> > *p, C<float> *q, float *out) {
  for (int i = 0; i < 2; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) out[i] = p[i].re.im + q[i].im;
}`);
    const f = unit.items.find((x) => x.kind === "function")!;
    if (f.kind !== "function") throw new Error();
    const names = f.params.map((p) => (p.spec.base.kind === "struct" ? p.spec.base.name : p.spec.base.kind));
    expect(names).toEqual(["C<C<float>>", "C<float>", "builtin"]);
    const k = parseOkl(`
template <class T> struct C { T re, im; };
@kernel void k(C<C<float> > *p, float *out) {
  for (int i = 0; i < 2; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) out[i] = p[i].re.im + p[i].im.re;
}`)[0]!;
    expect(k.args.find((a) => a.name === "p")?.dtype).toBe("float32");
  });

  it.each([
    ["a function template", "template <typename T> T f(T x) { return x; }", 1, 1, /C\+\+ templates \(only struct templates are supported, not function templates\)/],
    ["a template with a specialization, where it is instantiated", "template <class T> struct S { T x; };\ntemplate <> struct S<int> { int x; };\n@kernel void k(S<float> *s) {}", 3, 16, /C\+\+ template specializations \(struct template "S" has specializations/],
    ["a template with a partial specialization, where it is instantiated", "template <int A, int B> struct S { int x[A]; };\ntemplate <int B> struct S<0, B> { int x; };\n@kernel void k(S<1, 2> *s) {}", 3, 16, /C\+\+ template specializations/],
    ["a template declared without a definition, where it is used", "template <class T> struct S;\n@kernel void k(S<float> *s) {}", 2, 16, /C\+\+ template declarations without a definition/],
    ["a default argument", "template <class T = float> struct S { T x; };", 1, 19, /C\+\+ default template arguments/],
    ["a user-defined operator", "struct S { float x; S &operator=(const S &o) { x = o.x; return *this; } };", 1, 24, /C\+\+ operator overloading \(only `= default` operators are supported\)/],
    ["a static data member that is not const", "struct S { static int n; };", 1, 12, /C\+\+ static data members that are not const/],
    ["a template used without arguments", "template <class T> struct S { T x; };\n@kernel void k(S *s) {}", 2, 18, /struct template "S" used without arguments/],
    ["`>>` closing nested arguments", "template <class T> struct S { T x; };\n@kernel void k(S<S<float>> *s) {}", 2, 25, /write nested template arguments with a space/],
  ])("%s is an OKL subset error at its line and column", (_, src, line, column, re) => {
    const e = oklError(() => parseOklAst(src, { filename: "t.okl" }));
    expect(e.rule).toBe("OKL subset");
    expect(e.detail).toMatch(re);
    expect([e.line, e.column]).toEqual([line, column]);
  });
});

describe("namespaces of types", () => {
  const SRC = `
namespace A {
template <class T>
struct Complex { T real; T imaginary; };
namespace B {
struct Configs { int size1; int size2; };
namespace C {
typedef int SIZE_TYPE;
typedef SIZE_TYPE SIZES;
}
}
}
@kernel void k(const A::Complex<float> *v, const A::B::Configs *cfg, A::B::C::SIZES *out) {
  for (int i = 0; i < 2; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) out[i] = cfg[i].size1 * 10 + cfg[i].size2 + (int)v[i].imaginary;
}`;

  it("A::B::C::SIZES is int, A::B::Configs a struct, A::Complex<float> an instance (names looked up innermost first)", async () => {
    const k = only(SRC);
    expect(k.args.map((x) => [x.name, x.dtype])).toEqual([["v", "float32"], ["cfg", "int32"], ["out", "int32"]]);
    const out = await run(k, { v: new Float32Array([0, 5, 0, 7]), cfg: new Int32Array([1, 2, 3, 4]) });
    expect(values(out.out)).toEqual([12 + 5, 34 + 7]);
  });

  it.each([
    ["a function in a namespace", "namespace A { void f() {} }", 1, 15, /C\+\+ namespaces \(functions in a namespace; only types are supported\)/],
    ["a variable in a namespace", "namespace A { const int n = 4; }", 1, 15, /C\+\+ namespaces \(variables in a namespace; only types are supported\)/],
    ["an anonymous namespace", "namespace { struct S { int x; }; }", 1, 11, /C\+\+ anonymous namespaces/],
    ["an unknown qualified name", "@kernel void k(X::S *s) {}", 1, 16, /C\+\+ scope resolution \(no namespace or type "X" is declared\)/],
  ])("%s is an OKL subset error at its line and column", (_, src, line, column, re) => {
    const e = oklError(() => parseOklAst(src, { filename: "t.okl" }));
    expect(e.rule).toBe("OKL subset");
    expect(e.detail).toMatch(re);
    expect([e.line, e.column]).toEqual([line, column]);
  });
});

describe("functional casts and exp10f", () => {
  it("int(x) is (int)(x); okl_exp10f(x) is 10^x", async () => {
    const k = only(`
typedef float real_t;
@kernel void k(const float *a, int *o, float *e) {
  for (int i = 0; i < 3; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) {
    o[i] = int(a[i]) + int(real_t(2.5f));
    e[i] = okl_exp10f(real_t(i));
  }
}`);
    const out = await run(k, { a: new Float32Array([1.7, -1.7, 3]) });
    expect(values(out.o)).toEqual([3, 1, 5]);
    expect(values(out.e).map((x) => Math.round(x))).toEqual([1, 10, 100]);
  });
});

describe("struct fields of one size that differ only in signedness share storage", () => {
  const SRC = `
struct M { unsigned int a; int b; };
@kernel void k(M *v, const int *d, M *acc) {
  for (int i = 0; i < 4; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) {
    v[i].b += d[i];
    v[i].a = v[i].b / 2;
    M t = { -1, -3 };
    v[i].b = v[i].b + t.b / 2;
    @atomic acc->b -= 1;
    @atomic acc->a++;
  }
}`;
  const expected = [-2, -6, 3, 6, -4, -10, 1, 1];

  it("reads convert to the field's type (signed division), writes keep C's bits; atomic updates too", async () => {
    const k = only(SRC);
    expect(k.args.find((a) => a.name === "v")?.dtype).toBe("uint32");
    const out = await run(k, { v: new Uint32Array(8), d: new Int32Array([-5, 7, -9, 2]), acc: new Uint32Array(2) });
    expect(values(new Int32Array((out.v as Uint32Array).buffer))).toEqual(expected);
    expect(values(new Int32Array((out.acc as Uint32Array).buffer))).toEqual([4, -4]);
    for (const t of TARGETS) expect(() => generateCode(k, t)).not.toThrow();
  });

  for (const backend of availableNative(["c", "openmp"])) {
    it(`on ${backend}, the same`, async () => {
      const out = await run(only(SRC), { v: new Uint32Array(8), d: new Int32Array([-5, 7, -9, 2]), acc: new Uint32Array(2) }, { backend });
      expect(values(new Int32Array((out.v as Uint32Array).buffer))).toEqual(expected);
      expect(values(new Int32Array((out.acc as Uint32Array).buffer))).toEqual([4, -4]);
    });
  }

  it("a float field next to an int field: the pointer is split into one array per field used", () => {
    const k = only(`struct F { float x; int n; };
@kernel void k(F *f, float *o) { for (int i = 0; i < 2; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) o[i] = f[i].x; }`);
    expect(k.args.map((a) => `${a.name}:${a.dtype}`)).toEqual(["f_x:float32", "o:float32"]);
  });
});

describe("structs passed by value are flattened, one argument per field read", () => {
  const SRC = `
typedef float *A;
struct CC { float ccc; };
struct C { CC cc; int *ptr; float d[3]; int m[2][2]; };
@kernel void k(const int n, const A a, const C c, float *ab) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    ab[i] = a[i] + c.cc.ccc + c.d[2] + c.m[1][0] + c.ptr[i];
  }
}`;

  it("c.cc.ccc -> value c_cc_ccc, c.d -> array c_d, c.ptr -> array c_ptr, in field order where c was; pointer typedef A is float *", async () => {
    const k = only(SRC);
    expect(k.args.map((x) => [x.name, x.kind, x.dtype])).toEqual([
      ["n", "value", "int32"], ["a", "array", "float32"], ["c_cc_ccc", "value", "float32"], ["c_ptr", "array", "int32"],
      ["c_d", "array", "float32"], ["c_m", "array", "int32"], ["ab", "array", "float32"],
    ]);
    const n = 4;
    const out = await run(k, {
      n, a: new Float32Array([1, 2, 3, 4]), c_cc_ccc: 10, c_ptr: new Int32Array([100, 200, 300, 400]),
      c_d: new Float32Array([0, 0, 1000]), c_m: new Int32Array([0, 0, 5000, 0]),
    });
    expect(values(out.ab)).toEqual([6111, 6212, 6313, 6414]);
    for (const t of TARGETS) expect(() => generateCode(k, t)).not.toThrow();
  });

  it("fields never read are no arguments; an array of one-scalar structs is a struct array", async () => {
    const k = only(`
typedef struct { int v; } S1;
typedef struct { S1 vals[3]; float *unused; } S;
@kernel void k(S s, int *o) {
  for (int i = 0; i < 3; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) o[i] = s.vals[i].v * 2;
}`);
    expect(k.args.map((x) => x.name)).toEqual(["s_vals", "o"]);
    const out = await run(k, { s_vals: new Int32Array([1, 2, 3]) });
    expect(values(out.o)).toEqual([2, 4, 6]);
  });

  it("assigning to a field of a struct passed by value is an error (C assigns a copy)", () => {
    const body = (s: string) => () => parseOkl(`struct P { float x; float d[2]; };
@kernel void k(P p, float *o) { for (int i = 0; i < 2; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) { ${s} o[i] = 0; } }`);
    expect(body("p.d[0] = 1;")).toThrow(/"p_d" is a field of a struct passed by value \(a copy in C\); assigning to it is not supported/);
    expect(body("p.x = 1;")).toThrow(OklError);
  });
});
