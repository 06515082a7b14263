/**
 * A struct local whose pointer field is assigned a kernel argument and read by a device function
 * given the struct's address, as the spectral-element CFD code's boundary kernels do (`bc.usrwrk =
 * W; userBC(&bc);` with `bc->usrwrk[bc->idM]` in the user's function): the field is an alias of the
 * argument, with its offset. Run on interp and openmp against the serial meaning.
 */
import { describe, expect, it } from "vitest";
import * as lp from "../../src/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const STRUCT = `
struct bcData {
  char fieldName[8];
  int idM;
  int fieldOffset;
  double time;
  double x, u, v;
  @globalPtr const double *usrwrk;
  double trans;
};
`;

/** A user's boundary function (the data-file style): reads the work array through the struct. */
const USER = `
void userVelocity(struct bcData *bc) {
  bc->u = bc->usrwrk[bc->idM] + bc->time * bc->x;
  bc->v = bc->usrwrk[bc->idM + bc->fieldOffset] * bc->trans;
}
`;

const KERNEL = `${STRUCT}${USER}
@kernel void velocityDirichlet(const int Nelements, const int offset, const double time,
                               @restrict const int *vmapM, @restrict const int *EToB,
                               @restrict const double *X, @restrict const double *W, @restrict double *U) {
  for (int e = 0; e < Nelements; ++e; @outer(0)) {
    for (int n = 0; n < p_Nfp; ++n; @inner(0)) {
      struct bcData bc;
      const int idM = vmapM[e * p_Nfp + n];
      if (EToB[e] == 1) {
        bc.idM = idM;
        bc.fieldOffset = offset;
        bc.time = time;
        bc.x = X[idM];
        bc.trans = 2.0;
        bc.usrwrk = W + offset;
        userVelocity(&bc);
        U[idM] = bc.u;
        U[idM + offset] = bc.v;
      }
    }
  }
}
`;

describe("a struct local's pointer field bound to a kernel argument (nekRS's bc.usrwrk)", () => {
  const Nfp = 4, Nelements = 5, N = Nfp * Nelements, offset = N + 3;
  const [k] = lp.parseOkl(KERNEL, { defines: { p_Nfp: Nfp } });
  // vmapM: a permutation, so no two work-items write one point.
  const vmapM = Int32Array.from({ length: N }, (_, i) => (7 * i + 3) % N);
  const EToB = Int32Array.from({ length: Nelements }, (_, e) => (e % 3 === 1 ? 0 : 1));
  const X = Float64Array.from(seeded(N, 1));
  const W = Float64Array.from(seeded(3 * offset, 2));
  const U0 = Float64Array.from(seeded(2 * offset, 3));
  const time = 0.75;

  it("reads through the field as the argument at its offset, on interp and openmp", async () => {
    const U = Float64Array.from(U0);
    for (let e = 0; e < Nelements; e++) {
      if (EToB[e] !== 1) continue;
      for (let n = 0; n < Nfp; n++) {
        const idM = vmapM[e * Nfp + n]!;
        U[idM] = W[offset + idM]! + time * X[idM]!;
        U[idM + offset] = W[offset + idM + offset]! * 2.0;
      }
    }
    expect(k!.args.map((a) => a.name)).toEqual(["Nelements", "offset", "time", "vmapM", "EToB", "X", "W", "U"]);
    await expectSerialMeaning(k!, () => ({ Nelements, offset, time, vmapM, EToB, X, W: Float64Array.from(W), U: Float64Array.from(U0) }), { U }, 1e-12, { checkBounds: false });
  });

  it("reads through the field inside opaque code too (a device function with a loop, an assignment in a while loop)", async () => {
    const src = `${STRUCT}
