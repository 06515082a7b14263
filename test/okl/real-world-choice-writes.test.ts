/**
 * Writes through a local pointer chosen at run time (src/okl/lower/choice-writes.ts), as solver codes
 * write them: a Runge-Kutta stage picks its output buffer (`dfloat *rhs = stage ? rhsB : rhsA;`), a
 * face kernel picks the flux array by the element's boundary type, a switch picks a @shared buffer, a
 * `?:` picks one of two private accumulators. One conditional store per target; each kernel runs on
 * interp and openmp against its serial meaning written in TypeScript. Two targets in one array at
 * offsets the loop bounds do not prove apart are refused (their stores could overlap across work-items;
 * ping-pong halves proven apart: real-world-ping-pong.test.ts).
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const RK_STAGE = `
#define dfloat double
#define p_Np 4
@kernel void rkStage(const int Nelements, const int stage, const dfloat dt, @restrict const dfloat *q,
                     @restrict dfloat *rhsA, @restrict dfloat *rhsB) {
  for (int e = 0; e < Nelements; ++e; @outer(0)) {
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      const int id = e * p_Np + n;
      dfloat *rhs = (stage == 0) ? rhsA : rhsB;   // the stage's output buffer
      rhs[id] = dt * q[id];
      rhs[id] += 0.5 * q[id] * q[id];             // a compound update through the chosen pointer
      dfloat *node = rhs + id;                    // an alias of the chosen pointer
      if (n == 0) *node = -1.0;                   // each element's first node, written through *node
    }
  }
}`;

const FACE_FLUX = `
#define dfloat double
#define p_Nfp 3
@kernel void faceFlux(const int Nelements, @restrict const int *bcType, @restrict const dfloat *uM,
                      @restrict const dfloat *uP, @restrict dfloat *wallFlux, @restrict dfloat *interiorFlux) {
  for (int e = 0; e < Nelements; ++e; @outer(0)) {
    for (int f = 0; f < p_Nfp; ++f; @inner(0)) {
      const int id = e * p_Nfp + f;
      dfloat *flux;
      switch (bcType[e]) {
        case 1: flux = wallFlux; break;          // wall: a mirrored state
        default: flux = interiorFlux;
      }
      const dfloat avg = 0.5 * (uM[id] + uP[id]);
      flux[id] = bcType[e] == 1 ? -uM[id] : avg;
    }
  }
}`;

const SHARED_SPLIT = `
#define dfloat double
#define p_Nq 4
@kernel void evenOdd(const int Nelements, @restrict const dfloat *q, @restrict dfloat *out) {
  for (int e = 0; e < Nelements; ++e; @outer(0)) {
    @shared dfloat s_even[p_Nq], s_odd[p_Nq];
    for (int n = 0; n < p_Nq; ++n; @inner(0)) {
      s_even[n] = 0; s_odd[n] = 0;
    }
    @barrier();
    for (int n = 0; n < p_Nq; ++n; @inner(0)) {
      dfloat *s;
      if (n % 2 == 0) s = s_even; else s = s_odd;
      s[n] = q[e * p_Nq + n] * 2;
    }
    @barrier();
    for (int n = 0; n < p_Nq; ++n; @inner(0)) {
      out[e * p_Nq + n] = s_even[n] - s_odd[n];
    }
  }
}`;

const PRIVATE_PICK = `
#define dfloat double
@kernel void posNeg(const int N, @restrict const dfloat *x, @restrict dfloat *parts) {
  for (int b = 0; b < N; ++b; @outer(0)) {
    for (int t = 0; t < 1; ++t; @inner(0)) {
      dfloat pos = 0, neg = 0;
      for (int k = 0; k < 4; ++k) {
        dfloat *acc = x[4 * b + k] > 0 ? &pos : &neg;
        *acc += x[4 * b + k];
      }
      parts[2 * b] = pos;
      parts[2 * b + 1] = neg;
    }
  }
}`;

describe("writes through a pointer chosen at run time", () => {
  it("a Runge-Kutta stage writes the buffer its stage picks (=, += and *p)", async () => {
    const [k] = parseOkl(RK_STAGE);
    const N = 3, q = seeded(N * 4, 11), dt = 0.125;
    for (const stage of [0, 1]) {
      const chosen = q.map((v, id) => (id % 4 === 0 ? -1 : dt * v + 0.5 * v * v));
      const untouched = q.map(() => 7);
      await expectSerialMeaning(k!, () => ({ Nelements: N, stage, dt, q: Float64Array.from(q), rhsA: new Float64Array(N * 4).fill(7), rhsB: new Float64Array(N * 4).fill(7) }),
        stage === 0 ? { rhsA: chosen, rhsB: untouched } : { rhsA: untouched, rhsB: chosen }, 1e-12);
    }
  });

  it("a face kernel writes the flux array its element's boundary type picks (a switch)", async () => {
    const [k] = parseOkl(FACE_FLUX);
    const N = 4, bc = [1, 0, 2, 1], uM = seeded(N * 3, 2), uP = seeded(N * 3, 3);
    const wall = new Array<number>(N * 3).fill(9), interior = new Array<number>(N * 3).fill(9);
    for (let e = 0; e < N; e++) for (let f = 0; f < 3; f++) {
      const id = e * 3 + f;
      if (bc[e] === 1) wall[id] = -uM[id]!;
      else interior[id] = 0.5 * (uM[id]! + uP[id]!);
    }
    await expectSerialMeaning(k!, () => ({ Nelements: N, bcType: Int32Array.from(bc), uM: Float64Array.from(uM), uP: Float64Array.from(uP), wallFlux: new Float64Array(N * 3).fill(9), interiorFlux: new Float64Array(N * 3).fill(9) }),
      { wallFlux: wall, interiorFlux: interior }, 1e-12);
  });

  it("work-items write the @shared buffer an if/else picks", async () => {
    const [k] = parseOkl(SHARED_SPLIT);
    const N = 2, q = seeded(N * 4, 5);
    const want = q.map((v, id) => (id % 2 === 0 ? 2 * v : -2 * v));
    await expectSerialMeaning(k!, () => ({ Nelements: N, q: Float64Array.from(q), out: new Float64Array(N * 4) }), { out: want }, 1e-12);
  });

  it("a ?: picks one of two private accumulators (scalar addresses)", async () => {
    const [k] = parseOkl(PRIVATE_PICK);
    const N = 3, x = seeded(N * 4, 8);
    const want: number[] = [];
    for (let b = 0; b < N; b++) {
      let pos = 0, neg = 0;
      for (let j = 0; j < 4; j++) if (x[4 * b + j]! > 0) pos += x[4 * b + j]!; else neg += x[4 * b + j]!;
      want.push(pos, neg);
    }
    await expectSerialMeaning(k!, () => ({ N, x: Float64Array.from(x), parts: new Float64Array(2 * N) }), { parts: want }, 1e-12);
  });

  it("refuses two targets in one array at offsets closer than the subscripts reach, naming the pointer and the array (real-world-ping-pong.test.ts)", () => {
    const e = oklError(() => parseOkl(RK_STAGE.replace("(stage == 0) ? rhsA : rhsB", "(stage == 0) ? rhsA : rhsA + p_Np")));
    expect(e.message).toMatch(/cannot write through pointer "rhs": two of the targets it is chosen among are the same array "rhsA" at different offsets/);
    expect(e.message).toMatch(/:10:7:/); // the first write through it
  });

  it("refuses a target that is a const scalar's address", () => {
    const e = oklError(() => parseOkl(PRIVATE_PICK.replace("dfloat pos = 0, neg = 0;", "dfloat pos = 0; const dfloat neg = 0;")));
    expect(e.message).toMatch(/cannot write through pointer "acc": one of the targets it is chosen among is "neg"/);
  });
});

const DEVICE_ARGS = `
#define dfloat double
#define p_Np 4
void axpy(const int id, const dfloat alpha, const dfloat *x, dfloat *y) { y[id] += alpha * x[id]; }
void store(const int id, const dfloat v, dfloat *out) { out[id] = v; }
dfloat pick(const dfloat *p, const int id) { return p[id]; }
@kernel void split(const int Nelements, const int half, @restrict const int *bcType, @restrict const dfloat *q, @restrict const dfloat *r,
                   @restrict dfloat *outA, @restrict dfloat *outB, @restrict dfloat *wallFlux, @restrict dfloat *interiorFlux) {
  for (int e = 0; e < Nelements; ++e; @outer(0)) {
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      const int id = e * p_Np + n;
      axpy(id, 2.0, (n < half) ? q : r, (e % 2 == 0) ? outA : outB);   // ?: pointers as arguments, written through
      dfloat *dst = (bcType[e] == 1) ? wallFlux : interiorFlux;         // a chosen local pointer passed on
      store(id, pick(n < half ? r : q, id), dst);
    }
  }
}`;

describe("pointers chosen by ?: (or chosen locals) passed to device functions", () => {
  it("agrees with the serial meaning: writes and reads through the chosen parameters", async () => {
    const [k] = parseOkl(DEVICE_ARGS);
    const N = 3, half = 2, bc = [1, 0, 1], q = seeded(N * 4, 21), r = seeded(N * 4, 22);
    const outA = new Array<number>(N * 4).fill(1), outB = new Array<number>(N * 4).fill(1);
    const wall = new Array<number>(N * 4).fill(0), interior = new Array<number>(N * 4).fill(0);
    for (let e = 0; e < N; e++) for (let n = 0; n < 4; n++) {
      const id = e * 4 + n;
      const x = n < half ? q : r;
      (e % 2 === 0 ? outA : outB)[id]! += 2 * x[id]!;
      (bc[e] === 1 ? wall : interior)[id] = (n < half ? r : q)[id]!;
    }
    await expectSerialMeaning(k!, () => ({
      Nelements: N, half, bcType: Int32Array.from(bc), q: Float64Array.from(q), r: Float64Array.from(r),
      outA: new Float64Array(N * 4).fill(1), outB: new Float64Array(N * 4).fill(1), wallFlux: new Float64Array(N * 4), interiorFlux: new Float64Array(N * 4),
    }), { outA, outB, wallFlux: wall, interiorFlux: interior }, 1e-12);
  });

  it("refuses a ?: argument whose condition reads memory, naming the local pointer that is supported", () => {
    const e = oklError(() => parseOkl(DEVICE_ARGS.replace("store(id, pick(n < half ? r : q, id), dst);", "store(id, q[id], bcType[e] == 1 ? wallFlux : interiorFlux);")));
    expect(e.message).toMatch(/pointer "out" is passed as `\?:` whose condition reads the array "bcType".*assign the `\?:` to a local pointer first/);
  });
});
