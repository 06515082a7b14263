/**
 * An `@exclusive` that a kernel reads but never writes, as a libParanumal fork's wave-speed kernel
 * does: `@exclusive dfloat gamma;` is hidden in the first `@inner` loop by `const dfloat gamma = …` (a
 * new variable of that block) and the exclusive is read in the second loop, where C leaves its value
 * undefined. Loom warns at the read, naming the variable and where it is declared (an OklError under
 * `warnings: "error"`); the corrected kernel, which assigns the exclusive, has no warning and agrees
 * with its serial meaning on interp and openmp. Writes through a function argument, `&`, `++` and
 * element assignments count as writes, and a local of the same name elsewhere is another variable.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const waveSpeed = (firstLoopGamma: string) => `@kernel void maxWaveSpeed(const int Nelements,
                          @restrict const double *pCoeff,
                          @restrict const double *q,
                          @restrict double *maxSpeed) {
  for (int e = 0; e < Nelements; ++e; @outer(0)) {
    @shared double s_c[p_Np];
    @exclusive double gamma;
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      ${firstLoopGamma}
      s_c[n] = sqrt(gamma * q[e * p_Np + n]);
    }
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      if (n == 0) {
        double m = 0;
        for (int k = 0; k < p_Np; ++k) m = (s_c[k] > m) ? s_c[k] : m;
        maxSpeed[e] = m * gamma;
      }
    }
  }
}
`;

describe("an @exclusive read but never written", () => {
  it("is a warning at its first read naming the variable, where it is declared and the kernel", () => {
    const ks = parseOkl(waveSpeed("const double gamma = pCoeff[0];"), { defines: { p_Np: 4 } });
    expect(ks.map((k) => k.name)).toEqual(["maxWaveSpeed"]);
    const w = ks.warnings.filter((x) => x.rule === "unwritten @exclusive");
    expect(w.map((x) => [x.line, x.column])).toEqual([[16, 27]]);
    expect(w[0]!.detail).toContain('@exclusive "gamma" (declared at 7:23) is read here but never written in kernel "maxWaveSpeed"');
  });

  it('with warnings: "error" it is an OklError at the read', () => {
    const e = oklError(() => parseOkl(waveSpeed("const double gamma = pCoeff[0];"), { defines: { p_Np: 4 }, warnings: "error" }));
    expect([e.line, e.column, e.rule]).toEqual([16, 27, "unwritten @exclusive"]);
  });

  it("the kernel that assigns the exclusive has no warning and agrees with its serial meaning", async () => {
    const ks = parseOkl(waveSpeed("gamma = pCoeff[0];"), { defines: { p_Np: 4 } });
    expect(ks.warnings).toEqual([]);
    const E = 3, Np = 4, g = 1.4, q = seeded(E * Np, 5).map((v) => v + 1.5);
    const want = Float64Array.from({ length: E }, (_, e) => g * Math.max(0, ...q.slice(e * Np, (e + 1) * Np).map((v) => Math.sqrt(g * v))));
    await expectSerialMeaning(ks[0]!, () => ({ Nelements: E, pCoeff: Float64Array.of(g), q: Float64Array.from(q), maxSpeed: new Float64Array(E) }), { maxSpeed: want }, 1e-12);
  });

  it("writes through a call, &, ++ and an element count; a same-named local elsewhere is another variable", () => {
    const k = (body: string) => parseOkl(`void setTo(double *p, double v) { p[0] = v; }
@kernel void f(const int N, double *y) {
  for (int e = 0; e < N; ++e; @outer(0)) {
    @exclusive double a;
    @exclusive double r[2];
    for (int n = 0; n < 4; ++n; @inner(0)) { ${body} }
    for (int n = 0; n < 4; ++n; @inner(0)) { y[e * 4 + n] = a + r[0]; }
  }
}`).warnings.filter((x) => x.rule === "unwritten @exclusive").map((x) => x.detail.split(" ")[1]);
    expect(k("setTo(&a, 1.0); r[0] = 2;")).toEqual([]);
    expect(k("a = 1; setTo(r, 2.0);")).toEqual([]);
    expect(k("a++; r[1] = 0;")).toEqual([]);
    expect(k("{ double a = 1; y[n] = a; } r[0] = 1;")).toEqual(['"a"']);
  });
});
