/**
 * OCCA's preprocessor leniency and kernel properties as host codes use them: `#if OCCA_USE_CUDA=1`
 * (OCCA evaluates the assignment: its value is the right-hand side) and an `#if` left open at the
 * end of a file are accepted with warnings (`warnings: "error"` refuses them); function-like
 * `defines` (`"OGS_OP(a,b)": "a+b"`) and OCCA's `includes` (headers read before the source, whose
 * line numbers do not move). Each kernel runs on interp and openmp against its serial meaning.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";
import { AXHELM, GATHER_SCATTER, PHYSICS_HEADER, BURGERS } from "./real-world-kernels.js";

const BENCH = AXHELM;

describe("OCCA's preprocessor leniency: accepted with warnings", () => {
  it("`#if X=1` takes the assigned value and an open `#if` is closed at the end, each a warning with its line", () => {
    const ks = parseOkl(BENCH, { defines: { p_Nq: 4 } });
    expect(ks.map((k) => k.name)).toEqual(["axhelm"]);
    expect(ks.warnings.map((w) => [w.line, w.rule])).toEqual([[2, "OCCA leniency"], [8, "OCCA leniency"]]);
    expect(ks.warnings[0]!.message).toContain('"=" in #if assigns');
    expect(ks.warnings[0]!.message).toMatch(/^<okl>:2:\d+: warning: /);
    expect(ks.warnings[1]!.detail).toContain("#if without #endif");
  });

  it("the kernel agrees with its serial meaning (the `=1` branch: p_unroll is 2, as OCCA takes it)", async () => {
    const [k] = parseOkl(BENCH, { defines: { p_Nq: 4 } });
    const N = 3, Nq = 4, lambda = 0.75, q = seeded(N * Nq, 6);
    const want = Float64Array.from(q, (_, i) => {
      const e = Math.floor(i / Nq), n = i % Nq;
      let r = 0;
      for (let m = 0; m < Nq; m++) r += (m === n ? 2 : -0.5) * q[e * Nq + m]!;
      return 2 * r + lambda * q[i]!;
    });
    await expectSerialMeaning(k!, () => ({ Nelements: N, lambda, q: Float64Array.from(q), Aq: new Float64Array(N * Nq) }), { Aq: want }, 1e-14);
  });

  it('with `warnings: "error"` the first leniency is an OklError at its line', () => {
    const e = oklError(() => parseOkl(BENCH, { defines: { p_Nq: 4 }, warnings: "error" }));
    expect(e.line).toBe(2);
    expect(e.rule).toBe("OCCA leniency");
  });

  // libParanumal's cns data header (`#define MACH 2.0`, then `#if MACH==0.1` … `#elif MACH==2.0`)
  // and benchParanumal's `#if p_N>6 || (OCCA_USE_CUDA=1 && p_N>5)`: refused before ("not an integer
  // constant expression", "expression is not assignable"); OCCA's preprocessor evaluates both.
  const pick = (pre: string) => `${pre}
@kernel void fill(const int N, double *a) {
  for (int e = 0; e < N; ++e; @outer(0)) {
    for (int i = 0; i < 4; ++i; @inner(0)) { a[e * 4 + i] = R * (i + 1); }
  }
}
`;
  const MACH = (m: string) => `#define MACH ${m}\n#if MACH==0.1\n#define R 1.0\n#elif MACH==2.0\n#define R 5.5\n#else\n#define R 3.0\n#endif`;
  const BP = (n: number) => `#define p_N ${n}\n#if p_N>6 || (OCCA_USE_CUDA=1 && p_N>5)\n#define R 1\n#else\n#define R 2\n#endif`;

  it.each([[MACH("2.0"), 5.5], [MACH("0.1"), 1], [MACH("0.5"), 3], [BP(7), 1], [BP(6), 1], [BP(5), 2], [`#if 3.0/2 == 1.5 && 3/2 == 1 && -0.5 < 0\n#define R 4\n#endif`, 4]])(
    "floating constants and a nested `=` in #if select what OCCA selects (%#)", async (pre, r) => {
      const ks = parseOkl(pick(pre));
      expect(ks.warnings.length).toBe(pre.includes("=1") ? 1 : 0);
      const want = Float64Array.from({ length: 8 }, (_, i) => r * ((i % 4) + 1));
      await expectSerialMeaning(ks[0]!, () => ({ N: 2, a: new Float64Array(8) }), { a: want }, 0);
    });

  it("what OCCA cannot evaluate either stays an error at its line: % of a floating constant", () => {
    const e = oklError(() => parseOkl(pick("#if 1.5 % 2\n#define R 1\n#endif")));
    expect([e.line, e.detail]).toEqual([1, "#if condition is not a constant expression of numbers"]);
  });

  it("a well-formed file has no warnings", () => {
    expect(parseOkl(BENCH.replace("OCCA_USE_CUDA=1", "OCCA_USE_CUDA == 1") + "#endif\n", { defines: { p_Nq: 4 } }).warnings).toEqual([]);
  });
});

describe("kernel properties: function-like defines and includes", () => {
  const GATHER = GATHER_SCATTER;
  const groups = [[0, 3], [1], [2, 4, 5]];
  const serial = (op: (a: number, b: number) => number, init: number, q: number[]): Float64Array => {
    const out = Float64Array.from(q);
    for (const g of groups) {
      const v = g.reduce((acc, i) => op(acc, q[i]!), init);
      for (const i of g) out[i] = v;
    }
    return out;
  };
  const args = (q: number[]) => () => {
    const starts = [0], ids: number[] = [];
    for (const g of groups) { ids.push(...g); starts.push(ids.length); }
    return { Ngather: groups.length, starts: Int32Array.from(starts), ids: Int32Array.from(ids), q: Float64Array.from(q) };
  };

  for (const [op, init, f] of [
    ["a+b", "0.0", (a: number, b: number) => a + b],
    ["((a) > (b) ? (a) : (b))", "-1e300", (a: number, b: number) => Math.max(a, b)],
  ] as const) {
    it(`OGS_OP(a,b) = ${op} (the gather-scatter's reduction, given as a property)`, async () => {
      const [k] = parseOkl(GATHER, { defines: { "OGS_OP(a,b)": op, OGS_INIT: init } });
      const q = seeded(6, 12);
      await expectSerialMeaning(k!, args(q), { q: serial(f, Number(init), q) }, 1e-14, { checkBounds: false });
    });
  }

  it("a malformed function-like define is an OklError naming it", () => {
    const e = oklError(() => parseOkl(GATHER, { defines: { "OGS_OP(a,": "a" } }));
    expect(e.message).toContain("OGS_OP");
  });

  const HEADER = PHYSICS_HEADER;
  const files: Record<string, string> = { "/inc/physics.h": HEADER };
  const readFile = (p: string) => files[p];

  it("`includes` reads headers before the source (found in includePaths); the kernel agrees with its serial meaning", async () => {
    const [k] = parseOkl(BURGERS, { includes: ["physics.h"], includePaths: ["/inc"], readFile });
    const u = seeded(8, 4);
    await expectSerialMeaning(k!, () => ({ N: 2, u: Float64Array.from(u), f: new Float64Array(8) }), { f: Float64Array.from(u, (v) => 0.5 * v * v) }, 1e-15);
  });

  it("errors in the source keep its own line numbers; errors in a header name the header", () => {
    const inSource = oklError(() => parseOkl(`\n\n@kernel void f(const int N, dfloat *f) {
  for (int e = 0; e < N; ++e; @outer) for (int n = 0; n < p_Np; ++n; @inner) f[e] = undefinedName;
}`, { includes: ["physics.h"], includePaths: ["/inc"], readFile }));
    expect(inSource.line).toBe(4);
    expect(inSource.filename).toBeUndefined();
    files["/inc/bad.h"] = "\n#error not configured\n";
    const inHeader = oklError(() => parseOkl("@kernel void f() {}", { includes: ["bad.h"], includePaths: ["/inc"], readFile }));
    expect([inHeader.filename, inHeader.line]).toEqual(["/inc/bad.h", 2]);
    const missing = oklError(() => parseOkl("@kernel void f() {}", { includes: ["nowhere.h"], includePaths: ["/inc"], readFile }));
    expect(missing.message).toContain('"nowhere.h"');
  });
});
