/**
 * Issue 20 (engineer H): a private scalar declared outside an `@inner` loop, assigned inside it and
 * read where the iteration has not assigned it yet. OCCA's serial and OpenMP modes run the loop as C,
 * so the value travels between iterations (a libParanumal fork's refinement indicator sums a face's
 * marks into `dfloat rf` under `n == 0` and every `n` then reads it); its GPU modes give each
 * work-item its own copy. Loom gave each work-item its copy, silently unlike the serial meaning: now
 * an OklError at the read names the variable, its declaration and the loop. Kernels in
 * libParanumal's style; what stays accepted runs on interp and openmp against the serial meaning.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { oklError } from "./helpers.js";
import { expectSerialMeaning, seeded } from "./real-world-helpers.js";

const DEFINES = { defines: { dfloat: "double", dlong: "int", p_NblockV: 2, p_Np: 4 } };
const RULE = "value carried across iterations";

/** The line (1-based) of the first line of `src` containing `needle`. */
const lineOf = (src: string, needle: string): number => src.split("\n").findIndex((l) => l.includes(needle)) + 1;

// The fork's shape: marks per node in @shared memory, then a count per element in a second nest.
const MARKS = `
@kernel void refineFlag(const dlong Nelements, @restrict const dfloat *q, @restrict dlong *flag) {
  for (dlong eo = 0; eo < Nelements; eo += p_NblockV; @outer(0)) {
    @shared dfloat s_mark[p_NblockV][p_Np];
    @shared dfloat s_total[p_NblockV];
    for (int es = 0; es < p_NblockV; ++es; @inner(1)) {
      for (int n = 0; n < p_Np; ++n; @inner(0)) {
        const dlong e = eo + es;
        if (e < Nelements) s_mark[es][n] = (q[e*p_Np + n] > 0.25) ? 1.0 : -1.0;
      }
    }
COUNT
  }
}`;

const CARRIED_COUNT = `
    for (int es = 0; es < p_NblockV; ++es; @inner(1)) {
      dfloat total = 0.0;
      const dlong e = eo + es;
      for (int n = 0; n < p_Np; ++n; @inner(0)) {
        if (n == 0) {
          for (int m = 0; m < p_Np; ++m) total += s_mark[es][m];
        }
        if (e < Nelements) flag[e] = total / p_Np;
      }
    }`;

const SHARED_COUNT = `
    for (int es = 0; es < p_NblockV; ++es; @inner(1)) {
      for (int n = 0; n < p_Np; ++n; @inner(0)) {
        if (n == 0) {
          dfloat total = 0.0;
          for (int m = 0; m < p_Np; ++m) total += s_mark[es][m];
          s_total[es] = total;
        }
      }
    }
    @barrier();
    for (int es = 0; es < p_NblockV; ++es; @inner(1)) {
      for (int n = 0; n < p_Np; ++n; @inner(0)) {
        const dlong e = eo + es;
        if (e < Nelements && n == 0) flag[e] = s_total[es] / p_Np;
      }
    }`;

describe("a count kept in a private between @inner loops (the refinement indicator)", () => {
  it("is refused at its first read, naming the variable, its declaration and the loop", () => {
    const src = MARKS.replace("COUNT", CARRIED_COUNT);
    const e = oklError(() => parseOkl(src, DEFINES));
    expect(e.rule).toBe(RULE);
    expect(e.line).toBe(lineOf(src, "total += s_mark"));
    expect(e.message).toContain(`"total" (declared at ${lineOf(src, "dfloat total = 0.0")}:`);
    expect(e.message).toContain(`outside the @inner loop at ${lineOf(src, "if (n == 0)") - 1}:`);
    expect(e.message).toMatch(/serial and OpenMP modes carry its value .* GPU modes give each work-item its own copy/);
  });

  it("through @shared memory and a barrier runs as the serial meaning", async () => {
    const [k] = parseOkl(MARKS.replace("COUNT", SHARED_COUNT), DEFINES);
    const Nelements = 5;
    const q = seeded(Nelements * 4, 11);
    const flag = Array.from({ length: Nelements }, (_, e) => Math.trunc(q.slice(4 * e, 4 * e + 4).reduce((s, v) => s + (v > 0.25 ? 1 : -1), 0) / 4));
    await expectSerialMeaning(k!, () => ({ Nelements, q: Float64Array.from(q), flag: new Int32Array(Nelements) }), { flag }, 0);
  });
});

