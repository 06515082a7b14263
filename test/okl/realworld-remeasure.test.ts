/**
 * What the re-measure of issue 20 (80 OKL files of nekRS, libParanumal, benchParanumal,
 * streamParanumal, hipBone and OCCA's examples, imported with their hosts' defines and headers)
 * found refused although OCCA accepts it, each with a kernel written here in the style of those
 * code bases and run on interp and openmp against its serial meaning:
 * - `@barrier("local")` / `@barrier("global")`: OCCA 1.x's barrier types (libParanumal's reductions);
 *   current OCCA accepts only "warp", so they are accepted with a warning;
 * - a trailing empty macro argument (`GENERATE(float,float,)` in nekRS's gather-scatter), which
 *   OCCA's preprocessor drops: accepted with a warning;
 * - an assignment used as a value (`const dfloat J = s_J[0] += s_J[1];`, `a = b = 0;`);
 * - OCCA 0.x's OKL (`kernel void`, `outer0`, `shared`): refused with the rewrite to use.
 * What stays refused is an OklError with line and column.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const HOST = { dfloat: "double", dlong: "int" } as const;

/** A libParanumal-style block reduction with OCCA 1.x's barrier types between the tree levels. */
const SUM_SQUARES = `@kernel void blockSumSquares(const dlong Nblocks, const dlong N,
                             @restrict const dfloat *x, @restrict dfloat *partial) {
  for (dlong b = 0; b < Nblocks; ++b; @outer(0)) {
    @shared volatile dfloat s_sum[p_blockSize];
    for (int t = 0; t < p_blockSize; ++t; @inner(0)) {
      const dlong id = t + b*p_blockSize;
      s_sum[t] = (id < N) ? x[id]*x[id] : 0.0;
    }
    @barrier("local");
    for (int t = 0; t < p_blockSize; ++t; @inner(0)) if (t < 4) s_sum[t] += s_sum[t+4];
    @barrier("global");
    for (int t = 0; t < p_blockSize; ++t; @inner(0)) if (t < 2) s_sum[t] += s_sum[t+2];
    @barrier("local");
    for (int t = 0; t < p_blockSize; ++t; @inner(0)) if (t < 1) partial[b] = s_sum[0] + s_sum[1];
  }
}
`;

