/**
 * C++ records and declarations the OKL front end lowers with C's meaning: classes (structs with
 * access specifiers), static constant members (`S::a`), `= default` copy assignments (the plain
 * copy), member functions and constructors that are declared but never run, `enum class` values
 * (ints), `auto x = e;`, `std::` math functions. Member function calls and the other C++ forms stay
 * OklErrors (rule "OKL subset") with line and column.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { parseOklAst } from "../../src/okl/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { oklError, only, TARGETS, values } from "./helpers.js";
const loop = (body: string) => `for (int i = 0; i < 4; ++i; @tile(4, @outer, @inner)) { ${body} }`;

describe("classes: data members, static constants, member functions that are never called", () => {
  const SRC = `
constexpr float f = 13;
class Pair {
public:
  static constexpr int scale = 2 + 2;
  static const float bias = 0.5f;
  Pair(float a) : x(a), y{a} {}
  ~Pair() {}
  inline float sum() const { return x + y; }
  static inline void nothing() { }
  template <typename U> U as(float v);
  Pair &operator=(const Pair &) = default;
private:
  float x;
  float y;
};
template <int A, int B> class Tagged;
template <int B> class Tagged<0, B> { public: static inline void f() { } };

@kernel void k(const Pair *in, Pair *out, float *o) {
  ${loop("out[i] = in[i]; o[i] = Pair::scale * in[i].x + Pair::bias + f;")}
}`;

  it("a class is a struct of its data members; S::a is the constant; = default is the plain copy", async () => {
    const k = only(SRC);
    expect(k.args.map((a) => [a.name, a.dtype])).toEqual([["in", "float32"], ["out", "float32"], ["o", "float32"]]);
    const inp = Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
    const r = await run(k, { in: inp, out: new Float32Array(8), o: new Float32Array(4) });
    expect(values(r.out)).toEqual(values(inp));
    expect(values(r.o)).toEqual([1, 3, 5, 7].map((x) => 4 * x + 0.5 + 13));
    for (const t of TARGETS) expect(() => generateCode(k, t)).not.toThrow();
  });

  it("calling a member function of a class outside the class subset is an OklError at the call (in the subset: real-world-plain-class.test.ts)", () => {
    const e = oklError(() => only(`
struct P { float x; float twice() { return 2 * x; } ~P() {} };
@kernel void k(const P *p, float *o) {
  ${loop("o[i] = p[i].twice();")}
}`));
    expect(e.rule).toBe("OKL subset");
    expect(e.detail).toBe(`C++ member function call ".twice(…)": member functions are parsed, not lowered`);
    expect([e.line, e.column]).toEqual([4, 66]);
  });

  it("initializing an object of a class outside the class subset is that class's refusal (real-world-plain-class.test.ts)", () => {
    const e = oklError(() => parseOklAst(`
struct P { float x; P(float a) : x(a) {} ~P() {} };
@kernel void k(float *o) {
  ${loop("P p(1.0f); o[i] = p.x;")}
}`));
    expect([e.rule, e.line, e.column]).toEqual(["OKL subset", 2, 42]);
    expect(e.detail).toMatch(/C\+\+ destructors/);
  });

  it("constructor-style initialization of a struct without a constructor stays an error", () => {
    const e = oklError(() => parseOklAst(`
struct P { float x; };
@kernel void k(float *o) {
  ${loop("P p(1.0f); o[i] = p.x;")}
}`));
    expect([e.rule, e.line, e.column]).toEqual(["OKL subset", 4, 62]);
    expect(e.detail).toMatch(/C\+\+ constructor-style initialization/);
  });
});

describe("enums", () => {
  it("enum class values are ints named E::A; enumerators count from the previous value", async () => {
    const k = only(`
enum class Mode : int { Plain = 1, Twice, Skip = 10 };
enum Colour { Red, Green = 5, Blue };
typedef struct { Mode m; int v; } Item;
@kernel void k(const Item *items, float *o) {
  ${loop("o[i] = items[i].m == Mode::Twice ? 2 * items[i].v : items[i].m == Mode::Skip ? 0 : items[i].v + Blue;")}
}`);
    const items = Int32Array.from([1, 3, 2, 3, 10, 3, 2, 5]); // (m, v) pairs
    const r = await run(k, { items, o: new Float32Array(4) });
    expect(values(r.o)).toEqual([3 + 6, 6, 0, 10]);
  });

  it("an underlying type other than int is an error", () => {
    const e = oklError(() => parseOklAst("enum class E : char { A };"));
    expect([e.rule, e.line, e.column, e.detail]).toEqual(["OKL subset", 1, 16, "C++ enums with an underlying type other than int: outside Loom's OKL subset (C with OKL attributes)"]);
  });
});

describe("auto and std:: functions", () => {
  it("auto x = e has the type of e; std::sqrt is sqrt; isnan(x) is x != x; __exp10f is 10^x", async () => {
    const k = only(`
@kernel void k(const float *a, const int *n, float *o, int *m, int *nan) {
  ${loop("auto t = a[i] * 2; auto c = n[i] + 1; auto ok = std::isnan(a[i]); o[i] = std::sqrt(t) + __exp10f(1.0f); m[i] = c / 2; nan[i] = ok;")}
}`);
    const a = Float32Array.from([2, 8, NaN, 0.5]);
    const r = await run(k, { a, n: Int32Array.from([1, 2, 3, 4]), o: new Float32Array(4), m: new Int32Array(4), nan: new Int32Array(4) });
    expect(values(r.o).slice(0, 2)).toEqual([2 + 10, 4 + 10]);
    expect(values(r.m)).toEqual([1, 1, 2, 2]); // integer division: c is an int
    expect(values(r.nan)).toEqual([0, 0, 1, 0]);
    for (const t of TARGETS) expect(() => generateCode(k, t)).not.toThrow();
  });

  it("auto without an initializer, and auto with a brace list, are errors", () => {
    const e = oklError(() => parseOklAst(`@kernel void k(float *o) { ${loop("auto x; o[i] = 1;")} }`));
    expect([e.rule, e.detail.split(":")[0]]).toEqual(["OKL subset", "C++ auto type deduction"]);
    const a = oklError(() => only(`@kernel void k(float *o) { ${loop("auto x = {1, 2}; o[i] = 1;")} }`));
    expect([a.rule, a.detail]).toEqual(["OKL subset", "C++ auto: only `auto x = expression;` declaring one scalar is supported"]);
  });
});

describe("sources with no single meaning stay errors, with line:column", () => {
  it("assigning an OKL loop's variable (OCCA: serial ends the loop, GPU changes one work-item's copy)", () => {
    const e = oklError(() => only(`
@kernel void k(float *o) {
  @outer for (int i = 0; i < 4; ++i) {
    @inner for (int j = 0; j < 4; ++j) { o[i] = j; j += 4; }
  }
}`));
    expect([e.line, e.column]).toEqual([4, 52]);
    expect(e.detail).toMatch(/^cannot assign to "j": it is the variable of an enclosing loop/);
  });

  it("reading through an uninitialized local pointer (reported at the read: a later `tmp = a;` would bind it)", () => {
    const e = oklError(() => only(`@kernel void k(float *o) { ${loop("float *tmp; o[i] = tmp[i];")} }`));
    expect([e.line, e.column]).toEqual([1, 103]);
    expect(e.detail).toMatch(/^local pointer "tmp" is read before it is assigned/);
  });

  it("an @outer loop without an init-statement (OCCA's openmp pragma test, parsed with validation off)", () => {
    const e = oklError(() => parseOkl("@kernel void k() {\n  for (;;; @outer) {}\n}", { structure: false }));
    expect([e.line, e.column, e.rule]).toEqual([2, 3, "OKL §3.1"]);
    expect(e.detail).toMatch(/^OKL for loop init-statement cannot be a null statement/);
  });
});
