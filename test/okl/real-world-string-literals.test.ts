/**
 * String literals passed where a device function takes `const char *` (nekRS 26's boundary
 * helpers: `isField("fluid velocity")` compares bcData's fieldName with a literal through the
 * code base's own case-insensitive strcmp). The literal is a constant table of its bytes and a
 * final 0; the comparison walks both strings with moving pointers. Kernels written here in that
 * style, run on interp and openmp against their serial meaning.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning } from "./real-world-helpers.js";

/** A bcData-like struct filled by a copy of the field's name, and a user boundary function testing it. */
const BOUNDARY = `
struct bcData { char fieldName[24]; int id; double x; double u; };
inline char *_strcpy(char *destination, const char *source) {
  char *original_dest = destination;
  while (*source != '\\0') {
    *destination = *source;
    destination++;
    source++;
  }
  *destination = '\\0';
  return original_dest;
}
inline char lowerCase(char c) {
  if (c >= 'A' && c <= 'Z') return c + ('a' - 'A');
  return c;
}
inline int fieldCompare(const char *str1, const char *str2) {
  while (*str1 != '\\0' && *str2 != '\\0' && lowerCase(*str1) == lowerCase(*str2)) {
    str1++;
    str2++;
  }
  return lowerCase(*str1) - lowerCase(*str2);
}
#define isField(a) (fieldCompare(bc->fieldName, a) == 0)
void userDirichlet(struct bcData *bc) {
  if (isField("fluid " "v\\145locity")) bc->u = 2 * bc->x;
  else if (isField("scalar \\"T\\"\\\\1\\n")) bc->u = -bc->x;
  else if (isField("m\\x65sh\\0ignored")) bc->u = bc->id;
  else bc->u = 7;
}
@kernel void dirichlet(const int N, @restrict const char *name, @restrict const double *x, @restrict double *u) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
    struct bcData bc;
    _strcpy(bc.fieldName, name);
    bc.id = n;
    bc.x = x[n];
    userDirichlet(&bc);
    u[n] = bc.u;
  }
}`;

/** The 1-based line and column of the first `what` in `src`. */
function at(src: string, what: string): [number, number] {
  const lines = src.split("\n");
  const line = lines.findIndex((l) => l.includes(what));
  return [line + 1, lines[line]!.indexOf(what) + 1];
}

const bytes = (s: string) => Int8Array.from([...new TextEncoder().encode(s), 0]);

/** The serial meaning of userDirichlet for field name `s` at node n with x = xs[n]. */
function serial(s: string, xs: readonly number[]): number[] {
  const eq = (lit: string) => s.toLowerCase() === lit.toLowerCase();
  return xs.map((x, n) => (eq("fluid velocity") ? 2 * x : eq('scalar "T"\\1\n') ? -x : eq("mesh") ? n : 7));
}

