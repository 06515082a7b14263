/**
 * `@dim` views passed between device functions, as libCEED's OCCA backend writes its tensor and
 * simplex bases: device functions whose pointer parameters carry `@dim` (or a typedef'd `@dim`
 * pointer type), called with `&U(0, c, e)` of a `@dim` argument or with a `@shared` array declared
 * `@dim`, and function names built by a function-like macro injected with `@directive`. Each kernel
 * (written here in that style) runs on interp and openmp against its serial meaning in TypeScript.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

/** Element-by-element interpolation B (P x Q) of NC components: CPU style, one work-item per (element, component). */
const INTERP_CPU = `
@directive("#define BASIS(NAME) basis_ ## NAME ## _q ## Q")

inline void BASIS(apply)(const double *B @dim(P, Q), const double *ue, double *ve) {
  for (int q = 0; q < Q; ++q) {
    double acc = 0;
    for (int p = 0; p < P; ++p) acc += B(p, q) * ue[p];
    ve[q] = acc;
  }
}

inline double BASIS(dot)(const double *B @dim(P, Q), const int q, const double *ue) {
  double acc = 0;
  for (int p = 0; p < P; ++p) acc += B(p, q) * ue[p];
  return acc;
}

@kernel void interp(const int nelem, const double *B, const double *U, double *V, double *W) {
  for (int e = 0; e < nelem; ++e; @outer) {
    for (int c = 0; c < NC; ++c; @inner) {
      const double *u @dim(P, NC, nelem) = U;
      double *v @dim(Q, nelem, NC) = V;
      BASIS(apply)(B, &u(0, c, e), &v(0, e, c));
      for (int q = 0; q < Q; ++q) W[q + Q * (c + NC * e)] = 2 * BASIS(dot)(B, q, &u(0, c, e));
    }
  }
}`;

/** GPU style: typedef'd @dim parameters, a @shared buffer declared @dim and passed on, C++ references. */
const INTERP_GPU = `
typedef const double *dofs @dim(P, NC, nelem);
typedef double *quads @dim(Q, nelem, NC);
typedef double *buffer @dim(MAXPQ, NC, EPB);
typedef const double *basis @dim(P, Q);

inline void load(const int e, const int le, const int c, const int p, dofs U, buffer s) {
  s(p, c, le) = (p < P) ? U(p, c, e) : 0.0;
}

inline void contract(const int q, const int le, const int c, buffer s, basis B, double &out) {
  out = 0.0;
  for (int p = 0; p < P; ++p) out += B(p, q) * s(p, c, le);
}

@kernel void interp(const int nelem, basis B, const double *U, double *V) {
  for (int eo = 0; eo < nelem; eo += EPB; @outer) {
    @shared double sbuf[MAXPQ * NC * EPB] @dim(MAXPQ, NC, EPB);
    for (int le = 0; le < EPB; ++le; @inner) {
      for (int q = 0; q < Q; ++q; @inner) {
        const int e = eo + le;
        if (e < nelem) {
          for (int c = 0; c < NC; ++c) load(e, le, c, q, U, sbuf);
        }
      }
    }
    @barrier();
    for (int le = 0; le < EPB; ++le; @inner) {
      for (int q = 0; q < Q; ++q; @inner) {
        const int e = eo + le;
        if (e < nelem) {
          for (int c = 0; c < NC; ++c) {
            double r;
            contract(q, le, c, sbuf, B, r);
            quads out = V;
            out(q, e, c) = r;
          }
        }
      }
    }
  }
}`;

const DEFS = { P: 3, Q: 4, NC: 2, MAXPQ: 4, EPB: 2 };
const [P, Q, NC] = [DEFS.P, DEFS.Q, DEFS.NC];

/** V(q, e, c) = sum_p B(p, q) U(p, c, e), with B(p, q) = B[p + P q]. */
function interpolate(nelem: number, B: number[], U: number[], [P, Q, NC] = [DEFS.P, DEFS.Q, DEFS.NC]): Float64Array {
  const V = new Float64Array(Q * nelem * NC);
  for (let e = 0; e < nelem; e++) for (let c = 0; c < NC; c++) for (let q = 0; q < Q; q++) {
    let acc = 0;
    for (let p = 0; p < P; p++) acc += B[p + P * q]! * U[p + P * (c + NC * e)]!;
    V[q + Q * (e + nelem * c)] = acc;
  }
  return V;
}

