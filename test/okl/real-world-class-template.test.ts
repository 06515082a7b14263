/**
 * C++ class templates with a constructor and member functions, as OCCA's new-transpiler examples
 * write a work-group's window object: built in the @outer loop over @shared tiles, its methods called
 * per work-item (with barriers inside them). Loom reads the subset that is C plus methods: data
 * fields, a constructor initializing them, member functions reading and writing them (`this`
 * implied), constant template arguments; the object is a struct local and each method a device
 * function taking it by address. Kernels written here, run on interp and openmp against their
 * serial meaning; what stays outside is refused naming the construct and its place.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const f32 = Math.fround;

const WINDOW = `
#define GROUP 8
#define HALO 3

template <class T, int G, int H>
struct BlurWindow {
  BlurWindow(int n, T *tile, T *blurred)
    : _n(n)
    , _tile(tile)
    , _out(blurred)
    , _scale(1)
  {}

  void setScale(T s) { _scale = s; }

  T weight(int k) const { return this->_scale * (T)(k + 1); }

  void load(const T *in, int g, int t) {
    const int id = g * G + t;
    _tile[t] = id < _n ? in[id] : T();
    if (t < H) {
      const int tail = (g + 1) * G + t;
      _tile[G + t] = tail < _n ? in[tail] : T();
    }
    @barrier;
  }

  void blur(int t) {
    T acc = T();
    for (int k = 0; k <= H; ++k) {
      acc += weight(k) * _tile[t + k];
    }
    _out[t] = acc;
    @barrier;
  }

  void store(T *result, int g, int t) {
    const int id = g * G + t;
    if (id < _n) result[id] = _out[t];
  }

private:
  int _n;
  T *_tile;
  T *_out;
  T _scale;
};

@kernel void blur32f(@restrict const float *input, const int n, const float scale, @restrict float *result) {
  @outer(0) for (int g = 0; g < (n + GROUP - 1) / GROUP; ++g) {
    @shared float tile[GROUP + HALO];
    @shared float blurred[GROUP];
    BlurWindow<float, GROUP, HALO> w{n, tile, blurred};
    w.setScale(scale);
    @inner(0) for (int t = 0; t < GROUP; ++t) {
      w.load(input, g, t);
      w.blur(t);
      w.store(result, g, t);
    }
  }
}`;

/**
 * The length of `result`: Loom sizes an output by the work-items that may write it (the guard
 * `id < _n` reads a field, which the shape inference does not follow), a whole group's worth.
 */
const padded = (n: number) => Math.ceil(n / 8) * 8;

/** The serial meaning of blur32f (float32 arithmetic, as C computes it). */
function blur(input: readonly number[], n: number, scale: number): Float32Array {
  const out = new Float32Array(padded(n)); // the elements past n are never written
  for (let id = 0; id < n; id++) {
    let acc = 0;
    for (let k = 0; k <= 3; k++) {
      const j = id + k;
      acc = f32(acc + f32(f32(scale * (k + 1)) * (j < n ? f32(input[j]!) : 0)));
    }
    out[id] = acc;
  }
  return out;
}

describe("a class template with a constructor and member functions", () => {
  it("imports as a struct local with its methods inlined (no argument for the object)", () => {
    const [k] = parseOkl(WINDOW);
    expect(k!.args.map((a) => a.name).filter((a) => !a.endsWith("_end"))).toEqual(["input", "n", "scale", "result"]);
  });

  for (const n of [5, 8, 19]) {
    it(`agrees with the serial meaning on interp and openmp (n = ${n})`, async () => {
      const [k] = parseOkl(WINDOW);
      const input = seeded(n, n);
      await expectSerialMeaning(k!, () => ({ input: Float32Array.from(input), n, scale: 0.5, result: new Float32Array(padded(n)) }),
        { result: blur(input, n, 0.5) }, 1e-6);
    });
  }

  it("two objects of two instances (a value argument changes the class) keep their own fields", async () => {
    const [k] = parseOkl(`
template <int SCALE>
class Scaler {
public:
  Scaler(const float *src, float offset) : _src(src), _offset(offset) {}
  void apply(float *dst, int i) { dst[i] = SCALE * _src[i] + _offset; }
private:
  const float *_src;
  float _offset;
};
@kernel void twice(const int n, const float *a, const float *b, float *x, float *y) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    Scaler<2> s2(a, 1.0f);
    Scaler<3> s3(b, -1.0f);
    s2.apply(x, i);
    s3.apply(y, i);
  }
}`);
    const n = 10, a = seeded(n, 1), b = seeded(n, 2);
    await expectSerialMeaning(k!, () => ({ n, a: Float32Array.from(a), b: Float32Array.from(b), x: new Float32Array(n), y: new Float32Array(n) }), {
      x: a.map((v) => f32(f32(2 * f32(v)) + 1)), y: b.map((v) => f32(f32(3 * f32(v)) - 1)),
    }, 1e-6); // C may contract a * b + c into one fused multiply-add
  });
});

