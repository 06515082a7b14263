/**
 * OKL's floating-point expressions follow C/C++ (OCCA's serial backend is C++; CUDA, HIP and OpenCL
 * agree): an unsuffixed literal (`0.1`, `1e-3`, `M_PI`) is a double, so `float x; x * 0.1` is computed
 * in double and rounded once where it is stored; `0.1f` is a float; int op float is float; float op
 * double is double; math calls take C++'s overloads (`sqrt(float)` is float, `fmin(float, double)` and
 * `fmin(int, int)` double, `sqrtf(double)` float). Law: random expressions over float, double and int
 * operands and literals give, on interp and openmp (compiled without FMA contraction, so that C
 * rounds each operation as written), exactly the value computed here in C's types (Math.fround for
 * float), written out independently of the lowering (src/okl/lower/c-conversions.ts).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import type { Kernel } from "../../src/ir/index.js";
import { run } from "../../src/run/index.js";
import { realWorldBackends, seeded } from "./real-world-helpers.js";

// ---- C's types, written out on their own ------------------------------------------------------------
type T = "float" | "double" | "int";
/** The usual arithmetic conversions of these three types. */
const common = (a: T, b: T): T => (a === "double" || b === "double" ? "double" : a === "float" || b === "float" ? "float" : "int");
/** C++ <cmath>'s overloads: float only when every argument is float (an int argument counts as double). */
const cmath = (...ts: T[]): T => (ts.every((t) => t === "float") ? "float" : "double");
/** A value of type `t`: an int has no negative zero (JS's 0 * -1 is -0, C's int product is 0: seed 2003260433). */
const to = (v: number, t: T): number => (t === "float" ? Math.fround(v) : t === "int" ? v + 0 : v);

/** One C expression: its text, its C type and its value at work-item `i`. */
interface Node { readonly text: string; readonly type: T; readonly at: (i: number) => number }

const N = 4;
const XF = seeded(N, 1).map(Math.fround), YF = seeded(N, 2).map((v) => Math.fround(v * 3)), XD = seeded(N, 3);
const XI = seeded(N, 4).map((v) => Math.trunc(v * 4));

const leaf = (text: string, type: T, at: (i: number) => number): Node => ({ text, type, at });
const LEAVES: readonly Node[] = [
  leaf("xf[i]", "float", (i) => XF[i]!), leaf("yf[i]", "float", (i) => YF[i]!), leaf("xd[i]", "double", (i) => XD[i]!),
  leaf("xi[i]", "int", (i) => XI[i]!), leaf("0.1", "double", () => 0.1), leaf("1e-3", "double", () => 1e-3),
  leaf("M_PI", "double", () => Math.PI), leaf("0.3f", "float", () => Math.fround(0.3)), leaf("3", "int", () => 3), leaf("7", "int", () => 7),
];

function arith(op: "+" | "-" | "*" | "/", l: Node, r: Node): Node {
  let t = common(l.type, r.type);
  // int / int truncates (and may divide by zero): the law is about floating point, so take `-` there.
  if (op === "/" && t === "int") op = "-";
  const f = { "+": (a: number, b: number) => a + b, "-": (a: number, b: number) => a - b, "*": (a: number, b: number) => a * b, "/": (a: number, b: number) => a / b }[op];
  t = common(l.type, r.type);
  return { text: `(${l.text} ${op} ${r.text})`, type: t, at: (i) => to(f(to(l.at(i), t), to(r.at(i), t)), t) };
}
const less = (l: Node, r: Node): Node => {
  const t = common(l.type, r.type);
  return { text: `(${l.text} < ${r.text})`, type: "int", at: (i) => (to(l.at(i), t) < to(r.at(i), t) ? 1 : 0) };
};
const choose = (c: Node, a: Node, b: Node): Node => {
  const t = common(a.type, b.type);
  return { text: `(${c.text} ? ${a.text} : ${b.text})`, type: t, at: (i) => to(c.at(i) !== 0 ? a.at(i) : b.at(i), t) };
};
// An int has no negative zero: -(0) is 0 (a float's is -0.0, and x / -0.0 is -inf).
const neg = (x: Node): Node => ({ text: `(-${x.text})`, type: x.type, at: (i) => (x.type === "int" ? 0 - x.at(i) : -x.at(i)) });
/** `sqrt(fabs(x))` (C++: float for a float, else double) or `sqrtf(fabs(x))` (always float). */
const root = (x: Node, f: boolean): Node => {
  const t = f ? "float" : cmath(x.type);
  return { text: `${f ? "sqrtf" : "sqrt"}(fabs(${x.text}))`, type: t, at: (i) => to(Math.sqrt(Math.abs(to(x.at(i), t))), t) };
};
const fminmax = (fn: "fmin" | "fmax", a: Node, b: Node): Node => {
  const t = cmath(a.type, b.type);
  return { text: `${fn}(${a.text}, ${b.text})`, type: t, at: (i) => (fn === "fmin" ? Math.min : Math.max)(to(a.at(i), t), to(b.at(i), t)) };
};