describe("@dim parameters of device functions (libCEED's OCCA bases)", () => {
  it("a function-like macro injected with @directive names the functions (## pastes without expanding Q, as C does)", () => {
    // `_q ## Q` pastes the spelling: the function is basis_apply_qQ whatever Q is.
    const [k] = parseOkl(INTERP_CPU.replace("BASIS(apply)(B, &u", "basis_apply_qQ(B, &u"), { defines: DEFS });
    expect(k!.name).toBe("interp");
  });

  for (const nelem of [1, 3]) {
    it(`CPU style: &u(0, c, e) passed to @dim parameters, statement- and expression-inlined (${nelem} elements)`, async () => {
      const [k] = parseOkl(INTERP_CPU, { defines: DEFS });
      const B = seeded(P * Q, 11), U = seeded(P * NC * nelem, 12 + nelem);
      // W(q, c, e) = 2 * sum_p B(p, q) U(p, c, e), laid out q + Q (c + NC e).
      const V = interpolate(nelem, B, U);
      const W = new Float64Array(Q * NC * nelem);
      for (let e = 0; e < nelem; e++) for (let c = 0; c < NC; c++) for (let q = 0; q < Q; q++) W[q + Q * (c + NC * e)] = 2 * V[q + Q * (e + nelem * c)]!;
      // The expression-inlined function with a loop becomes a block of statements the native bounds proof does not cover.
      await expectSerialMeaning(k!, () => ({ nelem, B: Float64Array.from(B), U: Float64Array.from(U), V: new Float64Array(Q * nelem * NC), W: new Float64Array(Q * NC * nelem) }),
        { V, W }, 1e-12, { checkBounds: false });
    });
  }

  for (const nelem of [2, 3]) {
    it(`GPU style: typedef'd @dim parameters and a @shared @dim buffer passed on (${nelem} elements)`, async () => {
      const [k] = parseOkl(INTERP_GPU, { defines: DEFS });
      const B = seeded(P * Q, 21), U = seeded(P * NC * nelem, 22 + nelem);
      await expectSerialMeaning(k!, () => ({ nelem, B: Float64Array.from(B), U: Float64Array.from(U), V: new Float64Array(Q * nelem * NC) }),
        { V: interpolate(nelem, B, U) }, 1e-12);
    });
  }

  it("law: on the interpreter, any extents (P, Q, components, elements per block) give the serial interpolation", async () => {
    // The outer-most extent of each view is never read, the inner ones index: a wrong one moves data.
    // The kernel's contract, as libCEED's: at least as many quadrature points as nodes (the q loop loads the nodes).
    const ext = fc.record({ P: fc.integer({ min: 1, max: 4 }), dQ: fc.integer({ min: 0, max: 2 }), NC: fc.integer({ min: 1, max: 3 }), EPB: fc.integer({ min: 1, max: 3 }), nelem: fc.integer({ min: 1, max: 4 }) });
    await fc.assert(fc.asyncProperty(ext, async ({ P, dQ, NC, EPB, nelem }) => {
      const Q = P + dQ;
      const MAXPQ = Math.max(P, Q);
      const [k] = parseOkl(INTERP_GPU, { defines: { P, Q, NC, EPB, MAXPQ } });
      const B = seeded(P * Q, P + 10 * Q), U = seeded(P * NC * nelem, NC + 10 * nelem);
      const out = (await run(k!, { nelem, B: Float64Array.from(B), U: Float64Array.from(U), V: new Float64Array(Q * nelem * NC) } as never, { backend: "interp" } as never)) as Record<string, Float64Array>;
      const want = interpolate(nelem, B, U, [P, Q, NC]);
      want.forEach((w, i) => expect(Math.abs(out.V![i]! - w)).toBeLessThan(1e-12));
    }), { numRuns: 6, seed: 20 });
  });

  it("a @dim parameter passed the address of a scalar is refused, naming the parameter", () => {
    const src = `
inline double first(const double *B @dim(P, Q)) { return B(0, 0); }
@kernel void k(const int n, double *out) {
  for (int i = 0; i < n; ++i; @tile(8, @outer, @inner)) { double x = out[i]; out[i] = first(&x); }
}`;
    const e = oklError(() => parseOkl(src, { defines: DEFS }));
    expect(e.message).toContain('@dim parameter "B"');
    expect(e.message).toMatch(/only an array of scalars/);
  });

  it("@dim on a two-dimensional local array is refused, naming it", () => {
    const src = `
@kernel void k(const int n, double *out) {
  for (int b = 0; b < n; ++b; @outer) {
    @shared double s[2][4] @dim(4, 2);
    for (int i = 0; i < 4; ++i; @inner) { s[0][i] = i; out[b * 4 + i] = s(i, 0); }
  }
}`;
    const e = oklError(() => parseOkl(src));
    expect(e.message).toContain('@dim on local array "s"');
  });
});

describe("C++ reference parameters of device functions (libCEED's contractX(…, CeedScalar &V))", () => {
  const SRC = `
inline double split(const double x, double &whole) {
  whole = floor(x);
  return x - whole;
}
inline void scaleInto(const double s, double &acc) { acc = 0; acc += s * 3; acc *= 2; }
inline double half(const double &x) { return x / 2; }

@kernel void k(const int n, const double *U, double *V, double *W) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    double h;
    const double f = split(4 * U[i], h);
    double t = -1;
    scaleInto(U[i], t);
    const int m = i;
    V[i] = f + 10 * h;
    W[i] = t + half(m);
  }
}`;

  for (const n of [3, 9]) {
    it(`writes through the reference reach the caller's variable; a const reference converts (${n} items)`, async () => {
      const [k] = parseOkl(SRC);
      const U = seeded(n, 31 + n);
      const V = U.map((u) => 4 * u - Math.floor(4 * u) + 10 * Math.floor(4 * u));
      const W = U.map((u, i) => 2 * (3 * u) + i / 2); // half(m) of an int m: (double) m / 2
      await expectSerialMeaning(k!, () => ({ n, U: Float64Array.from(U), V: new Float64Array(n), W: new Float64Array(n) }),
        { V: Float64Array.from(V), W: Float64Array.from(W) }, 1e-12, { checkBounds: false });
    });
  }

  it("writing a non-const reference bound to an array element is refused, naming the parameter", () => {
    const src = `
inline void bump(double &x) { x += 1; }
@kernel void k(const int n, double *V) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { bump(V[i]); }
}`;
    const e = oklError(() => parseOkl(src));
    expect(e.message).toContain('"x"');
  });

  it("a non-const reference passed an expression that is no variable is refused", () => {
    const src = `
inline void bump(double &x) { x += 1; }
@kernel void k(const int n, double *V) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { double a = V[i]; bump(a + 1); V[i] = a; }
}`;
    const e = oklError(() => parseOkl(src));
    expect(e.message).toContain('reference parameter "x"');
  });
});

