/**
 * Pointers that move (nekRS 26's boundary kernels copy the field's name into the boundary struct with
 * a `_strcpy` that walks both strings: `*destination = *source; destination++; source++;`): Loom binds
 * a pointer to one place in an array, so moving one is refused at the move, naming the pointer and
 * the indexed form that is accepted. `*buf` of a local array is its first element.
 */
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const COPY = `
struct bcData { char fieldName[8]; int id; double flux; };
inline char *copyName(char *destination, const char *source) {
  char *original = destination;
  while (*source != '\\0') {
    *destination = *source;
    destination++;
    source++;
  }
  *destination = '\\0';
  return original;
}
@kernel void neumann(const int N, @restrict const char *name, @restrict double *flux) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
    struct bcData bc;
    copyName(bc.fieldName, name);
    flux[n] = bc.fieldName[0] == 's' ? 1.0 : 0.0;
  }
}`;

describe("moving pointers", () => {
  it("a string copy that walks its pointers is refused at the move, naming the pointer and the indexed form", () => {
    const e = oklError(() => parseOkl(COPY));
    expect([e.line, e.rule]).toEqual([7, "OKL lowering"]);
    expect(e.message).toMatch(/cannot move pointer "destination" \(`destination\+\+`.*index it instead \(`destination\[k\]` with a counter `k`\)/);
  });

  it("the same copy written with a counter imports and runs (the indexed form the refusal names), on interp and openmp", async () => {
    const [k] = parseOkl(`
struct bcData { char fieldName[8]; int id; double flux; };
inline void copyName(char *destination, const char *source) {
  int k = 0;
  while (source[k] != '\\0' && k < 7) { destination[k] = source[k]; k++; }
  destination[k] = '\\0';
}
@kernel void neumann(const int N, @restrict const char *name, @restrict double *flux) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
    struct bcData bc;
    copyName(bc.fieldName, name);
    flux[n] = bc.fieldName[0] == 's' ? n : -n;
  }
}`);
    const N = 5, name = Int8Array.from([..."scalar"].map((c) => c.charCodeAt(0)).concat(0));
    await expectSerialMeaning(k!, () => ({ N, name: Int8Array.from(name), flux: new Float64Array(N) }), { flux: [0, 1, 2, 3, 4] }, 0, { checkBounds: false });
  });

  it("*buf of a local array is buf[0], on interp and openmp", async () => {
    const [k] = parseOkl(`
@kernel void first(const int N, @restrict const double *x, @restrict double *y) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
    double buf[2];
    buf[0] = 2 * x[n];
    buf[1] = 0;
    y[n] = *buf + 1;
  }
}`);
    const N = 6, x = seeded(N, 4);
    await expectSerialMeaning(k!, () => ({ N, x: Float64Array.from(x), y: new Float64Array(N) }), { y: x.map((v) => 2 * v + 1) }, 1e-12);
  });
});
