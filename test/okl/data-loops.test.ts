/**
 * OKL loops whose start, bound or step is not affine (it reads memory, or divides a parameter):
 * the trip count goes into an integer temporary before the loop and an iname runs over
 * `0 <= t < trip` with `i = start ± step*t` (src/okl/lower/trip.ts). Each form runs on the interpreter
 * against values computed by hand (and by the C loop written out in `cLoop`), and on the `c`
 * backend where the native bounds proof accepts the kernel.
 */
import { describe, expect, it } from "vitest";
import { OklError } from "../../src/errors.js";
import type { Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { tripCount } from "../../src/okl/lower/trip.js";
import { nativeAvailable } from "../run/native-helpers.js";
import { c, type Expr } from "../../src/ir/index.js";

const one = (src: string): Kernel => parseOkl(src, {})[0]!;

/** The values `for (i = s; i cmp e; i += d)` visits in C (d < 0 for `-=`). */
function cLoop(s: number, cmp: "<" | "<=" | ">" | ">=", e: number, d: number): number[] {
  const out: number[] = [];
  const ok = (i: number) => (cmp === "<" ? i < e : cmp === "<=" ? i <= e : cmp === ">" ? i > e : i >= e);
  for (let i = s; ok(i); i += d) out.push(i);
  return out;
}

async function both(k: Kernel, inputs: Record<string, unknown>, name: string): Promise<number[]> {
  const got = Array.from(((await run(k, inputs as never, { backend: "interp" })) as Record<string, ArrayLike<number>>)[name]!);
  if (nativeAvailable("c")) {
    const native = Array.from(((await run(k, inputs as never, { backend: "c" })) as Record<string, ArrayLike<number>>)[name]!);
    expect(native).toEqual(got);
  }
  return got;
}

describe("the trip count is C's", () => {
  const evalTrip = (s: number, e: number, d: number, cmp: "<" | "<=" | ">" | ">="): number => {
    const ex = tripCount(c(s), c(e), c(d), cmp);
    const ev = (x: Expr): number => {
      switch (x.kind) {
        case "const": return x.value;
        case "arith": {
          const l = ev(x.left), r = ev(x.right);
          return x.op === "+" ? l + r : x.op === "-" ? l - r : x.op === "*" ? l * r : Math.trunc(l / r);
        }
        case "if": return ev(x.cond) ? ev(x.then) : ev(x.else);
        case "compare": {
          const l = ev(x.left), r = ev(x.right);
          return +(x.op === "<" ? l < r : x.op === "<=" ? l <= r : x.op === ">" ? l > r : l >= r);
        }
        default: throw new Error(x.kind);
      }
    };
    return ev(ex);
  };
  it("for every start, bound, positive step and comparison (direction from the update)", () => {
    for (let s = -6; s <= 6; s++) for (let e = -6; e <= 6; e++) for (let d = 1; d <= 4; d++) {
      for (const cmp of ["<", "<="] as const) expect(evalTrip(s, e, d, cmp)).toBe(cLoop(s, cmp, e, d).length);
      for (const cmp of [">", ">="] as const) expect(evalTrip(s, e, d, cmp)).toBe(cLoop(s, cmp, e, -d).length);
    }
  });
});

describe("regular loops with bounds that read memory", () => {
  it("`k < cnt[j]` counts per work-item (CSR-style)", async () => {
    const k = one(`@kernel void f(const int n, const int *cnt, int *out) {
      for (int g = 0; g < 1; ++g; @outer) for (int j = 0; j < n; ++j; @inner) {
        int acc = 0;
        for (int k = 0; k < cnt[j]; ++k) acc += k + 1;
        out[j] = acc;
      } }`);
    const cnt = Int32Array.of(0, 1, 3, 4, -2);
    expect(await both(k, { n: 5, cnt, out: new Int32Array(5) }, "out")).toEqual([0, 1, 6, 10, 0]);
  });

  it("a start read from memory and a bound that is a product of parameters", async () => {
    const k = one(`@kernel void f(const int n, const int m, const int *lo, int *out) {
      for (int j = 0; j < n; ++j; @outer) for (int t = 0; t < 1; ++t; @inner) {
        int acc = 0;
        for (int i = lo[j]; i <= n * m; ++i) acc += i;
        out[j] = acc;
      } }`);
    const lo = Int32Array.of(5, 6, 7);
    // sum of lo..6: 11, 6, 0
    expect(await both(k, { n: 3, m: 2, lo, out: new Int32Array(3) }, "out")).toEqual([11, 6, 0]);
  });
});

describe("steps that are not constants", () => {
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  for (const [cmp, up] of [["<", true], ["<=", true], [">", false], [">=", false]] as const) {
    it(`i ${up ? "+=" : "-="} n/4 + 1 with "${cmp}"`, async () => {
      const [s, e] = up ? ["j", "n + 3"] : ["n + 3", "j"];
      const k = one(`@kernel void f(const int n, int *out, int *cnt) {
        for (int j = 0; j < n; ++j; @outer) for (int t = 0; t < 1; ++t; @inner) {
          int acc = 0; int c = 0;
          for (int i = ${s}; i ${cmp} ${e}; i ${up ? "+=" : "-="} n / 4 + 1) { acc += i; c += 1; }
          out[j] = acc; cnt[j] = c;
        } }`);
      for (const n of [1, 7, 9]) {
        const d = Math.trunc(n / 4) + 1;
        const visits = (j: number) => (up ? cLoop(j, cmp, n + 3, d) : cLoop(n + 3, cmp, j, -d));
        const want = Array.from({ length: n }, (_, j) => sum(visits(j)));
        expect(await both(k, { n, out: new Int32Array(n), cnt: new Int32Array(n) }, "out")).toEqual(want);
        expect(await both(k, { n, out: new Int32Array(n), cnt: new Int32Array(n) }, "cnt")).toEqual(want.map((_, j) => visits(j).length));
      }
    });
  }

  it("n = 7: i from 2 to < 10 by 2 visits 2, 4, 6, 8 (by hand)", async () => {
    const k = one(`@kernel void f(const int n, int *out) {
      for (int g = 0; g < 1; ++g; @outer) for (int t = 0; t < 1; ++t; @inner) {
        for (int i = 2; i < n + 3; i += n / 4 + 1) out[i] = i * 10;
      } }`);
    expect([...((await run(k, { n: 7, out: new Int32Array(10) } as never, { backend: "interp" })) as { out: Int32Array }).out]).toEqual([0, 0, 20, 0, 40, 0, 60, 0, 80, 0]);
  });

  it("an unsigned iterator with a negative start runs zero times (C converts the start)", async () => {
    const k = one(`@kernel void f(const int n, const int *lo, int *out) {
      for (int g = 0; g < 1; ++g; @outer) for (int t = 0; t < 1; ++t; @inner) {
        int c = 0;
        for (unsigned long long i = lo[0]; i < n; i += n / 4 + 1) c += 1;
        out[0] = c;
      } }`);
    expect(await both(k, { n: 8, lo: Int32Array.of(-3), out: new Int32Array(1) }, "out")).toEqual([0]);
    expect(await both(k, { n: 8, lo: Int32Array.of(1), out: new Int32Array(1) }, "out")).toEqual([3]);
  });
});

describe("@outer and @tile loops", () => {
  it("an @outer loop bounded by memory runs its iterations in order in one work-group", async () => {
    const k = one(`@kernel void f(const int *nb, float *out) {
      for (int b = 0; b < nb[0]; ++b; @outer) for (int t = 0; t < 4; ++t; @inner) out[4 * b + t] = b + 0.5f * t;
      }`);
    expect(k.inameTags.t).toMatchObject({ kind: "l", axis: 0 });
    const r = (await run(k, { nb: Int32Array.of(2), out: new Float32Array(12) } as never, { backend: "interp" })) as { out: Float32Array };
    expect([...r.out]).toEqual([0, 0.5, 1, 1.5, 1, 1.5, 2, 2.5, 0, 0, 0, 0]);
  });

  it("@tile with a step that is not a constant keeps the documented span semantics", async () => {
    // Blocks start at 0, 4, 8, …; in each, i = block + d*u for d*u < 4, and i < n.
    const k = one(`@kernel void f(const int n, int *out) {
      for (int i = 0; i < n; i += n / 4; @tile(4, @outer, @inner)) out[i] = i + 1;
      }`);
    const n = 10; // d = 2: 0, 2 | 4, 6 | 8
    const r = (await run(k, { n, out: new Int32Array(n) } as never, { backend: "interp" })) as { out: Int32Array };
    expect([...r.out]).toEqual([1, 0, 3, 0, 5, 0, 7, 0, 9, 0]);
  });

  it("@tile with a start read from memory and a decreasing step", async () => {
    const k = one(`@kernel void f(const int n, const int *hi, int *out) {
      for (int i = hi[0]; i >= 0; i -= n / 4; @tile(4, @outer, @inner)) out[i] = 1;
      }`);
    // hi = 9, d = 2: blocks 9, 5, 1; in each 9, 7 | 5, 3 | 1 (and -1, cut by i >= 0).
    const r = (await run(k, { n: 8, hi: Int32Array.of(9), out: new Int32Array(10) } as never, { backend: "interp" })) as { out: Int32Array };
    expect([...r.out]).toEqual([0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
  });
});

describe("what stays unsupported (an OklError that says why)", () => {
  const fails = (body: string, re: RegExp) => {
    expect(() => one(`@kernel void f(const int n, int *cnt, int *out) {
      for (int g = 0; g < 1; ++g; @outer) for (int t = 0; t < 1; ++t; @inner) { ${body} } }`)).toThrow(re);
    expect(() => one(`@kernel void f(const int n, int *cnt, int *out) {
      for (int g = 0; g < 1; ++g; @outer) for (int t = 0; t < 1; ++t; @inner) { ${body} } }`)).toThrow(OklError);
  };
  it("a body that writes what the header reads (C re-evaluates the condition)", () => {
    fails("for (int k = 0; k < cnt[0]; ++k) cnt[0] -= 1;", /header reads "cnt", which the loop body writes/);
  });
  it("an update that runs against the comparison", () => {
    fails("for (int k = 0; k < cnt[0]; --k) out[0] = k;", /runs zero times or never ends/);
  });
  it("a floating-point bound", () => {
    expect(() => one(`@kernel void f(const float *x, int *out) {
      for (int g = 0; g < 1; ++g; @outer) for (int t = 0; t < 1; ++t; @inner) { for (int k = 0; k < x[0]; ++k) out[0] = k; } }`)).toThrow(/floating-point type/);
  });
  it("return in a @kernel (while loops and break import as blocks: opaque.test.ts)", () => {
    fails("int k = 0; while (k < n) k++; if (k > 3) return;", /"return" in a @kernel is not supported/);
  });
  it("a data-dependent @outer loop in a nest with @shared memory", () => {
    expect(() => one(`@kernel void f(const int *nb, float *out) {
      for (int b = 0; b < nb[0]; ++b; @outer) { @shared float s[4];
        for (int t = 0; t < 4; ++t; @inner) s[t] = t;
        for (int t = 0; t < 4; ++t; @inner) out[4 * b + t] = s[3 - t]; } }`)).toThrow(/runs sequentially, which is not supported in a nest with @shared/);
  });
});