describe("a class whose fields have one type (a struct array of one behind the object)", () => {
  it("its fields are read directly (obj.f) and through members, on interp and openmp", async () => {
    const [k] = parseOkl(`
template <class T, int N>
struct Moments {
  Moments() : sum(0), sumSq(0) {}
  void add(T x) { sum += x; sumSq += x * x; }
  T mean() const { return sum / N; }
  T sum;
  T sumSq;
};
@kernel void moments(const int n, const double *x, double *mean, double *energy) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    Moments<double, 3> m;
    for (int j = 0; j < 3; ++j) m.add(x[3*i + j]);
    mean[i] = m.mean();
    energy[i] = m.sumSq;
  }
}`);
    const n = 5, x = seeded(3 * n, 8);
    const mean = new Float64Array(n), energy = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0, q = 0;
      for (let j = 0; j < 3; j++) { const v = x[3 * i + j]!; s += v; q += v * v; }
      mean[i] = s / 3; energy[i] = q;
    }
    await expectSerialMeaning(k!, () => ({ n, x: Float64Array.from(x), mean: new Float64Array(n), energy: new Float64Array(n) }), { mean, energy }, 1e-12);
  });
});

describe("what stays outside the class subset is refused at its place", () => {
  const cls = (member: string, use = "o.f(a, i);") => `template <int N>
struct C {
  C(float s) : _s(s) {}
  ${member}
  float _s;
};
@kernel void k(const int n, float *a) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { C<2> o{1.0f}; ${use} }
}`;

  for (const [member, construct, column] of [
    ["virtual void f(float *a, int i) { a[i] = _s; }", "C++ virtual member functions", 3],
    ["C operator+(C o) { return o; }", "C++ operator overloading", 5],
    ["void f(float *a, int i) { if (i < 0) throw 1; a[i] = _s; }", "C++ exceptions", 40],
    ["void f(float *a, int i);", "C++ member functions declared in the class and defined outside it", 3],
    ["static int count;", "C++ static members of a class with member functions", 3],
  ] as const) {
    it(construct, () => {
      const err = oklError(() => parseOkl(cls(member)));
      expect(err.message).toContain(construct);
      expect([err.line, err.column, err.rule]).toEqual([4, column, "OKL subset"]);
    });
  }

  it("inheritance", () => {
    const err = oklError(() => parseOkl("struct B { float x; };\ntemplate <int N> struct C : B { void f() {} };\n@kernel void k(int n) { for (int i = 0; i < n; ++i; @outer) for (int j = 0; j < 1; ++j; @inner) {} }"));
    expect([err.line, err.column]).toEqual([2, 27]);
    expect(err.message).toContain("C++ inheritance");
  });

  it("an array of objects of a class with a constructor (C++ constructs each element)", () => {
    const err = oklError(() => parseOkl(cls("void f(float *a, int i) { a[i] = _s; }", "C<2> arr[2]; arr[0]._s = 1;")));
    expect([err.line, err.column, err.rule]).toEqual([8, 78, "OKL subset"]);
    expect(err.message).toMatch(/array of objects "arr": C\+\+ runs the constructor of "C<2>" on each element/);
  });

  it("a member function the class does not define", () => {
    const err = oklError(() => parseOkl(cls("void f(float *a, int i) { a[i] = _s; }", "o.g(a, i);")));
    expect(err.line).toBe(8);
    expect(err.message).toMatch(/"o" \(a "C<2>"\) has no member function "g"; its member functions are f/);
  });
});
