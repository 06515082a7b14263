/**
 * A `for` loop whose condition moves a pointer (`for (; *s++; ) n++;`, `for (int k = 0; *s++ != ',';
 * ++k)`) and a `return` of a value read through a moving pointer (`return *s++;`, `return *++s;`)
 * in nekRS-style string helpers (issue 20). The loop is `{ init; while (cond) { body update; } }`,
 * C's meaning without `continue`; the return moves the pointer before the value where C does
 * (`*++s`), and the move after it touches a local the return leaves. Both were refused before
 * ("moves a pointer inside an expression whose order Loom cannot keep"). Runs on interp and openmp
 * against the serial meaning; a property on the interpreter over random names.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { refusedStringWalk } from "./helpers.js";
import { expectSerialMeaning } from "./real-world-helpers.js";

const W = 12; // bytes per name

const HELPERS = `
// characters before the terminator, counted by a for loop whose condition moves s
inline int _strlen(const char *s) {
  int n = 0;
  for (; *s++; ) n++;
  return n;
}
// the index of the first ',' (or the length), with an init and an update
inline int commaAt(const char *s) {
  int k;
  for (k = 0; *s++ != ','; ++k)
    if (s[-1] == '\\0') break;
  return k;
}
// the second character, read by returning through a moving pointer
inline char second(const char *s) {
  if (*s++ == '\\0') return 0;
  return *s++;
}
inline char third(const char *s) {
  ++s;
  return *++s;
}
@kernel void nameInfo(const int N, @restrict const char *names, @restrict int *info) {
  for (int n = 0; n < N; ++n; @tile(4, @outer, @inner)) {
    const char *s = names + W*n;
    info[4*n] = _strlen(s);
    info[4*n + 1] = commaAt(s);
    info[4*n + 2] = second(s);
    info[4*n + 3] = -1;
    if (s[0] && s[1]) info[4*n + 3] = third(s);
  }
}`.replace(/\bW\b/g, String(W));

function encode(names: readonly string[]): Int8Array {
  const out = new Int8Array(W * names.length);
  names.forEach((s, i) => [...s].forEach((ch, j) => (out[W * i + j] = ch.charCodeAt(0))));
  return out;
}

function serial(names: readonly string[]): number[] {
  const code = (s: string, i: number) => (i < s.length ? s.charCodeAt(i) : 0);
  return names.flatMap((s) => {
    const comma = s.indexOf(",");
    return [s.length, comma < 0 ? s.length : comma, s === "" ? 0 : code(s, 1), s.length >= 2 ? code(s, 2) : -1];
  });
}

describe("a for loop's condition and a return value that move a pointer", () => {
  const [k] = parseOkl(HELPERS, { filename: "names.okl" });
  const args = (names: readonly string[]) => ({ N: names.length, names: encode(names), info: new Int32Array(4 * names.length) });

  it("length, first comma, second and third character: the serial meaning on interp and openmp", async () => {
    const names = ["velocity", "x,y,z", "", "p", "ab", "temp,scalar"];
    await expectSerialMeaning(k!, () => args(names), { info: serial(names) }, 0, { checkBounds: false });
  });

  it("property: any names of at most 11 characters (interp)", async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.stringMatching(/^[a-z,]{0,11}$/), { minLength: 1, maxLength: 8 }), async (names) => {
      const out = await run(k!, args(names), { backend: "interp" });
      expect(Array.from(out.info as Int32Array)).toEqual(serial(names));
    }), { numRuns: 25 });
  });

  it("a continue in such a for loop, and a move under ?: in a return, stay OklErrors at their line:column", () => {
    const refused = refusedStringWalk;
    const jump = refused("  for (; *s++; ) {\n    if (*s == ' ') continue;\n    n++;\n  }");
    expect([jump.line, jump.message]).toEqual([5, expect.stringMatching(/"continue" in a loop whose condition moves a pointer \(`\*s\+\+`\)/)]);
    const cond = refused("  if (n) return *s == 'a' ? *s++ : 0;");
    expect([cond.line, cond.message]).toEqual([4, expect.stringMatching(/"s\+\+" moves a pointer in an operand of &&, \|\| or \?:/)]);
  });
});
