/**
 * Small C compatibilities real OKL files rely on: `half` as an ordinary identifier, math.h's `M_*`
 * constants, plain loops whose condition is not OCCA's canonical form (OCCA's loop rules apply to
 * @outer/@inner only), `switch`, arrays of pointer aliases filled by a loop, and a clear refusal of
 * `goto`. Each kernel runs on interp and openmp against its serial meaning.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";
import { FILTER, CSR_SPMV, BOUNDARY_FLUX, RK_UPDATE, CUBATURE } from "./real-world-kernels.js";

describe("`half` is an identifier and M_* constants are math.h's", () => {
  const SRC = FILTER;
  it("agrees with the serial meaning (M_PI, M_SQRT1_2, M_E as doubles)", async () => {
    const [k] = parseOkl(SRC);
    const N = 3, x = seeded(N * 4, 2);
    const want = Float64Array.from(x, (_, i) => {
      const e = Math.floor(i / 4), n = i % 4;
      return (0.5 * x[i]! + Math.PI * x[e * 4 + ((n + 1) % 4)]!) * Math.SQRT1_2 + Math.E;
    });
    await expectSerialMeaning(k!, () => ({ Nelements: N, x: Float64Array.from(x), y: new Float64Array(N * 4) }), { y: want }, 1e-14);
  });

  it("`half` stays a type where C's dialects use it as one (`half *h`, `(half) x`)", () => {
    const [k] = parseOkl(`@kernel void f(const int n, half *h, const float *x) {
      for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) h[i] = (half) x[i]; }`);
    expect(k!.args.find((a) => a.name === "h")?.dtype).toBe("float16");
  });

  it("a file's own M_PI wins over math.h's", async () => {
    const [k] = parseOkl(`const double M_PI = 3.0;
@kernel void f(const int n, double *y) { for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) y[i] = M_PI * i; }`);
    await expectSerialMeaning(k!, () => ({ n: 5, y: new Float64Array(5) }), { y: Float64Array.from({ length: 5 }, (_, i) => 3 * i) }, 0);
  });
});

describe("plain loops whose condition is not OCCA's canonical form are ordinary loops", () => {
  const SRC = CSR_SPMV;
  it("`row + i < end` is `i < end - row`, an affine loop (CSR rows: subscripts read memory, so unchecked on openmp)", async () => {
    const [k] = parseOkl(SRC);
    expect(k!.instructions.filter((x) => x.kind === "block")).toEqual([]);
    await fc.assert(fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 12 }), async (counts) => {
      const Nrows = counts.length, starts = [0];
      for (const c of counts) starts.push(starts[starts.length - 1]! + c);
      const nnz = starts[Nrows]!, N = 5;
      const cols = Array.from({ length: nnz }, (_, i) => (i * 3) % N), vals = seeded(nnz, nnz), x = seeded(N, 9);
      const y = Float64Array.from({ length: Nrows }, (_, r) => {
        let acc = 0;
        for (let i = 0; starts[r]! + i < starts[r + 1]!; ++i) acc += vals[starts[r]! + i]! * x[cols[starts[r]! + i]!]!;
        return acc;
      });
      await expectSerialMeaning(k!, () => ({ Nrows, rowStarts: Int32Array.from(starts), cols: Int32Array.from(cols), vals: Float64Array.from(vals), x: Float64Array.from(x), y: new Float64Array(Nrows) }),
        { y }, 1e-14, { checkBounds: false });
    }), { numRuns: 4 });
  });

  it("a doubling loop (`s *= 2`) is an ordinary C loop, not an OCCA loop error", async () => {
    const [k] = parseOkl(`@kernel void f(const int n, const int *m, int *out) {
      for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { int c = 0; for (int s = 1; s < m[i]; s *= 2) c++; out[i] = c; } }`);
    const m = [0, 1, 2, 3, 9, 17, 64];
    const want = Int32Array.from(m, (v) => { let c = 0; for (let s = 1; s < v; s *= 2) c++; return c; });
    await expectSerialMeaning(k!, () => ({ n: m.length, m: Int32Array.from(m), out: new Int32Array(m.length) }), { out: want }, 0, { checkBounds: false });
  });
});

describe("plain loops with constant bounds", () => {
  it("84 cubature points (more than import unrolls) are a sequential iname; the projection agrees on interp and openmp", async () => {
    const [k] = parseOkl(CUBATURE);
    expect(k!.domains.some((d) => d.dims.includes("c"))).toBe(true);
    const N = 2, Np = 6, Nc = 84;
    const I = seeded(Nc * Np, 1), W = seeded(Nc, 2), q = seeded(N * Np, 3);
    const want = new Float64Array(N * Np);
    for (let e = 0; e < N; e++) for (let n = 0; n < Np; n++) {
      let acc = 0;
      for (let c = 0; c < Nc; c++) {
        let qc = 0;
        for (let m = 0; m < Np; m++) qc += I[c * Np + m]! * q[e * Np + m]!;
        acc += W[c]! * I[c * Np + n]! * qc;
      }
      want[e * Np + n] = acc;
    }
    await expectSerialMeaning(k!, () => ({ Nelements: N, cubInterp: Float64Array.from(I), cubW: Float64Array.from(W), q: Float64Array.from(q), Pq: new Float64Array(N * Np) }), { Pq: want }, 1e-12);
  });
});

describe("switch", () => {
  const SRC = BOUNDARY_FLUX;
  /** The switch's meaning written out: 2 and 3 fall through into 4's `f += 1`. */
  const serial = (bc: number, qn: number): number => {
    if (bc === 1) return qn;
    if (bc === 2 || bc === 3) return 2 * qn + 1;
    if (bc === 4) return 1;
    return -qn;
  };
  it("C's fall-through, default and break, on interp and openmp", async () => {
    const [k] = parseOkl(SRC);
    const EToB = [0, 1, 2, 3, 4, 5, 1, 3];
    const N = EToB.length, q = seeded(N * 4, 4);
    const want = Float64Array.from(q, (v, i) => serial(EToB[Math.floor(i / 4)]!, v));
    await expectSerialMeaning(k!, () => ({ Nelements: N, EToB: Int32Array.from(EToB), q: Float64Array.from(q), flux: new Float64Array(N * 4) }), { flux: want }, 0);
  });

  it("`continue` inside a switch continues the loop around it; `break` in a loop inside a case leaves that loop", async () => {
    const [k] = parseOkl(`@kernel void f(const int n, const int *t, int *out) {
      for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
        int c = 0;
        for (int j = 0; j < 6; ++j) {
          switch ((t[i] + j) % 3) {
            case 0: continue;
            case 1: for (int k = 0; k < 10; ++k) { if (k == j) break; c += 1; } break;
            default: c += 100;
          }
          c += 1000;
        }
        out[i] = c;
      } }`);
    const t = [0, 1, 2, 5];
    const want = Int32Array.from(t, (ti) => {
      let c = 0;
      for (let j = 0; j < 6; ++j) {
        const s = (ti + j) % 3;
        if (s === 0) continue;
        if (s === 1) { for (let kk = 0; kk < 10; ++kk) { if (kk === j) break; c += 1; } } else c += 100;
        c += 1000;
      }
      return c;
    });
    await expectSerialMeaning(k!, () => ({ n: t.length, t: Int32Array.from(t), out: new Int32Array(t.length) }), { out: want }, 0, { checkBounds: false });
  });
});