describe("running values and values read after the loop", () => {
  it("a running sum in an @outer body's scalar is refused at the accumulation", () => {
    const src = `
@kernel void cumulate(const dlong Nelements, @restrict const dfloat *x, @restrict dfloat *cum) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    dfloat running = 0;
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      running += x[e*p_Np + n];
      cum[e*p_Np + n] = running;
    }
  }
}`;
    const e = oklError(() => parseOkl(src, DEFINES));
    expect([e.rule, e.line, e.column]).toEqual([RULE, lineOf(src, "running += x"), 7]);
  });

  it("a value read after the @inner loop that assigns it is refused at the read", () => {
    const src = `
@kernel void lastNode(const dlong Nelements, @restrict const dfloat *x, @restrict dfloat *y, @restrict dfloat *last) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    dfloat r_x;
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      r_x = x[e*p_Np + n];
      y[e*p_Np + n] = 2*r_x;
    }
    last[e] = r_x;
  }
}`;
    const e = oklError(() => parseOkl(src, DEFINES));
    expect([e.rule, e.line]).toEqual([RULE, lineOf(src, "last[e] = r_x")]);
    expect(e.message).toMatch(/"r_x" .* is read here after that loop assigns it: .* last iteration/);
  });

  // Every work-item (and every C iteration) assigns the same value: no single-meaning problem after the loop.
  const LAST = `
@kernel void minusLast(const dlong Nelements, @restrict const dfloat *x, @restrict dfloat *out) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    @shared dfloat s_x[p_Np];
    dfloat top = 0;
    for (int n = 0; n < p_Np; ++n; @inner(0)) s_x[n] = x[e*p_Np + n];
    @barrier();
    for (int n = 0; n < p_Np; ++n; @inner(0)) BODY
    for (int n = 0; n < p_Np; ++n; @inner(0)) out[e*p_Np + n] = x[e*p_Np + n] - top;
  }
}`;

  it("one value every iteration assigns (`top = s_x[p_Np-1]` from @shared memory) is read after the loop as the serial meaning", async () => {
    const [k] = parseOkl(LAST.replace("BODY", "top = s_x[p_Np-1];"), DEFINES);
    const x = seeded(12, 9);
    await expectSerialMeaning(k!, () => ({ Nelements: 3, x: Float64Array.from(x), out: new Float64Array(12) }),
      { out: x.map((v, i) => v - x[4 * Math.floor(i / 4) + 3]!) }, 1e-12);
  });

  it("but read before that assignment in the iteration it is carried, and refused", () => {
    const src = LAST.replace("BODY", "{ out[e*p_Np + n] = top; top = s_x[p_Np-1]; }");
    const e = oklError(() => parseOkl(src, DEFINES));
    expect([e.rule, e.line]).toEqual([RULE, lineOf(src, "out[e*p_Np + n] = top;")]);
  });

  it("a scalar declared once in the @outer body and assigned before each use (C89 style) runs as the serial meaning", async () => {
    const [k] = parseOkl(`
@kernel void twoPasses(const dlong Nelements, @restrict const dfloat *x, @restrict dfloat *y, @restrict dfloat *z) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    dfloat r;
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      r = x[e*p_Np + n];
      y[e*p_Np + n] = r*r;
    }
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      r = x[e*p_Np + n] + 1;
      z[e*p_Np + n] = r - y[e*p_Np + n];
    }
  }
}`, DEFINES);
    const x = seeded(12, 5);
    const y = x.map((v) => v * v);
    await expectSerialMeaning(k!, () => ({ Nelements: 3, x: Float64Array.from(x), y: new Float64Array(12), z: new Float64Array(12) }),
      { y, z: x.map((v, i) => v + 1 - y[i]!) }, 1e-12);
  });

  it("a struct declared in the @outer body and filled field by field in each iteration (nekRS's bcData style) is not judged", async () => {
    const [k] = parseOkl(`
typedef struct { dfloat u; dfloat v; } pair_t;
@kernel void pairs(const dlong Nelements, @restrict const dfloat *x, @restrict dfloat *y) {
  for (dlong e = 0; e < Nelements; ++e; @outer(0)) {
    pair_t bc;
    for (int n = 0; n < p_Np; ++n; @inner(0)) {
      bc.u = x[e*p_Np + n];
      bc.v = 2*x[e*p_Np + n];
      y[e*p_Np + n] = bc.u + bc.v;
    }
  }
}`, DEFINES);
    const x = seeded(8, 6);
    await expectSerialMeaning(k!, () => ({ Nelements: 2, x: Float64Array.from(x), y: new Float64Array(8) }), { y: x.map((v) => 3 * v) }, 1e-12);
  });

  it("an @inner loop Loom runs as a C loop in each work-item (bounds from locals, no barrier) keeps C's meaning: OCCA's CPU reduction body", async () => {
    const [k] = parseOkl(`
@kernel void cpuSum(const int entries, @restrict const dfloat *vec, @restrict dfloat *partial) {
  for (int oi = 0; oi < 2; ++oi; @outer) {
    dfloat acc = 0;
    const int len = (entries + 1) / 2;
    const int start = oi * len;
    for (int i = start; i < start + len; ++i; @inner) {
      if (i < entries) acc += vec[i];
    }
    partial[oi] = acc;
  }
}`, DEFINES);
    const vec = seeded(9, 2);
    const half = (a: number, b: number) => vec.slice(a, b).reduce((s, v) => s + v, 0);
    await expectSerialMeaning(k!, () => ({ entries: 9, vec: Float64Array.from(vec), partial: new Float64Array(2) }), { partial: [half(0, 5), half(5, 9)] }, 1e-12);
  });
});

