/**
 * A C++ class template with a constructor and member functions (OCCA's new-transpiler examples:
 * a moving-average window object built in the @outer loop, its methods called per work-item) was
 * outside Loom's OKL subset; it imports now (the subset that is C plus methods, tested on every
 * backend in real-world-class-template.test.ts). A data-only struct template still needs its arguments.
 */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { oklError } from "./helpers.js";

const SRC = `template <class T, int N>
struct Window {
  Window(T *buf) : _buf(buf) {}
  void load(const T *in, int i) { _buf[i] = in[i]; }
  T *_buf;
};
@kernel void smooth(const float *in, float *out, int n) {
  for (int b = 0; b < n; ++b; @outer) {
    @shared float s[8];
    Window<float, 8> w{s};
    for (int t = 0; t < 8; ++t; @inner) { w.load(in, t); out[b * 8 + t] = s[t]; }
  }
}`;

describe("a class template with a constructor and member functions", () => {
  it("imports since the class subset is read (real-world-class-template.test.ts): the object is a struct local, its method inlined", () => {
    const [k] = lp.parseOkl(SRC);
    expect(k!.args.map((a) => a.name).filter((a) => !a.endsWith("_end"))).toEqual(["in", "out", "n"]);
  });

  it("a data-only struct template used without arguments still says how to write it", () => {
    const err = oklError(() => lp.parseOkl("template <class T, int N> struct V { T v[N]; };\n@kernel void k(V *s) {}"));
    expect(err.message).toMatch(/struct template "V" used without arguments; write `V<T, N>`/);
  });
});