double windowSum(const struct bcData *bc, int len) {
  double s = 0.0;
  int m = 0;
  while (m < len) { s += bc->usrwrk[bc->idM + m]; m++; }
  return s;
}
@kernel void sums(const int N, @restrict const double *W, @restrict double *U) {
  for (int e = 0; e < N; ++e; @outer(0)) {
    for (int n = 0; n < 4; ++n; @inner(0)) {
      struct bcData bc;
      int r = 0;
      while (r < 1) { bc.usrwrk = W + 2; r++; }
      bc.idM = e * 4 + n;
      U[e * 4 + n] = windowSum(&bc, 3);
    }
  }
}`;
    const [k2] = lp.parseOkl(src);
    const N = 3, W2 = Float64Array.from(seeded(4 * N + 8, 5));
    const U = Float64Array.from({ length: 4 * N }, (_, i) => W2[2 + i]! + W2[3 + i]! + W2[4 + i]!);
    await expectSerialMeaning(k2!, () => ({ N, W: W2, U: new Float64Array(4 * N) }), { U }, 1e-12, { checkBounds: false });
  });

  it("lowers to every target", () => {
    for (const t of ["c", "openmp", "opencl", "cuda", "js"] as const) expect(lp.generateCode(k!, t).deviceCode).toContain("W[");
  });

  const variant = (body: string) => `${STRUCT}${USER}
@kernel void k(const int N, const double *W, const double *V, double *U) {
  for (int e = 0; e < N; ++e; @outer(0)) {
    for (int n = 0; n < 4; ++n; @inner(0)) {
      struct bcData bc;
      bc.idM = e * 4 + n; bc.fieldOffset = 0; bc.time = 0; bc.x = 0; bc.trans = 1;
${body}
      U[e * 4 + n] = bc.u;
    }
  }
}`;

  it("refuses two different arguments on different paths, naming the field and both lines", () => {
    const err = oklError(() => lp.parseOkl(variant(`      if (n < 2) bc.usrwrk = W;\n      else bc.usrwrk = V;\n      userVelocity(&bc);`)));
    expect(err.message).toMatch(/pointer field "bc\.usrwrk" is assigned "V" here and "W" at line 22/);
    expect(err.line).toBe(23);
  });

  it("refuses a reassignment to another offset, and accepts the same alias twice", () => {
    const err = oklError(() => lp.parseOkl(variant(`      bc.usrwrk = W;\n      userVelocity(&bc);\n      bc.usrwrk = W + 1;\n      userVelocity(&bc);`)));
    expect(err.message).toMatch(/pointer field "bc\.usrwrk" is assigned "W \+ 1" here and "W" at line 22/);
    expect(err.line).toBe(24);
    expect(() => lp.parseOkl(variant(`      if (n < 2) bc.usrwrk = W; else bc.usrwrk = W;\n      userVelocity(&bc);`))).not.toThrow();
  });

  it("refuses a read before the field is assigned, and the field's address", () => {
    expect(oklError(() => lp.parseOkl(variant(`      userVelocity(&bc);`))).message).toMatch(/pointer field "bc(->|\.)usrwrk" is read before it is assigned/);
    expect(oklError(() => lp.parseOkl(variant(`      bc.usrwrk = W;\n      U[0] = bc.usrwrk;`))).message).toMatch(/pointer field "bc\.usrwrk" used as a value/);
  });

  it("still refuses the pointer field where the struct is an argument or an array, with OCCA's reason", () => {
    const arg = `${STRUCT}@kernel void k(const int N, const struct bcData *bcs, double *U) {
  for (int e = 0; e < N; ++e; @outer(0)) { for (int n = 0; n < 4; ++n; @inner(0)) { U[e] = bcs[e].x; } }
}`;
    expect(oklError(() => lp.parseOkl(arg)).message).toMatch(/field "usrwrk" is a pointer \(line 8:27\): OCCA copies a struct's bytes/);
    expect(oklError(() => lp.parseOkl(variant(`      struct bcData two[2];\n      bc.usrwrk = W; userVelocity(&bc);`))).message).toMatch(/array of struct "two": struct "bcData" has a pointer field/);
  });
});