describe("string literals passed as const char *", () => {
  const [k] = parseOkl(BOUNDARY);
  const xs = [0.5, -1, 2, 3.25, 4];

  it("isField(\"…\") selects the branch of the field copied into the struct (escapes, octal and hex codes, concatenation, an embedded NUL), on interp and openmp", async () => {
    for (const name of ["Fluid Velocity", 'scalar "t"\\1\n', "mesh", "fluid velocit", "fluid velocityX"]) {
      await expectSerialMeaning(k!, () => ({ N: xs.length, name: bytes(name), x: Float64Array.from(xs), u: new Float64Array(xs.length) }), { u: serial(name, xs) }, 0, { checkBounds: false });
    }
  });

  it("property: any short name compares as C's case-insensitive strcmp would (interp)", async () => {
    const alphabet = fc.constantFrom(..."fluidvecoty MESHsar\"T\\\n1".split(""));
    const name = fc.oneof(fc.constantFrom("fluid velocity", "FLUID velocity", "mesh", 'scalar "T"\\1\n'), fc.array(alphabet, { maxLength: 16 }).map((a) => a.join("")));
    await fc.assert(fc.asyncProperty(name, async (s) => {
      const out = (await run(k!, { N: 2, name: bytes(s), x: Float64Array.from([1.5, 2]), u: new Float64Array(2) } as never, { backend: "interp" } as never)) as { u: Float64Array };
      expect(Array.from(out.u)).toEqual(serial(s, [1.5, 2]));
    }), { numRuns: 25 });
  });

  it("a case's boundary function (.oudf style) with `auto` locals under isField(…) branches, on interp and openmp", async () => {
    const [d] = parseOkl(BOUNDARY.replace(/void userDirichlet[\s\S]*?\n}\n/, `void userDirichlet(struct bcData *bc) {
  if (isField("fluid velocity")) {
    auto uz = -(2 * uInflow) * (1 - (bc->x * bc->x) / (rPipe * rPipe));
    bc->u = uz;
  } else if (isField("scalar temperature")) {
    auto hot = bc->x >= 0.2;
    bc->u = hot ? 1.0 : 0.25;
  }
}
`).replace("bc.x = x[n];", "bc.x = x[n];\n    bc.u = 9;"), { defines: { uInflow: 1.5, rPipe: 2 } });
    const pipe = (name: string) => xs.map((x) => (name === "fluid velocity" ? -3 * (1 - (x * x) / 4) : name === "scalar temperature" ? (x >= 0.2 ? 1 : 0.25) : 9));
    for (const name of ["fluid velocity", "scalar temperature", "fluid pressure"]) {
      await expectSerialMeaning(d!, () => ({ N: xs.length, name: bytes(name), x: Float64Array.from(xs), u: new Float64Array(xs.length) }), { u: pipe(name) }, 1e-12, { checkBounds: false });
    }
  });

  it("bytes past ASCII: octal escapes are one byte each, UTF-8 text its bytes, compared as C's signed char, on interp and openmp", async () => {
    const [u] = parseOkl(BOUNDARY.replace(/void userDirichlet[\s\S]*?\n}\n/, `void userDirichlet(struct bcData *bc) {
  if (isField("caf\\303\\251")) bc->u = 1;
  else if (isField("na\\xc3\\xafve")) bc->u = 2;
  else if (isField("naïve!")) bc->u = 3;
  else bc->u = 0;
}
`));
    const cases: [string, number][] = [["caf\u00e9", 1], ["na\u00efve", 2], ["na\u00efve!", 3], ["cafe", 0]];
    for (const [name, want] of cases) {
      await expectSerialMeaning(u!, () => ({ N: 2, name: bytes(name), x: Float64Array.from([1, 2]), u: new Float64Array(2) }), { u: [want, want] }, 0, { checkBounds: false });
    }
  });

  it("a literal bound to a pointer to non-const char, or written through, is an OklError at its line:column", () => {
    const PARAM = `
inline int firstIs(char *s, char c) { return s[0] == c; }
@kernel void k(const int N, @restrict int *y) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) { y[n] = firstIs("abc", 'a'); }
}`;
    const param = oklError(() => parseOkl(PARAM));
    expect([param.line, param.column]).toEqual(at(PARAM, '"abc"'));
    expect(param.message).toMatch(/string literal "abc" bound to "s", a pointer to non-const char.*const char \*/);
    const LOCAL = `
@kernel void k(const int N, @restrict int *y) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
    char *s = "xyz";
    y[n] = s[n % 3];
  }
}`;
    const local = oklError(() => parseOkl(LOCAL));
    expect([local.line, local.column]).toEqual(at(LOCAL, '"xyz"'));
    expect(local.message).toMatch(/string literal "xyz" bound to "s"/);
    const write = oklError(() => parseOkl(`
inline void clear(const char *t) { t[0] = 0; }
@kernel void k(const int N, @restrict int *y) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) { const char *s = "xyz"; y[n] = s[1]; clear(s); }
}`));
    expect(write.line).toBe(2);
    expect(write.message).toMatch(/cannot write through "t": it points into string literal "xyz"/);
  });

  it("a literal used as a value (not a pointer argument) stays an OklError naming the construct", () => {
    const SRC = `
@kernel void k(const int N, @restrict int *y) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) { y[n] = "abc"; }
}`;
    const e = oklError(() => parseOkl(SRC));
    expect([e.line, e.column]).toEqual(at(SRC, '"abc"'));
    expect(e.message).toMatch(/string/);
  });
});