// The law: a body of statements on `r` (declared in the @outer body) inside an @inner loop is refused
// exactly when some read may see another iteration's value, and otherwise means its serial meaning.
type Step = { kind: "set"; c: number } | { kind: "setEven"; c: number } | { kind: "read" } | { kind: "bump" };
const stepText = (s: Step): string =>
  s.kind === "set" ? `r = x[e*4 + n] + ${s.c}.0;` : s.kind === "setEven" ? `if (n % 2 == 0) r = ${s.c}.0;` : s.kind === "read" ? `y[e*4 + n] += r;` : `r += 1.0;`;

describe("the law over random bodies: refused iff a read may see another iteration's value", () => {
  it("matches a definite-assignment model and, when accepted, the serial meaning (interp)", async () => {
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.integer({ min: 1, max: 3 }).map((c): Step => ({ kind: "set", c })),
      fc.integer({ min: 1, max: 3 }).map((c): Step => ({ kind: "setEven", c })),
      fc.constant<Step>({ kind: "read" }),
      fc.constant<Step>({ kind: "bump" }),
    );
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
      const src = `@kernel void body(const int Ne, @restrict const double *x, @restrict double *y) {
  for (int e = 0; e < Ne; ++e; @outer(0)) {
    double r = 0.5;
    for (int n = 0; n < 4; ++n; @inner(0)) {
      ${steps.map(stepText).join("\n      ")}
    }
  }
}`;
      // The model: every iteration may start from another's value once any step assigns r.
      let tainted = steps.some((s) => s.kind !== "read");
      let refused = false;
      for (const s of steps) {
        if (s.kind === "set") tainted = false;
        else if ((s.kind === "read" || s.kind === "bump") && tainted) refused = true;
        else if (s.kind === "bump") tainted = false;
      }
      if (refused) {
        expect(oklError(() => parseOkl(src)).rule).toBe(RULE);
        return;
      }
      const [k] = parseOkl(src);
      const x = seeded(8, steps.length);
      const y = new Array<number>(8).fill(0);
      for (let e = 0; e < 2; e++) {
        let r = 0.5;
        for (let n = 0; n < 4; n++) {
          for (const s of steps) {
            if (s.kind === "set") r = x[e * 4 + n]! + s.c;
            else if (s.kind === "setEven") { if (n % 2 === 0) r = s.c; }
            else if (s.kind === "read") y[e * 4 + n]! += r;
            else r += 1;
          }
        }
      }
      const out = (await run(k!, { Ne: 2, x: Float64Array.from(x), y: new Float64Array(8) } as never, { backend: "interp" } as never)) as { y?: Float64Array };
      // A body without a read never writes y: it keeps its zeros, as the model's.
      Array.from(out.y ?? new Float64Array(8)).forEach((v, i) => expect(v).toBeCloseTo(y[i]!, 12));
    }), { numRuns: 25 });
  });
});

describe("plain loops nested deep inside an @inner loop (the check walks each loop at most twice per level, not 2^depth times)", () => {
  const deep = (depth: number, body: string) => {
    for (let d = depth - 1; d >= 0; d--) body = `for (int m${d} = 0; m${d} < 1; ++m${d}) { ${body} }`;
    return `@kernel void deep(const int n, const double *a, double *out) {
  for (int b = 0; b < n; ++b; @outer) {
    double r = 0;
    for (int t = 0; t < 4; ++t; @inner) {
      ${body}
    }
  }
}`;
  };
  it("40 levels: a kernel with no carried value imports; a running sum at the bottom is refused at its read", () => {
    // (2^40 walks of the body before: the import never ended.)
    expect(parseOkl(deep(40, "const double x = a[t]; out[4 * b + t] = x;"))).toHaveLength(1);
    const e = oklError(() => parseOkl(deep(40, "r += a[t]; out[4 * b + t] = r;")));
    expect(e.message).toMatch(/"r" \(declared at 3:12, outside the @inner loop at 4:5\) is read here before this iteration assigns it/);
  });
});