const expr: fc.Arbitrary<Node> = fc.letrec<{ e: Node }>((tie) => ({
  e: fc.oneof({ depthSize: "small", withCrossShrink: true, maxDepth: 3 },
    fc.constantFrom(...LEAVES),
    fc.tuple(fc.constantFrom("+", "-", "*", "/"), tie("e"), tie("e")).map(([op, l, r]) => arith(op as "+", l, r)),
    fc.tuple(fc.constantFrom("+", "-", "*", "/"), tie("e"), tie("e")).map(([op, l, r]) => arith(op as "+", l, r)),
    fc.tuple(tie("e"), tie("e")).map(([l, r]) => less(l, r)),
    fc.tuple(tie("e"), tie("e"), tie("e"), tie("e")).map(([p, q, a, b]) => choose(less(p, q), a, b)),
    tie("e").map(neg),
    fc.tuple(tie("e"), fc.boolean()).map(([x, f]) => root(x, f)),
    fc.tuple(fc.constantFrom("fmin", "fmax"), tie("e"), tie("e")).map(([fn, a, b]) => fminmax(fn as "fmin", a, b))),
})).e;

/** A compound assignment `float y = xf[i]; y op= e;`: C computes y op e in the common type and rounds to float. */
const compound = fc.tuple(fc.constantFrom("+", "-", "*", "/"), expr).map(([op, e]): Node => {
  const t = common("float", e.type);
  const f = { "+": (a: number, b: number) => a + b, "-": (a: number, b: number) => a - b, "*": (a: number, b: number) => a * b, "/": (a: number, b: number) => a / b }[op]!;
  return { text: `y ${op}= ${e.text};`, type: "float", at: (i) => Math.fround(to(f(to(XF[i]!, t), to(e.at(i), t)), t)) };
});

/** The kernel: each expression stored to a double (its value in its C type) and to a float (rounded once). */
function kernel(es: readonly Node[], cs: readonly Node[]): { k: Kernel; src: string } {
  const lines = es.map((e, j) => `out[${j} * n + i] = ${e.text}; outf[${j} * n + i] = ${e.text};`);
  cs.forEach((e, j) => lines.push(`{ float y = xf[i]; ${e.text} outc[${j} * n + i] = y; }`));
  const src = `@kernel void fl(const int n, const float *xf, const float *yf, const double *xd, const int *xi, double *out, float *outf, float *outc) {
  for (int e = 0; e < 1; ++e; @outer) {
    for (int i = 0; i < n; ++i; @inner) {
      ${lines.join("\n      ")}
    }
  }
}`;
  return { k: (parseOkl(src) as unknown as Kernel[])[0]!, src };
}

const same = (g: number, w: number): boolean => g === w || (Number.isNaN(g) && Number.isNaN(w));
/** gcc contracts a*b+c into one fma unless told not to: the law compares C's operations as written. */
const NO_FMA = { flags: ["-O1", "-fopenmp", "-ffp-contract=off"] };

