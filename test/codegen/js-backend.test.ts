/** Law: the js backend computes bit for bit what the interpreter computes. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Kernel, TypedArray } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { autoTestVsRef, run } from "../../src/run/index.js";
import { tag, tiledMatmul, vecadd } from "./kernels.js";

function sameBits(a: TypedArray, b: TypedArray): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

async function agree(k: Kernel, args: Record<string, TypedArray | number>): Promise<boolean> {
  const ref = await run(k, args);
  const js = await run(k, args, { backend: "js" });
  return Object.keys(ref).every((name) => sameBits(ref[name]!, js[name]!));
}

describe("js backend vs. interpreter on loopy's examples", () => {
  it("vecadd split with a remainder, g/l tags lowered for the CPU", async () => {
    const ref = vecadd(128);
    const r = await autoTestVsRef(ref, tag(vecadd(128), { io: "g.0", ii: "l.0" }), { params: { n: 1000 }, backend: "js" });
    expect(r.mismatches).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it("tiled matmul", async () => {
    const r = await autoTestVsRef(tiledMatmul(), tiledMatmul(), { params: { n: 32 }, backend: "js" });
    expect(r.ok).toBe(true);
  });

  it("integer floor division and modulo, int64 and float64", async () => {
    const k = makeKernel("{[i]: 0<=i<n}", [
      "out[i] = (i - 5) // 3 + (i - 7) % 4 + abs(i - 9) + a[i] / 3",
      "big[i] = b[i] * 3 + (b[i] // 7)",
      "d[i] = sqrt(x[i]) * 0.1 + max(x[i], 0.5)",
    ], ["out: int32[n]", "a: int32[n]", "big: int64[n]", "b: int64[n]", "d: float64[n]", "x: float64[n]", "n: int32"]);
    const n = 20;
    const args = {
      a: Int32Array.from({ length: n }, (_, i) => i * 7 - 60), b: BigInt64Array.from({ length: n }, (_, i) => BigInt(i * 1e12 - 5e12)),
      x: Float64Array.from({ length: n }, (_, i) => i * 1.7), n,
    };
    expect(await agree(k, args)).toBe(true);
  });

  it("a triangular reduction with unrolling", async () => {
    const k = tag(makeKernel("{[i,j]: 0<=i<8 and 0<=j<=i}", "out[i] = sum(j, a[i,j] * 1.5)", ["a: float32[8,8]", "out: float32[8]"]), { j: "unr" });
    expect(await agree(k, { a: Float32Array.from({ length: 64 }, (_, i) => Math.sin(i)) })).toBe(true);
  });
});

// ---- the property --------------------------------------------------------------------------

const BODIES = [
  "2*a[I] + b[I]",
  "a[I] * b[I] - 0.1",
  "sqrt(fabs(a[I])) + max(a[I], b[I])",
  "a[I] / (fabs(b[I]) + 1)",
  "if(a[I] > b[I], a[I], b[I] * 3)",
];
const INT_BODIES = ["p[I] // 3 + p[I] % 5", "p[I] * 7 - (p[I] // 2)", "abs(p[I]) + min(p[I], 4)"];

const arb = fc.record({
  f: fc.integer({ min: 1, max: 6 }),
  n: fc.integer({ min: 0, max: 17 }),
  kind: fc.constantFrom("elementwise", "int", "rowsum", "triangle"),
  body: fc.nat(BODIES.length - 1),
  ibody: fc.nat(INT_BODIES.length - 1),
  tags: fc.constantFrom("none", "gl", "g", "unr", "ilp"),
  seed: fc.integer({ min: 0, max: 1000 }),
});

type Params = typeof arb extends fc.Arbitrary<infer T> ? T : never;

function buildKernel(p: Params): { k: Kernel; args: Record<string, TypedArray | number> } {
  const { f, n, kind } = p;
  const I = `${f}*io+ii`;
  const split = `0 <= ii < ${f} and 0 <= ${I} < n`;
  const rnd = (len: number, s: number) => Float32Array.from({ length: len }, (_, i) => Math.fround(Math.sin(i * 12.9898 + s) * 43.758));
  let k: Kernel;
  let args: Record<string, TypedArray | number>;
  if (kind === "elementwise") {
    k = makeKernel(`{[io,ii]: ${split}}`, `out[${I}] = ${BODIES[p.body]!.replaceAll("I", I)}`, ["a: float32[n]", "b: float32[n]", "out: float32[n]", "n: int32"]);
    args = { a: rnd(n, p.seed), b: rnd(n, p.seed + 1), n };
  } else if (kind === "int") {
    k = makeKernel(`{[io,ii]: ${split}}`, `out[${I}] = ${INT_BODIES[p.ibody]!.replaceAll("I", I)}`, ["p: int32[n]", "out: int32[n]", "n: int32"]);
    args = { p: Int32Array.from({ length: n }, (_, i) => ((i * 7919 + p.seed) % 201) - 100), n };
  } else {
    const inner = kind === "rowsum" ? "0 <= j < m" : `0 <= j <= ${I}`;
    k = makeKernel(`{[io,ii,j]: ${split} and ${inner}}`, `out[${I}] = sum(j, a[${I}, j] * 0.5) + 1`,
      ["a: float32[n,m]", "out: float32[n]", "n: int32", "m: int32"]);
    args = { a: rnd(n * (n + 1), p.seed), n, m: n + 1 };
  }
  const tags: Record<string, string> = p.tags === "gl" ? { io: "g.0", ii: "l.0" } : p.tags === "g" ? { io: "g.0" } : p.tags === "unr" ? { ii: "unr" } : p.tags === "ilp" ? { ii: "ilp" } : {};
  return { k: tag(k, tags), args };
}

describe("property: js and interp agree", () => {
  it("for random kernels (elementwise, integer, reductions, triangles) and legal tags on split domains", async () => {
    await fc.assert(fc.asyncProperty(arb, async (p) => {
      const { k, args } = buildKernel(p);
      return agree(k, args);
    }), { numRuns: 200 });
  }, 60_000);
});
