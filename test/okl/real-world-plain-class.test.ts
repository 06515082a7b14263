/**
 * C++ classes and structs without template parameters but with a constructor and member functions,
 * as solver codes write a per-node flux or a per-element geometry helper: built in the loop body
 * from the kernel's arguments, its methods called per work-item. Loom reads them with the machinery
 * of class templates (real-world-class-template.test.ts): the object is a struct local, each member a
 * device function taking it by address. Kernels written here, run on interp and openmp against their
 * serial meaning; what stays outside is refused naming the construct and its place, as for templates.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const UPWIND = `
#define dfloat double
#define p_Np 4

// The upwind flux of linear advection with speed c, scaled by the face's Jacobian.
struct UpwindFlux {
  UpwindFlux(dfloat speed, dfloat sJ) : c(speed), scale(sJ) { if (c < 0) flips = 1; else flips = 0; }

  dfloat upwind(dfloat qM, dfloat qP) const { return flips ? qP : qM; }

  dfloat flux(dfloat qM, dfloat qP) { return this->scale * c * upwind(qM, qP); }

  void rescale(dfloat f) { scale *= f; }

  dfloat c;
  dfloat scale;
  int flips;
};

@kernel void advectionSurface(const int Nelements, const dfloat c, @restrict const dfloat *sgeo,
                              @restrict const dfloat *q, @restrict dfloat *rhs) {
  for (int e = 0; e < Nelements; ++e; @outer(0)) {
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      const int id = e * p_Np + n;
      const int idP = ((e + 1) % Nelements) * p_Np + n;
      UpwindFlux F(c, sgeo[e]);
      if (n == p_Np - 1) F.rescale(0.5);
      rhs[id] = F.flux(q[id], q[idP]) + F.scale;
    }
  }
}`;

/** The serial meaning of advectionSurface. */
function surface(N: number, c: number, sgeo: readonly number[], q: readonly number[]): Float64Array {
  const rhs = new Float64Array(N * 4);
  for (let e = 0; e < N; e++) {
    for (let n = 0; n < 4; n++) {
      const id = e * 4 + n, idP = ((e + 1) % N) * 4 + n;
      const scale = sgeo[e]! * (n === 3 ? 0.5 : 1);
      rhs[id] = scale * c * (c < 0 ? q[idP]! : q[id]!) + scale;
    }
  }
  return rhs;
}

describe("a struct with a constructor and member functions (no template)", () => {
  it("imports as a struct local with its methods inlined (no argument for the object)", () => {
    const [k] = parseOkl(UPWIND);
    expect(k!.args.map((a) => a.name).filter((a) => !a.endsWith("_end"))).toEqual(["Nelements", "c", "sgeo", "q", "rhs"]);
  });

  for (const c of [0.75, -1.5]) {
    it(`agrees with the serial meaning on interp and openmp (speed ${c})`, async () => {
      const [k] = parseOkl(UPWIND);
      const N = 5, sgeo = seeded(N, 3), q = seeded(4 * N, 4);
      await expectSerialMeaning(k!, () => ({ Nelements: N, c, sgeo: Float64Array.from(sgeo), q: Float64Array.from(q), rhs: new Float64Array(4 * N) }),
        { rhs: surface(N, c, sgeo, q) }, 1e-12);
    });
  }

  it("a class without template arguments (`W w(g); w.f(x)`), default-constructed objects and two classes", async () => {
    const [k] = parseOkl(`
#define dfloat float
struct W {
  dfloat s;
  W(dfloat g) : s(g) {}
  dfloat f(dfloat x) { return s*x; }
};
class Counter {
public:
  Counter() : hits(0) {}
  void see(dfloat v, dfloat cut) { if (v > cut) ++hits; }
  int count() const { return hits; }
private:
  int hits;
};
@kernel void weigh(const int n, const dfloat g, const dfloat *x, dfloat *y, int *above) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    W w(g);
    Counter k;
    for (int j = 0; j < 3; ++j) k.see(x[3*i + j], w.s);
    y[i] = w.f(x[3*i]);
    above[i] = k.count();
  }
}`);
    const n = 6, g = 0.25, x = seeded(3 * n, 9);
    const f32 = Math.fround;
    const y = Float32Array.from({ length: n }, (_, i) => f32(f32(g) * f32(x[3 * i]!)));
    const above = Int32Array.from({ length: n }, (_, i) => [0, 1, 2].filter((j) => f32(x[3 * i + j]!) > f32(g)).length);
    await expectSerialMeaning(k!, () => ({ n, g, x: Float32Array.from(x), y: new Float32Array(n), above: new Int32Array(n) }), { y, above }, 1e-6);
  });
});