describe('OCCA 1.x\'s barrier types: @barrier("local") and @barrier("global")', () => {
  const opts = { defines: { ...HOST, p_blockSize: 8 } };

  it("are work-group barriers, each with a warning at its line (current OCCA accepts only \"warp\")", () => {
    const ks = parseOkl(SUM_SQUARES, opts);
    expect(ks.warnings.map((w) => [w.line, w.column, w.rule])).toEqual([[9, 5, "OCCA leniency"], [11, 5, "OCCA leniency"], [13, 5, "OCCA leniency"]]);
    expect(ks.warnings[1]!.message).toMatch(/^<okl>:11:5: warning: @barrier\("global"\) is OCCA 1\.x's spelling/);
  });

  it("the reduction agrees with its serial meaning on interp and openmp", async () => {
    const [k] = parseOkl(SUM_SQUARES, opts);
    const Nblocks = 3, N = 21, x = seeded(N, 41);
    const want = Float64Array.from({ length: Nblocks }, (_, b) => {
      const sq = Array.from({ length: 8 }, (_, t) => (b * 8 + t < N ? x[b * 8 + t]! ** 2 : 0));
      for (const h of [4, 2]) for (let t = 0; t < h; t++) sq[t]! += sq[t + h]!;
      return sq[0]! + sq[1]!;
    });
    await expectSerialMeaning(k!, () => ({ Nblocks, N, x: Float64Array.from(x), partial: new Float64Array(Nblocks) }), { partial: want }, 1e-14);
  });

  it('warnings: "error" refuses the first one with OCCA\'s message, and other types stay refused as OCCA refuses them', () => {
    const e = oklError(() => parseOkl(SUM_SQUARES, { ...opts, warnings: "error" }));
    expect([e.line, e.column, e.rule]).toEqual([9, 5, "@barrier arguments"]);
    expect(e.detail).toContain("[@barrier] has an invalid barrier type: local");
    const bad = oklError(() => parseOkl(SUM_SQUARES.replace('@barrier("global")', '@barrier("device")'), opts));
    expect([bad.line, bad.column, bad.detail]).toEqual([11, 5, "[@barrier] has an invalid barrier type: device"]);
  });
});

/** nekRS-style generated gather kernels: one GENERATE call written with a trailing comma. */
const GATHER = `#define OGS_DO_add(a,b) a += b
#define GENERATE(TN, T)                                                                   \\
@kernel void gatherAdd_##TN(const dlong Nrows, @restrict const dlong *starts,            \\
                            @restrict const dlong *ids, @restrict const T *q,            \\
                            @restrict T *gq) {                                            \\
  for (dlong r = 0; r < Nrows; ++r; @tile(p_blockSize, @outer, @inner)) {                 \\
    T s = 0;                                                                              \\
    for (dlong n = starts[r]; n < starts[r + 1]; ++n) { OGS_DO_add(s, q[ids[n]]); }       \\
    gq[r] = s;                                                                            \\
  }                                                                                       \\
}

GENERATE(double,double,)
GENERATE(int,int)
`;

describe("a trailing empty macro argument, which OCCA's preprocessor drops", () => {
  const opts = { defines: { dlong: "int", p_blockSize: 4 } };

  it("is dropped with a warning at the call; both kernels import", () => {
    const ks = parseOkl(GATHER, opts);
    expect(ks.map((k) => k.name)).toEqual(["gatherAdd_double", "gatherAdd_int"]);
    expect(ks.warnings.map((w) => [w.line, w.column])).toEqual([[13, 1]]);
    expect(ks.warnings[0]!.detail).toContain("macro GENERATE takes 2 argument(s): the empty argument after the last comma is dropped");
  });

  it("the gathers agree with their serial meaning on interp and openmp", async () => {
    const ks = parseOkl(GATHER, opts);
    const starts = Int32Array.from([0, 2, 2, 5, 6, 9]), ids = Int32Array.from([3, 0, 7, 1, 1, 4, 6, 2, 5]);
    const qd = seeded(8, 7), qi = Int32Array.from([5, -3, 8, 2, 0, 11, -7, 4]);
    const sum = (q: ArrayLike<number>) => Array.from({ length: 5 }, (_, r) => {
      let s = 0;
      for (let n = starts[r]!; n < starts[r + 1]!; n++) s += q[ids[n]!]!;
      return s;
    });
    const args = (q: Float64Array | Int32Array) => () => ({ Nrows: 5, starts, ids, q: q.slice(), gq: q instanceof Int32Array ? new Int32Array(5) : new Float64Array(5) });
    await expectSerialMeaning(ks[0]!, args(Float64Array.from(qd)), { gq: sum(qd) }, 1e-14, { checkBounds: false });
    await expectSerialMeaning(ks[1]!, args(qi), { gq: sum(qi) }, 0, { checkBounds: false });
  });

  it('warnings: "error" refuses it at the call, and an extra argument that is not empty stays refused (C and OCCA refuse it)', () => {
    expect(oklError(() => parseOkl(GATHER, { ...opts, warnings: "error" })).line).toBe(13);
    const e = oklError(() => parseOkl(GATHER.replace("GENERATE(int,int)", "GENERATE(int,int,x)"), opts));
    expect([e.line, e.column, e.detail]).toEqual([14, 1, "macro GENERATE expects 2 argument(s), got 3"]);
  });
});

/** A libParanumal-style element size and wave speed: assignments used as values. */
const WAVE_SPEED = `@kernel void elementSpeed(const dlong Nelements, @restrict const dfloat *wJ,
                          @restrict const dfloat *u, @restrict dfloat *hmin, @restrict dfloat *speed) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    @shared dfloat s_J[p_Nq];
    @shared dfloat s_max[p_Nq];
    for (int i = 0; i < p_Nq; ++i; @inner(0)) {
      s_J[i] = s_max[i] = 0;
      for (int j = 0; j < p_Nq; ++j) {
        const dlong id = e*p_Np + j*p_Nq + i;
        s_J[i] += wJ[id];
        const dfloat c = fabs(u[id]);
        if (c > s_max[i]) s_max[i] = c;
      }
    }
    for (int n = 0; n < p_Nq; ++n; @inner(0)) if (n < 2) { s_J[n] += s_J[n+2]; s_max[n] = fmax(s_max[n], s_max[n+2]); }
    for (int n = 0; n < p_Nq; ++n; @inner(0)) {
      if (n == 0) {
        const dfloat J = s_J[0] += s_J[1];
        dfloat vmax;
        if (s_max[1] > s_max[0]) vmax = s_max[0] = s_max[1]; else vmax = s_max[0];
        hmin[e] = J;
        speed[e] = vmax / J;
      }
    }
  }
}
`;

describe("an assignment used as a value: a declaration's initializer and chained assignments", () => {
  const opts = { defines: { ...HOST, p_Nq: 4, p_Np: 16 } };

  it("agrees with its serial meaning on interp and openmp", async () => {
    const [k] = parseOkl(WAVE_SPEED, opts);
    const E = 3, wJ = seeded(16 * E, 3).map((x) => 1.5 + x), u = seeded(16 * E, 4);
    const hmin = new Float64Array(E), speed = new Float64Array(E);
    for (let e = 0; e < E; e++) {
      const J = [0, 0, 0, 0], M = [0, 0, 0, 0];
      for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) { J[i]! += wJ[e * 16 + j * 4 + i]!; M[i] = Math.max(M[i]!, Math.abs(u[e * 16 + j * 4 + i]!)); }
      for (let n = 0; n < 2; n++) { J[n]! += J[n + 2]!; M[n] = Math.max(M[n]!, M[n + 2]!); }
      hmin[e] = J[0]! + J[1]!;
      speed[e] = Math.max(M[0]!, M[1]!) / hmin[e]!;
    }
    await expectSerialMeaning(k!, () => ({ Nelements: E, wJ: Float64Array.from(wJ), u: Float64Array.from(u), hmin: new Float64Array(E), speed: new Float64Array(E) }), { hmin, speed }, 1e-14);
  });

  it("an assignment whose target has side effects stays refused at its line and column, saying what is accepted", () => {
    const e = oklError(() => parseOkl(WAVE_SPEED.replace("const dfloat J = s_J[0] += s_J[1];", "int m = 0; const dfloat J = s_J[m++] += s_J[1];"), opts));
    expect([e.line, e.column]).toEqual([18, 37]);
    expect(e.detail).toContain("supported only as a declaration's initializer or in a chain `a = b = c`");
  });
});

