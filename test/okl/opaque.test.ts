/**
 * OKL code that integer domains cannot express imports as opaque blocks inside its loops:
 * while/do-while, break/continue, non-affine `for` headers, device functions with loops and
 * early returns (inlined as a labeled region each `return` exits). Such kernels lower to every
 * target and compute on every backend what a plain TypeScript transcription computes.
 */
import { describe, expect, it } from "vitest";
import { generateCode } from "../../codegen/index.js";
import { oklError, TARGETS } from "./helpers.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { availableNative } from "../run/native-helpers.js";

const SRC = `
int collatz(int x) {
  int steps = 0;
  while (x != 1) {
    if (x % 2 == 0) x = x / 2; else x = 3 * x + 1;
    ++steps;
    if (steps > 1000) return -1;
  }
  return steps;
}
int firstAbove(const int *a, int n, int t) {
  for (int k = 0; k < n; ++k) {
    for (int r = 0; r < 2; ++r) {
      if (a[k] + r > t) return 10 * k + r;
    }
  }
  return -1;
}
void bump(int *o, int at, int times) {
  int t = 0;
  do { o[at] += 1; ++t; } while (t < times);
}
@kernel void opaque(const int n, const int *a, int *out, int *pos, int *cnt) {
  for (int i = 0; i < n; ++i; @tile(4, @outer, @inner)) {
    out[i] = collatz(a[i]) + 1;
    int s = 0;
    for (int j = 0; j < 10; ++j) {
      if (j == 7) break;
      if (j % 2) continue;
      s += j;
    }
    int q = firstAbove(a, n, a[i]);
    pos[i] = q * 100 + s;
    int m;
    for (m = a[i]; m > 3; m = m / 3) {}
    bump(cnt, i, m + 1);
  }
}`;

function reference(a: Int32Array) {
  const collatz = (x: number) => { let s = 0; while (x !== 1) { x = x % 2 === 0 ? x / 2 : 3 * x + 1; if (++s > 1000) return -1; } return s; };
  const firstAbove = (t: number) => { for (let k = 0; k < a.length; k++) for (let r = 0; r < 2; r++) if (a[k]! + r > t) return 10 * k + r; return -1; };
  let s = 0;
  for (let j = 0; j < 10; j++) { if (j === 7) break; if (j % 2) continue; s += j; }
  return {
    out: Array.from(a, (x) => collatz(x) + 1),
    pos: Array.from(a, (x) => firstAbove(x) * 100 + s),
    cnt: Array.from(a, (x) => { let m = x; while (m > 3) m = Math.trunc(m / 3); return Math.max(1, m + 1); }),
  };
}

const A = Int32Array.from([1, 2, 3, 6, 7, 27, 9, 12, 5, 40]);

async function outputs(backend: "interp" | "js" | "c" | "openmp" | "opencl") {
  const [k] = parseOkl(SRC);
  const n = A.length;
  const r = await run(k!, { a: A, n, out: new Int32Array(n), pos: new Int32Array(n), cnt: new Int32Array(n) }, { backend, checkBounds: false });
  return { out: Array.from(r.out! as Int32Array), pos: Array.from(r.pos! as Int32Array), cnt: Array.from(r.cnt! as Int32Array) };
}

describe("OKL statements beyond integer domains import as blocks", () => {
  it("keeps affine loops as inames and carries the rest as blocks inside them", () => {
    const [k] = parseOkl(SRC);
    const kinds = k!.instructions.map((i) => i.kind);
    expect(kinds.filter((x) => x === "block").length).toBe(5);
    expect(kinds).toContain("assign"); // `s = 0`, `pos[i] = …` stay instructions
    for (const insn of k!.instructions) expect(insn.withinInames).toEqual(["i_in_tile", "i_tile"]);
    expect(Object.values(k!.inameTags).map((t) => t.kind).sort()).toEqual(["g", "l"]);
  });

  it("runs on the interpreter as the C semantics say", async () => {
    expect(await outputs("interp")).toEqual(reference(A));
  });

  for (const backend of ["js", ...availableNative(["c", "openmp", "opencl"])] as const) {
    it(`${backend} agrees with the interpreter`, async () => {
      expect(await outputs(backend as "js")).toEqual(reference(A));
    });
  }

  it("lowers to every target", () => {
    const [k] = parseOkl(SRC);
    for (const t of TARGETS) {
      const code = generateCode(k!, t).deviceCode;
      expect(code, t).toMatch(/collatz_body_exit = 1;/);
      expect(code, t).toMatch(/\bdo\b/);
    }
  });
});

describe("what blocks cannot carry is an OklError naming it", () => {
  const kernelWith = (body: string, pre = "") => `${pre}
@kernel void k(const int n, int *a) {
  for (int i = 0; i < n; ++i; @outer) {
    for (int j = 0; j < 4; ++j; @inner) {
      ${body}
    }
  }
}`;
  const fails = (src: string, msg: RegExp) => {
    expect(oklError(() => parseOkl(src)).message).toMatch(msg);
  };

  it("return in a @kernel", () => fails(kernelWith("if (a[j] > 0) return; a[j] = 1;"), /"return" in a @kernel is not supported/));
  it("@barrier inside a while loop", () => fails(kernelWith("int t = 0; while (t < a[j]) { @barrier(); ++t; }"), /@barrier inside a while loop/));
  it("a call needing statements under &&", () => fails(
    kernelWith("if (j < n && f(a, j) > 0) a[j] = 0;", "int f(int *p, int k) { while (p[k] > 0) k = k - 1; return k; }"),
    /evaluated only under a condition/));
  it("a do-while condition calling a function with loops", () => fails(
    kernelWith("int t = 0; do { ++t; } while (f(a, t) > 0);", "int f(int *p, int k) { while (p[k] > 0) k = k - 1; return k; }"),
    /the condition of a do-while loop calls a device function with loops/));
});
