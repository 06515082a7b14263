/**
 * A local declared with a typedef'd @dim pointer type (issue 15.19): `typedef float *mat23
 * @dim(2, 3); mat23 C @dimOrder(1, 0); C = A;` is a view of A with the typedef's dims and the
 * local's own order (OKL.md §8: `x(a0, a1)` -> `x[a_p0 + D_p0 * a_p1]`).
 */
import { describe, expect, it } from "vitest";
import { expectOnEveryBackend, oklError, only } from "./helpers.js";

const kernel = (decl: string) => `typedef float *mat23 @dim(2, 3);
@kernel void f(mat23 A, float *out) {
  for (int o = 0; o < 1; ++o; @outer) {
    for (int i = 0; i < 2; ++i; @inner) {
      ${decl}
      for (int j = 0; j < 3; ++j) out[i * 3 + j] = C(i, j) + 100 * A(i, j);
    }
  }
}`;

/** x(a0, a1) with @dim(D0, D1) @dimOrder(p0, p1) = a_p0 + D_p0 * a_p1. */
const index2 = (dims: readonly number[], order: readonly number[], a: readonly number[]) => a[order[0]!]! + dims[order[0]!]! * a[order[1]!]!;

function reference(A: Float32Array): Float32Array {
  const out = new Float32Array(6);
  for (let i = 0; i < 2; i++) {
    for (let j = 0; j < 3; j++) out[i * 3 + j] = A[index2([2, 3], [1, 0], [i, j])]! + 100 * A[index2([2, 3], [0, 1], [i, j])]!;
  }
  return out;
}

describe("a local of a typedef'd @dim pointer type", () => {
  const A = () => Float32Array.from({ length: 6 }, (_, k) => k + 1);

  it("declared, then assigned (`mat23 C @dimOrder(1, 0); C = A;`): the typedef's dims, the local's order, on every backend", async () => {
    await expectOnEveryBackend(only(kernel("mat23 C @dimOrder(1, 0);\n      C = A;")), () => ({ A: A(), out: new Float32Array(6) }), { out: reference(A()) });
  });

  it("declared with an initializer (`mat23 C @dimOrder(1, 0) = A;`) means the same", async () => {
    await expectOnEveryBackend(only(kernel("mat23 C @dimOrder(1, 0) = A;")), () => ({ A: A(), out: new Float32Array(6) }), { out: reference(A()) });
  });

  it("the reference really differs from reading C in A's own order (the test can fail)", () => {
    const a = A();
    const wrong = new Float32Array(6);
    for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++) wrong[i * 3 + j] = a[index2([2, 3], [0, 1], [i, j])]! + 100 * a[index2([2, 3], [0, 1], [i, j])]!;
    expect(Array.from(wrong)).not.toEqual(Array.from(reference(a)));
  });

  it("refuses a read before the assignment, naming the pointer", () => {
    const e = oklError(() => only(kernel("mat23 C @dimOrder(1, 0);\n      out[i] = C(0, 0);\n      C = A;")));
    expect(e.message).toContain('local pointer "C" is read before it is assigned');
  });

  it("refuses an assignment under a condition (the alias would differ between reads)", () => {
    const e = oklError(() => only(kernel("mat23 C @dimOrder(1, 0);\n      if (i > 0) C = A;")));
    expect(e.message).toContain('local pointer "C" must be assigned with "=" in the block that declares it');
  });
});
