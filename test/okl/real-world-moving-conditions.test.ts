/**
 * Conditions that move a pointer (issue 20; nekRS-style string helpers: `while ((*d++ = *s++));`,
 * `while (*s++);`, `do … while (*p++ != ',')`, `if (*p++ == '-')`). C reads the old value and moves
 * the pointer whether or not the test holds; Loom computes such a condition by statements where C
 * evaluates it (src/okl/lower/moving-conditions.ts). They were refused before ("moves a pointer
 * inside a condition"). A move C may not evaluate (under &&, || or ?:), a switch's condition and a
 * `continue` that would skip the condition's moves stay OklErrors at their line:column (a `for` loop's
 * condition is accepted since: real-world-moving-returns.test.ts).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ExecutionError } from "../../src/errors.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { refusedStringWalk } from "./helpers.js";
import { expectSerialMeaning } from "./real-world-helpers.js";

const W = 16; // bytes per name in the kernel's name table

const NAMES = `
struct bcData { char fieldName[W]; int id; double value; };
inline char *_strcpy(char *destination, const char *source) {
  char *original = destination;
  while ((*destination++ = *source++));
  return original;
}
inline int _strlen(const char *s) {
  const char *start = s;
  while (*s++);
  return s - start - 1;
}
// The number of comma-separated fields: a do-while whose test moves the pointer.
inline int fieldCount(const char *s) {
  int n = 0;
  if (*s == '\\0') return 0;
  do {
    if (*s == ',') n++;
  } while (*s++);
  return n + 1;
}
// +1 for a leading '+', -1 for a leading '-', else 0: the pointer moves whatever the first test gives.
inline int leadingSign(const char *s) {
  int sign = 0;
  if (*s++ == '-') sign = -1;
  else if (s[-1] == '+') sign = 1;
  return sign;
}
@kernel void scaleByName(const int N, @restrict const char *names, @restrict const double *U, @restrict double *UP, @restrict int *info) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
    struct bcData bc;
    _strcpy(bc.fieldName, names + W*n);
    const int len = _strlen(bc.fieldName);
    info[3*n] = len;
    info[3*n + 1] = fieldCount(bc.fieldName);
    info[3*n + 2] = leadingSign(names + W*n);
    UP[n] = len * U[n];
  }
}`.replace(/\bW\b/g, String(W));

function encode(names: readonly string[]): Int8Array {
  const out = new Int8Array(W * names.length);
  names.forEach((s, i) => [...s].forEach((ch, j) => (out[W * i + j] = ch.charCodeAt(0))));
  return out;
}

function serial(names: readonly string[], U: readonly number[]) {
  const info = names.flatMap((s) => [s.length, s === "" ? 0 : s.split(",").length, s[0] === "-" ? -1 : s[0] === "+" ? 1 : 0]);
  return { info, UP: names.map((s, i) => s.length * U[i]!) };
}

describe("a condition that moves a pointer", () => {
  const [k] = parseOkl(NAMES, { filename: "names.okl" });

  it("string copy, length, field count and sign: the serial meaning on interp and openmp", async () => {
    const names = ["velocity", "-x,y,z", "+scalar01", "", "a,b", "temperature,p"];
    const U = names.map((_, i) => 0.5 + i);
    const args = () => ({ N: names.length, names: encode(names), U: Float64Array.from(U), UP: new Float64Array(names.length), info: new Int32Array(3 * names.length) });
    await expectSerialMeaning(k!, args, serial(names, U), 0, { checkBounds: false });
  });

  it("property: any names of at most 15 characters (interp)", async () => {
    const name = fc.stringMatching(/^[-+a-z,]{0,15}$/);
    await fc.assert(fc.asyncProperty(fc.array(name, { minLength: 1, maxLength: 9 }), async (names) => {
      const U = names.map((_, i) => i - 2);
      const out = await run(k!, { N: names.length, names: encode(names), U: Float64Array.from(U), UP: new Float64Array(names.length), info: new Int32Array(3 * names.length) }, { backend: "interp" });
      const want = serial(names, U);
      expect(Array.from(out.info as Int32Array)).toEqual(want.info);
      expect(Array.from(out.UP as Float64Array)).toEqual(want.UP);
    }), { numRuns: 25 });
  });

  it("a string without its final 0 walks past its array: the interpreter's bounds error", async () => {
    const full = new Int8Array(W).fill(97); // 16 'a's: no terminator in the table
    await expect(run(k!, { N: 1, names: full, U: new Float64Array(1), UP: new Float64Array(1), info: new Int32Array(3) }, { backend: "interp" }))
      .rejects.toThrow(ExecutionError);
  });

  it("what C may not evaluate, a switch's condition and a continue are OklErrors at their line:column", () => {
    const refused = refusedStringWalk;
    const and = refused("  while (*s != ',' && *s++) n++;");
    expect([and.line, and.column, and.message]).toEqual([4, 24, expect.stringMatching(/"s\+\+" moves a pointer in an operand of &&, \|\| or \?:, which C evaluates only on some paths/)]);
    const choice = refused("  switch (*s++) { case 'a': n++; break; default: break; }");
    expect([choice.line, choice.message]).toEqual([4, expect.stringMatching(/"s\+\+" moves a pointer inside an expression whose order Loom cannot keep \(a switch's condition/)]);
    const jump = refused("  while (*s++) {\n    if (*s == ' ') continue;\n    n++;\n  }");
    expect([jump.line, jump.message]).toEqual([5, expect.stringMatching(/"continue" in a loop whose condition moves a pointer \(`\*s\+\+`\)/)]);
  });
});