describe("struct kernel arguments with member functions (a boundary record with its own helpers)", () => {
  const BOUNDARY = `
#define dfloat double
struct Face {
  dfloat nx, ny;
  dfloat normal(dfloat u, dfloat v) const { return u * nx + v * ny; }
  void flip() { nx = -nx; ny = -ny; }
};
struct Tagged {
  int bc;
  dfloat weight;
  dfloat scaled(dfloat q) const { return bc == 1 ? -weight * q : weight * q; }
  void mark() { bc += 10; }
};
@kernel void boundaryFlux(const int Nfaces, const Face *faces, Tagged *tags, const dfloat *u, const dfloat *v, dfloat *flux) {
  for (int f = 0; f < Nfaces; ++f; @tile(4, @outer, @inner)) {
    Face local = faces[f];                  // a copy (C++'s implicit copy constructor)
    if (f % 2) local.flip();
    const dfloat un = faces[f].normal(u[f], v[f]) + local.normal(1.0, 0.0);
    flux[f] = tags[f].scaled(un);
    tags[f].mark();
  }
}`;

  it("objs[i].m() on pointer arguments (one field type, and mixed int/double fields), and a copy S s = objs[i], on interp and openmp", async () => {
    const [k] = parseOkl(BOUNDARY);
    const F = 6, faces = seeded(2 * F, 11), u = seeded(F, 12), v = seeded(F, 13);
    const bc = [1, 0, 2, 1, 0, 1], weight = seeded(F, 14);
    const flux = faces.slice(0, F).map((_, f) => {
      const [nx, ny] = [faces[2 * f]!, faces[2 * f + 1]!];
      const un = u[f]! * nx + v[f]! * ny + (f % 2 ? -nx : nx);
      return bc[f] === 1 ? -weight[f]! * un : weight[f]! * un;
    });
    await expectSerialMeaning(k!, () => ({
      Nfaces: F, faces: Float64Array.from(faces), tags_bc: Int32Array.from(bc), tags_weight: Float64Array.from(weight),
      u: Float64Array.from(u), v: Float64Array.from(v), flux: new Float64Array(F),
    }), { flux, tags_bc: bc.map((b) => b + 10) }, 1e-12);
  });
});

describe("what stays outside the class subset is refused at its place, as for class templates", () => {
  const cls = (member: string, use = "o.f(a, i);") => `
struct C {
  C(float s) : _s(s) {}
  ${member}
  float _s;
};
@kernel void k(const int n, float *a) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) { C o(1.0f); ${use} }
}`;

  for (const [member, construct, column] of [
    ["virtual void f(float *a, int i) { a[i] = _s; }", /C\+\+ classes \(virtual\)/, 3],
    ["~C() {}", /C\+\+ destructors/, 3],
    ["static int count;", /C\+\+ static data members that are not const/, 3],
    ["void f(float *a, int i);", /C\+\+ member functions declared in the class and defined outside it/, 3],
  ] as const) {
    it(construct.source, () => {
      const err = oklError(() => parseOkl(cls(member)));
      expect(err.message).toMatch(construct);
      expect([err.line, err.column, err.rule]).toEqual([4, column, "OKL subset"]);
    });
  }

  it("a member function the class does not define", () => {
    const err = oklError(() => parseOkl(cls("void f(float *a, int i) { a[i] = _s; }", "o.g(a, i);")));
    expect(err.line).toBe(8);
    expect(err.message).toMatch(/"o" \(a "C"\) has no member function "g"; its member functions are f/);
  });

  it("an array of objects of a class with a constructor (C++ constructs each element)", () => {
    const err = oklError(() => parseOkl(cls("void f(float *a, int i) { a[i] = _s; }", "C arr[2]; arr[0]._s = 1;")));
    expect([err.line, err.rule]).toEqual([8, "OKL subset"]);
    expect(err.message).toMatch(/array of objects "arr": C\+\+ runs the constructor of "C" on each element/);
  });
});
