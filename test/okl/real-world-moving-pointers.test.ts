/**
 * Pointers that move (nekRS 26's boundary kernels copy the field's name into the boundary struct with
 * a `_strcpy` that walks both strings: `*destination = *source; destination++; source++;`): Loom
 * lowers a moving pointer as the place it starts from and an offset (src/okl/lower/moving-pointers.ts),
 * so every read keeps the interpreter's bounds check. What it cannot prove means the same (a pointer
 * given another array, comparisons across arrays, casts to another element type, a move inside a
 * condition C may not evaluate: under &&, || or ?:) is an OklError at its line:column. `*buf` of a local array is its first element.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ExecutionError } from "../../src/errors.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
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
  it("a string copy that walks its pointers copies the name into the struct's char field, on interp and openmp", async () => {
    const [k] = parseOkl(COPY.replace("bc.fieldName[0] == 's' ? 1.0 : 0.0", "bc.fieldName[n] * 1.0"));
    const N = 5, name = Int8Array.from([..."scalar"].map((c) => c.charCodeAt(0)).concat(0));
    await expectSerialMeaning(k!, () => ({ N, name: Int8Array.from(name), flux: new Float64Array(N) }), { flux: Array.from(name.subarray(0, N)) }, 0, { checkBounds: false });
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

/** A row of a row-major matrix walked by a pointer, as element-local kernels walk their operators. */
const ROW = `
@kernel void rowDot(const int N, const int M, @restrict const double *A, @restrict const double *w, @restrict double *y) {
  for (int i = 0; i < N; ++i; @tile(4, @outer, @inner)) {
    const double *row = A + i * M;
    const double *end = row + M;
    double s = 0;
    for (int j = 0; j < M; ++j) s += w[j] * *row++;
    double t = 0;
    for (const double *q = A + i * M; q < end; q += 2) t += *q;
    y[i] = s + 10 * t + (end - row);
  }
}`;

function rowDot(N: number, M: number, A: readonly number[], w: readonly number[]): number[] {
  return Array.from({ length: N }, (_, i) => {
    let s = 0, t = 0;
    for (let j = 0; j < M; j++) s += w[j]! * A[i * M + j]!;
    for (let j = 0; j < M; j += 2) t += A[i * M + j]!;
    return s + 10 * t;
  });
}

describe("moving pointers as a base and an offset", () => {
  const [row] = parseOkl(ROW);

  it("a pointer walking a matrix row (`*row++`, `q += 2`, `q < end`, `end - row`), on interp and openmp", async () => {
    const N = 6, M = 5, A = seeded(N * M, 7), w = seeded(M, 8);
    await expectSerialMeaning(row!, () => ({ N, M, A: Float64Array.from(A), w: Float64Array.from(w), y: new Float64Array(N) }), { y: rowDot(N, M, A, w) }, 1e-12, { checkBounds: false });
  });

  it("property: any matrix shape gives the serial row products (interp, bounds checked)", async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 99 }), async (N, M, seed) => {
      const A = seeded(N * M, seed), w = seeded(M, seed + 1);
      const out = (await run(row!, { N, M, A: Float64Array.from(A), w: Float64Array.from(w), y: new Float64Array(N) } as never, { backend: "interp" } as never)) as { y: Float64Array };
      rowDot(N, M, A, w).forEach((v, i) => expect(out.y[i]).toBeCloseTo(v, 12));
    }), { numRuns: 15 });
  });

  it("`*d++ = c` and a length as `s - str`, into a local char array, on interp and openmp", async () => {
    const [k] = parseOkl(`
inline int nameLength(const char *str) {
  const char *s = str;
  while (*s) s++;
  return s - str;
}
inline void upperCopy(char *d, const char *s) {
  while (*s != 0) {
    *d++ = *s >= 'a' && *s <= 'z' ? *s - ('a' - 'A') : *s;
    s++;
  }
  *d = 0;
}
@kernel void names(const int N, @restrict const char *name, @restrict int *len, @restrict char *first) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
    char buf[16];
    upperCopy(buf, name);
    len[n] = nameLength(buf) + n;
    first[n] = buf[n];
  }
}`);
    const word = "vel9x", N = 5, name = Int8Array.from([...word].map((c) => c.charCodeAt(0)).concat(0));
    await expectSerialMeaning(k!, () => ({ N, name: Int8Array.from(name), len: new Int32Array(N), first: new Int8Array(N) }),
      { len: [0, 1, 2, 3, 4].map((n) => word.length + n), first: [...word.toUpperCase()].map((c) => c.charCodeAt(0)) }, 0, { checkBounds: false });
  });

  it("a pointer moved past its array is the interpreter's bounds error, as any subscript", async () => {
    const [k] = parseOkl(`
@kernel void fill(const int N, @restrict double *y) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
    double buf[3];
    double *p = buf;
    for (int j = 0; j < 4; ++j) { *p = j; p++; }
    y[n] = buf[0];
  }
}`);
    const e = await run(k!, { N: 2, y: new Float64Array(2) } as never, { backend: "interp" } as never).then(() => undefined, (x: unknown) => x);
    expect(e).toBeInstanceOf(ExecutionError);
    expect((e as Error).message).toMatch(/index 3 out of bounds .* "buf" \(extent 3\)/);
  });

  it("what Loom cannot prove means the same is an OklError at its line:column", () => {
    const refused = (body: string) => oklError(() => parseOkl(`
@kernel void k(const int N, @restrict const double *a, @restrict const double *b, @restrict double *y) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
${body}
  }
}`));
    const other = refused("    const double *p = a;\n    p++;\n    p = b;\n    y[n] = *p;");
    expect([other.line, other.message]).toEqual([6, expect.stringMatching(/pointer "p" moves .* is assigned "b", which may point into another array/)]);
    const across = refused("    const double *p = a, *q = b;\n    p++;\n    y[n] = p < q ? 1 : 0;");
    expect([across.line, across.message]).toEqual([6, expect.stringMatching(/"p" and "q" may point into different arrays/)]);
    const cast = refused("    const double *p = a;\n    p += n;\n    y[n] = *(const float *) p;");
    expect([cast.line, cast.message]).toEqual([6, expect.stringMatching(/cast of moving pointer "p" to another element type/)]);
    const inCond = refused("    const double *p = a;\n    while (*p < 1 && *p++ > 0) y[n] = 1;");
    expect([inCond.line, inCond.message]).toEqual([5, expect.stringMatching(/"p\+\+" moves a pointer in an operand of &&, \|\| or \?:/)]);
    const stored = refused("    const double *slots[2];\n    const double *p = a;\n    slots[0] = p;\n    p++;\n    y[n] = slots[0][0] + *p;");
    expect([stored.line, stored.message]).toEqual([6, expect.stringMatching(/value of moving pointer "p" is stored in a struct field or an array of pointers/)]);
    const argMoved = oklError(() => parseOkl(`
@kernel void k(const int N, @restrict const double *a, @restrict double *y) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
    a++;
    y[n] = *a;
  }
}`));
    expect([argMoved.line, argMoved.message]).toEqual([4, expect.stringMatching(/cannot move pointer "a" .*not a kernel argument.*declare a local pointer from it/)]);
    const argWithLocal = oklError(() => parseOkl(`
@kernel void k(const int N, @restrict const double *a, @restrict double *y) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
    const double *b = a + n;
    b++;
    a++;
    y[n] = *a + *b;
  }
}`));
    expect([argWithLocal.line, argWithLocal.message]).toEqual([2, expect.stringMatching(/cannot move kernel argument "a".*declare a local pointer from it/)]);
  });
});