async function check(es: readonly Node[], cs: readonly Node[]): Promise<void> {
  const { k } = kernel(es, cs);
  for (const backend of realWorldBackends()) {
    const args = {
      n: N, xf: Float32Array.from(XF), yf: Float32Array.from(YF), xd: Float64Array.from(XD), xi: Int32Array.from(XI),
      out: new Float64Array(es.length * N), outf: new Float32Array(es.length * N), outc: new Float32Array(Math.max(1, cs.length) * N),
    };
    const got = (await run(k, args as never, { backend, ...(backend === "interp" ? {} : NO_FMA) } as never)) as Record<string, Float64Array | Float32Array>;
    es.forEach((e, j) => {
      for (let i = 0; i < N; i++) {
        const w = e.at(i);
        if (!same(got.out![j * N + i]!, w)) expect(got.out![j * N + i], `${backend}: ${e.text} (${e.type}) at i=${i}`).toBe(w);
        if (!same(got.outf![j * N + i]!, Math.fround(w))) expect(got.outf![j * N + i], `${backend}: float = ${e.text} (${e.type}) at i=${i}`).toBe(Math.fround(w));
      }
    });
    cs.forEach((e, j) => {
      for (let i = 0; i < N; i++) {
        const w = e.at(i);
        if (!same(got.outc![j * N + i]!, w)) expect(got.outc![j * N + i], `${backend}: ${e.text} at i=${i}`).toBe(w);
      }
    });
  }
}

describe("OKL floating-point expressions follow C's types", () => {
  it("law: random expressions over float, double, int and literals give C's value on every backend", async () => {
    await fc.assert(fc.asyncProperty(fc.array(expr, { minLength: 12, maxLength: 12 }), fc.array(compound, { minLength: 4, maxLength: 4 }), async (es, cs) => {
      await check(es, cs);
    }), { numRuns: Number(process.env.LOOM_C_FLOAT_RUNS ?? 3) });
  });

  it("the cases of the brief: float * 0.5 in double, 0.5f in float, sqrt's overloads, compound assignments", async () => {
    const x = leaf("xf[i]", "float", (i) => XF[i]!);
    const d = leaf("0.1", "double", () => 0.1);
    const f = leaf("0.1f", "float", () => Math.fround(0.1));
    await check(
      [arith("*", x, d), arith("*", x, f), arith("+", x, leaf("xi[i]", "int", (i) => XI[i]!)), arith("*", x, leaf("xd[i]", "double", (i) => XD[i]!)),
        root(arith("*", x, leaf("1.0", "double", () => 1)), false), root(x, false), root(leaf("xd[i]", "double", (i) => XD[i]!), true),
        less(x, d), choose(less(x, d), x, d), arith("*", choose(less(x, f), x, d), leaf("3", "int", () => 3)), fminmax("fmin", leaf("xi[i]", "int", (i) => XI[i]!), leaf("3", "int", () => 3)),
        arith("/", fminmax("fmax", leaf("xi[i]", "int", (i) => XI[i]!), leaf("3", "int", () => 3)), leaf("2", "int", () => 2))],
      [{ text: "y *= 0.1;", type: "float", at: (i) => Math.fround(XF[i]! * 0.1) }, { text: "y += M_PI;", type: "float", at: (i) => Math.fround(XF[i]! + Math.PI) }],
    );
  });

  it("a kernel whose operands all have one type is lowered without a cast", () => {
    const [k] = parseOkl(`@kernel void f(const int n, const float *x, const double *y, float *o, double *p) {
      for (int e = 0; e < 1; ++e; @outer) for (int i = 0; i < n; ++i; @inner) { o[i] = 2.0f * x[i] * x[i] + sqrtf(x[i]) + 3 * x[i]; p[i] = 0.5 * y[i] + sqrt(y[i]) + fmin(y[i], 1.0) + i; }
    }`) as unknown as [Kernel];
    expect(JSON.stringify(k.instructions)).not.toContain('"cast"');
  });
});