describe("law: a chain of assignments means what C says", () => {
  const VARS = ["a", "b", "c", "d"] as const;
  const START = [1.5, -2, 3, 0.25];
  const OPS = ["=", "+=", "-=", "*="] as const;
  const apply = (op: (typeof OPS)[number], t: number, v: number) => (op === "=" ? v : op === "+=" ? t + v : op === "-=" ? t - v : t * v);
  const chainArb = fc.record({
    order: fc.shuffledSubarray([0, 1, 2, 3], { minLength: 1, maxLength: 4 }),
    ops: fc.array(fc.constantFrom(...OPS), { minLength: 4, maxLength: 4 }),
    value: fc.integer({ min: -9, max: 9 }),
    declared: fc.boolean(),
  });

  it("for all chains t1 op1 t2 op2 … = k (as a statement or a declaration's initializer), interp gives C's values", async () => {
    await fc.assert(fc.asyncProperty(chainArb, async ({ order, ops, value, declared }) => {
      const chain = order.map((v, i) => `${VARS[v]} ${ops[i]} `).join("") + `${value}.0`;
      const stmt = declared ? `const double x = ${chain};` : `double x = 0.0; ${chain};`;
      const src = `@kernel void chain(double *out) {
  for (int b = 0; b < 1; ++b; @outer) for (int t = 0; t < 1; ++t; @inner) {
    double a = ${START[0]}, b = ${START[1]}, c = ${START[2]}, d = ${START[3]};
    ${stmt}
    out[0] = a; out[1] = b; out[2] = c; out[3] = d; out[4] = x;
  }
}`;
      const vals = [...START];
      let v = value;
      for (let i = order.length - 1; i >= 0; i--) v = vals[order[i]!] = apply(ops[i]!, vals[order[i]!]!, v);
      const want = [...vals, declared ? v : 0];
      const [k] = parseOkl(src);
      const out = (await run(k!, { out: new Float64Array(5) } as never, { backend: "interp" } as never)) as { out: Float64Array };
      expect(Array.from(out.out)).toEqual(want);
    }), { numRuns: 25, seed: 2011 });
  });
});

