/**
 * The address of a private scalar (or a struct field) passed as a pointer argument to a device
 * function that writes through it, as finite-element and CFD codes write boundary and initial
 * conditions: `initialCondition(t, x[id], y[id], &r, &u)` with `dfloat *r` outputs, and data-file
 * macros that expand to `*(&r) = …`. Each kernel runs on interp and openmp against its serial
 * meaning written in TypeScript.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";
import { SETUP_IC, MASS_MATRIX, WALL_VELOCITY, BOUNDARY_DATA } from "./real-world-kernels.js";

const f32 = Math.fround;

describe("device functions with pointer outputs bound to private scalars", () => {
  const SRC = SETUP_IC;

  const serial = (N: number, t: number, x: number[], y: number[]): Float32Array => {
    const q = new Float32Array(4 * N * 8);
    for (let id = 0; id < N * 8; id++) {
      const X = f32(x[id]!), Y = f32(y[id]!);
      const r = f32(1 + f32(f32(0.5 * X) * Y));
      let u = f32(f32(t * X) - Y);
      if (X > 0) u = f32(u + 1);
      const uB = f32(f32(X * Y) - t), vB = f32(X + f32(2 * Y));
      q[4 * id] = r; q[4 * id + 1] = u; q[4 * id + 2] = f32(uB + f32(2 * vB)); q[4 * id + 3] = f32(r * 3);
    }
    return q;
  };

  it("imports (the pointers are the caller's scalars, no pointer argument appears)", () => {
    const [k] = parseOkl(SRC);
    expect(k!.args.map((a) => a.name)).toEqual(["Nelements", "t", "x", "y", "q"]);
  });

  for (const N of [1, 3]) {
    it(`agrees with the serial meaning on interp and openmp (${N} elements)`, async () => {
      const [k] = parseOkl(SRC);
      const x = seeded(N * 8, 1 + N), y = seeded(N * 8, 7 + N);
      const t = f32(0.25);
      await expectSerialMeaning(k!, () => ({ Nelements: N, t, x: Float32Array.from(x), y: Float32Array.from(y), q: new Float32Array(4 * N * 8) }),
        { q: serial(N, t, x, y) });
    });
  }

  it("an element-local mass-matrix product: @shared input, @exclusive accumulator updated through a pointer", async () => {
    const [k] = parseOkl(MASS_MATRIX);
    const N = 4, Np = 6;
    const MM = seeded(Np * Np, 3), q = seeded(N * Np, 5);
    const want = new Float64Array(N * Np);
    for (let e = 0; e < N; e++) for (let n = 0; n < Np; n++) {
      let acc = 0;
      for (let m = 0; m < Np; m++) acc += MM[n + m * Np]! * q[e * Np + m]!;
      want[e * Np + n] = acc;
    }
    await expectSerialMeaning(k!, () => ({ Nelements: N, MM: Float64Array.from(MM), q: Float64Array.from(q), Mq: new Float64Array(N * Np) }), { Mq: want }, 1e-12);
  });

  it("struct boundary data: the address of a field of a local struct", async () => {
    const [k] = parseOkl(WALL_VELOCITY);
    const N = 7, x = seeded(N, 11);
    const want = new Float64Array(2 * N);
    x.forEach((v, i) => { want[2 * i] = v * v; want[2 * i + 1] = -v; });
    await expectSerialMeaning(k!, () => ({ N, x: Float64Array.from(x), w: new Float64Array(2 * N) }), { w: want }, 0);
  });

  it("property: for any coefficient, the output through the pointer is the serial value", async () => {
    const fc = await import("fast-check");
    const [k] = parseOkl(`
void scale(const float a, const float x, float *y) { *y = a * x; }
@kernel void f(const int n, const float a, const float *x, float *out) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { float y; scale(a, x[i], &y); out[i] = y; }
}`);
    await fc.assert(fc.asyncProperty(fc.float({ min: -100, max: 100, noNaN: true }), fc.integer({ min: 1, max: 9 }), async (a, n) => {
      const x = seeded(n, n);
      const want = Float32Array.from(x, (v) => f32(f32(a) * f32(v)));
      await expectSerialMeaning(k!, () => ({ n, a: f32(a), x: Float32Array.from(x), out: new Float32Array(n) }), { out: want }, 0);
    }), { numRuns: 5 });
  });
});

describe("struct boundary data mixing int and double fields (a local: one private scalar per field)", () => {
  it("the CFD code's bcData filled per point and passed as &bc to the user's function, on interp and openmp", async () => {
    const [k] = parseOkl(BOUNDARY_DATA);
    const N = 4, Nfp = 4, time = 0.5;
    const EToB = [0, 1, 2, 3], x = seeded(N * Nfp, 1), y = seeded(N * Nfp, 2), z = seeded(N * Nfp, 3);
    const U0 = seeded(3 * N * Nfp, 4);
    const want = Float64Array.from(U0);
    for (let e = 0; e < N; e++) for (let n = 0; n < Nfp; n++) {
      const id = e * Nfp + n;
      if (EToB[e]! <= 0) continue;
      want[3 * id] = x[id]! * time;
      want[3 * id + 1] = -y[id]! + 0.5;
      want[3 * id + 2] = (EToB[e] === 2 ? 1 : z[id]!) + id;
    }
    await expectSerialMeaning(k!, () => ({ Nelements: N, time, EToB: Int32Array.from(EToB), x: Float64Array.from(x), y: Float64Array.from(y), z: Float64Array.from(z), U: Float64Array.from(U0) }), { U: want }, 1e-15);
  });

  it("a field the struct does not have, and the struct used as a scalar, are named", () => {
    const noField = oklError(() => parseOkl(BOUNDARY_DATA.replace("bc->v = -bc->y", "bc->v = -bc->q")));
    expect(noField.message).toContain('no field "q"');
    const whole = oklError(() => parseOkl(BOUNDARY_DATA.replace("U[3 * id + 0] = bc.u;", "U[3 * id + 0] = bc;")));
    expect(whole.message).toContain('struct "bcData"');
  });
});

describe("errors name the user's variable and show the line", () => {
  it("an undeclared variable whose address is passed", () => {
    const e = oklError(() => parseOkl(`
void set(float *r) { *r = 1; }
@kernel void f(const int n, float *q) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { set(&rr); q[i] = 0; }
}`));
    expect(e.message).toContain('"rr"');
    expect(e.line).toBe(4);
    expect(e.message).not.toContain("the pointer");
    expect(e.message).toContain("set(&rr)");
  });

  it("reading past the scalar a pointer points to", () => {
    const e = oklError(() => parseOkl(`
float second(const float *p) { return p[1]; }
@kernel void f(const int n, float *q) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { float r = 2; q[i] = second(&r); }
}`));
    expect(e.message).toContain('points to the scalar "r"');
    expect(e.line).toBe(2);
  });

  it("a macro deref of something that is not a pointer names the expression", () => {
    const e = oklError(() => parseOkl(`
#define SET(p) *(p) = 1.0f;
@kernel void f(const int n, float *q) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { float r; SET(r + 1) q[i] = r; }
}`));
    expect(e.line).toBe(4);
    expect(e.message).not.toContain("the pointer");
  });
});