describe("arrays of pointer aliases filled by a loop", () => {
  const SRC = RK_UPDATE;
  it("each slot aliases its stage of rhs (interp and openmp)", async () => {
    const [k] = parseOkl(SRC);
    const N = 21, rkb = [0.25, 0.5, 0.25], rhs = seeded(3 * N, 3), q = seeded(N, 8), dt = 0.1;
    const want = Float64Array.from(q, (v, n) => {
      let r = v;
      for (let s = 0; s < 3; s++) r += dt * rkb[s]! * rhs[s * N + n]!;
      return r;
    });
    await expectSerialMeaning(k!, () => ({ N, dt, rkb: Float64Array.from(rkb), rhs: Float64Array.from(rhs), q: Float64Array.from(q), qn: new Float64Array(N) }), { qn: want }, 1e-14);
  });

  it("a slot read before it is assigned, and a run-time slot subscript, are named", () => {
    const before = oklError(() => parseOkl(SRC.replace("for (int s = 0; s < p_Nstages; ++s) rhsq[s] = rhs + s * N;", "rhsq[0] = rhs;")));
    expect(before.message).toContain('"rhsq[1]" is read before it is assigned');
    const runtime = oklError(() => parseOkl(SRC.replace("rhsq[s][n]", "rhsq[n % 3][n]")));
    expect(runtime.message).toContain('array of pointers "rhsq"');
    expect(runtime.message).toContain("compile-time integer");
  });
});

describe("goto", () => {
  it("is refused with the rewrite to use, at its line", () => {
    const e = oklError(() => parseOkl(`@kernel void f(const int n, float *q) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    if (i == 2) goto done;
    q[i] = 1;
    done: ;
  } }`));
    expect(e.line).toBe(3);
    expect(e.message).toContain("goto");
    expect(e.message).toContain("if/else");
  });
});