describe("OCCA 0.x's kernel language", () => {
  it("is refused at `kernel void` with the rewrite to OKL 1.0's attributes", () => {
    const src = "\n// legacy block Jacobi\nkernel void precon(const int N, const dfloat *q, dfloat *Pq){\n  for(int e=0;e<N;++e;outer0){ }\n}\n";
    const e = oklError(() => parseOkl(src, opts0));
    expect([e.line, e.column, e.rule]).toEqual([3, 1, "OKL version"]);
    expect(e.detail).toContain("write @kernel, @outer(0)/@inner(0)");
  });
  const opts0 = { defines: HOST };
});

/** A nekRS-style source term: the host chooses the loop nest (velocity: three components; scalar: a block-wise shift). */
const SOURCE = `@kernel void addSource(const dlong N, const int isVelocity, const dlong offset, const dfloat idt,
                       @restrict const dfloat *rho, @restrict const dfloat *U, @restrict dfloat *BF) {
  const dfloat scale = 2 * idt;
  if (isVelocity) {
    for (dlong id = 0; id < N; ++id; @tile(p_blockSize, @outer, @inner)) {
      for (int c = 0; c < 3; ++c) BF[id + c * offset] += scale * rho[id] * U[id + c * offset];
    }
  } else if (offset > 0) {
    for (dlong b = 0; b < (N + p_blockSize - 1) / p_blockSize; ++b; @outer(0)) {
      @shared dfloat s_u[p_blockSize];
      for (int t = 0; t < p_blockSize; ++t; @inner(0)) {
        const dlong id = b * p_blockSize + t;
        s_u[t] = (id < N) ? U[id] : 0;
      }
      @barrier;
      for (int t = 0; t < p_blockSize; ++t; @inner(0)) {
        const dlong id = b * p_blockSize + t;
        if (id < N) BF[id] += idt * s_u[(t + 1) % p_blockSize];
      }
    }
  }
}
`;

describe("a host-level if choosing the @outer nests (OCCA runs it on the host)", () => {
  const opts = { defines: { ...HOST, p_blockSize: 4 } };
  const N = 10, offset = 12, idt = 0.5, rho = seeded(N, 21), U = seeded(3 * offset, 22), BF0 = seeded(3 * offset, 23);
  const run = (isVelocity: number, off: number) => {
    const bf = Float64Array.from(BF0);
    if (isVelocity) for (let id = 0; id < N; id++) for (let c = 0; c < 3; c++) bf[id + c * off]! += 2 * idt * rho[id]! * U[id + c * off]!;
    else if (off > 0) for (let id = 0; id < N; id++) { const b = Math.floor(id / 4), t = (id % 4 + 1) % 4; bf[id]! += idt * (b * 4 + t < N ? U[b * 4 + t]! : 0); }
    return bf;
  };

  it("runs the branch the arguments choose, on interp and openmp, against the serial meaning", async () => {
    const [k] = parseOkl(SOURCE, opts);
    for (const [isVelocity, off] of [[1, offset], [0, offset], [0, 0]] as const) {
      await expectSerialMeaning(k!, () => ({ N, isVelocity, offset: off, idt, rho: Float64Array.from(rho), U: Float64Array.from(U), BF: Float64Array.from(BF0) }), { BF: run(isVelocity, off) }, 1e-14);
    }
  });

  it("a condition that reads memory stays refused at the if's line and column (OCCA's host code has no device memory)", () => {
    const e = oklError(() => parseOkl(SOURCE.replace("if (isVelocity) {", "if (rho[0] > 0) {"), opts));
    expect([e.line, e.column]).toEqual([4, 3]);
    expect(e.detail).toContain("host statement outside the @outer loops");
  });
});
