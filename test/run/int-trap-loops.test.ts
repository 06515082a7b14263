/**
 * Integer traps in c and openmp loops (codegen/targets/int-trap-loops.ts): inside an innermost
 * loop the checks lower local keys (a min reduction gcc vectorizes) and the loop's end records
 * the least, instead of each check calling the recorder. The law: for random operands over a nest
 * with checks at both levels (a shift whose count the loop computes, a count read again after the
 * loop, a 64-bit count either way, divisions, an exponent), c and openmp report what the
 * interpreter reports (its first trap: the instruction, the count or exponent), or compute what it
 * computes; also in a SIMD loop (`vec`: `#pragma omp simd reduction(min: …)`). And the point of
 * it: gcc vectorizes a loop of checked data-dependent shifts.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { generateCode } from "../../codegen/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { ExecutionError } from "../../src/errors.js";
import type { Kernel, TypedArray } from "../../src/ir/index.js";
import { splitIname } from "../../transforms/index.js";
import { compileBudgetMs, hasGcc } from "../codegen/compile-helpers.js";
import { availableNative } from "./native-helpers.js";

const M = 2;
const N = 5;
const RUNS = Number(process.env.LOOM_TRAP_RUNS ?? 20);

/** Checks at the outer level (direct records) and in the inner loop (keys), of every kind. */
const nest = makeKernel("{[j,i]: 0<=j<m and 0<=i<n}", [
  "x[j] = a[j, 0] // d[j, 0] {id=outer_div}",
  "<> t = s[j, i] + 1 {id=tmp}",
  "o[j, i] = a[j, i] << t {id=sh_key, dep=tmp}",
  "p[j, i] = a[j, i] >> s[j, i] {id=sh_again}",
  "q[j, i] = a[j, i] // d[j, i] {id=div_in}",
  "w[j, i] = l[j, i] << c[j, i] {id=wide_again}",
  "c2[j, i] = c[j, i] - 1 {id=wc}",
  "v[j, i] = l[j, i] >> c2[j, i] {id=wide_key, dep=wc}",
  "e[j, i] = a[j, i] ** (s[j, i] - 2) {id=pw}",
  "y[j] = a[j, 1] << s[j, 0] {id=outer_sh, dep=sh_key:sh_again:div_in:wide_again:wide_key:pw}",
], ["a, s, d, o, p, q, e: int32[m, n]", "x, y: int32[m]", "l, c, c2, w, v: int64[m, n]", "m, n: int32"], { name: "nest" });

/** The inner loop a SIMD loop (`#pragma omp simd` on c and openmp), with its guard. */
const simd = splitIname(nest, "i", 4, { innerTag: "vec" });

const INT32 = [-(2 ** 31), 2 ** 31 - 1];

/** Mostly in range, now and then what traps: counts outside 0..31 (0..63), divisors 0, small counts (exponents s - 2 < 0). */
const arb = (common: fc.Arbitrary<number>, rare: fc.Arbitrary<number>) =>
  fc.array(fc.oneof({ arbitrary: common, weight: 40 }, { arbitrary: rare, weight: 1 }), { minLength: M * N, maxLength: M * N });
const genArgs = fc.record({
  a: fc.array(fc.integer({ min: INT32[0], max: INT32[1] }), { minLength: M * N, maxLength: M * N }),
  s: arb(fc.integer({ min: 2, max: 30 }), fc.constantFrom(-1, 0, 1, 31, 32, 40, INT32[1]!, INT32[0]!)),
  d: arb(fc.integer({ min: 1, max: 9 }), fc.constantFrom(0, -1)),
  l: fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { minLength: M * N, maxLength: M * N }),
  c: arb(fc.integer({ min: 1, max: 63 }), fc.constantFrom(0, 64, -5, INT32[0]!)).map((xs) => xs.map(BigInt)),
}).map((r) => ({
  a: Int32Array.from(r.a), s: Int32Array.from(r.s), d: Int32Array.from(r.d), l: BigInt64Array.from(r.l), c: BigInt64Array.from(r.c),
  // The high word of a 64-bit count matters: now and then one past 2^32.
  m: M, n: N,
}));

type Args = ReturnType<typeof genArgs.generate>["value"];

/** In-range operands with at most one planted trap: run first by every law below (within its numRuns), so that values and traps of two instructions are always among its cases (unseeded local runs drew only one kind now and then). */
function planted(plant: (args: Args) => void): Args {
  const args: Args = { a: new Int32Array(M * N).fill(3), s: new Int32Array(M * N).fill(4), d: new Int32Array(M * N).fill(2), l: new BigInt64Array(M * N).fill(5n), c: new BigInt64Array(M * N).fill(3n), m: M, n: N };
  plant(args);
  return args;
}
const EXAMPLES: [Args, number][] = [
  [planted(() => {}), 1], // computes
  [planted((x) => { x.d[N + 2] = 0; }), 1], // q[1, 2] = a // 0
  [planted((x) => { x.c[3] = 64n; }), 1], // w[0, 3] = l << 64
];

async function outcome(k: Kernel, backend: string, args: Args): Promise<unknown> {
  const own = Object.fromEntries(Object.entries(args).map(([n, v]) => [n, typeof v === "number" ? v : (v as TypedArray).slice()]));
  try {
    const r = await run(k, own as never, { backend } as never);
    return Object.fromEntries(Object.entries(r).sort().map(([n, v]) => [n, [...v].map(String)]));
  } catch (e) {
    return { error: e instanceof ExecutionError ? "ExecutionError" : (e as Error).constructor.name, message: (e as Error).message };
  }
}

const backends = availableNative(["c", "openmp"]);

describe.skipIf(backends.length === 0)("c and openmp report the interpreter's first trap from loops whose checks accumulate", () => {
  for (const [name, k, runs] of [["a nest", nest, RUNS], ["a SIMD loop", simd, Math.ceil(RUNS / 2)]] as const) {
    it(`${name}: ${backends.join(", ")} give the same values or the same ExecutionError`, async () => {
      const seen = { values: 0, errors: new Set<string>() };
      await fc.assert(fc.asyncProperty(genArgs, fc.integer({ min: 0, max: 2 ** 31 }), async (args, big) => {
        // A 64-bit count past 2^32 now and then (its high word is recorded too).
        if (big % 5 === 0) args.c[big % (M * N)] = BigInt(big) * 2n ** 32n + 7n;
        const want = await outcome(k, "interp", args);
        const message = (want as { message?: string }).message;
        if (message === undefined) seen.values++;
        else seen.errors.add(message.replace(/^instruction "([a-z_]+)".*$/, "$1"));
        for (const backend of backends) expect(await outcome(k, backend, args), backend).toEqual(want);
      }), { numRuns: runs, examples: EXAMPLES });
      // Not vacuous: runs that computed, and traps from the inner loop's keys of both kinds.
      expect(seen.values).toBeGreaterThan(0);
      expect(seen.errors.size).toBeGreaterThan(1);
    }, 60_000 + runs * backends.length * 2_000);
  }

  it("the SIMD loop reduces its keys", () => {
    for (const target of ["c", "openmp"] as const) {
      expect(generateCode(simd, target).deviceCode).toMatch(/#pragma omp simd reduction\(min: loopy_trap_k1, loopy_trap_k2, [^)]*\)\n\s*for \(int i_inner/);
    }
  });
});

describe("gcc vectorizes a loop of checked data-dependent shifts", () => {
  const shifts = makeKernel("{[i]: 0<=i<n}", "o[i] = a[i] << s[i] {id=sh}", ["a, s, o: int32[n]", "n: int32"], { name: "shifts" });
  // AVX2 shifts each lane by its own count (SSE2 has no such shift: there gcc vectorizes no such loop, checked or not).
  it.skipIf(!hasGcc || process.arch !== "x64")("c and openmp, gcc -O3 -mavx2 (one compile)", () => {
    const dir = mkdtempSync(join(tmpdir(), "loom-trap-loops-"));
    const files = (["c", "openmp"] as const).map((t) => {
      const file = join(dir, `shifts_${t}.c`);
      writeFileSync(file, generateCode(shifts, t).deviceCode);
      return file;
    });
    // -fopt-info reports on stderr: `shifts_c.c:13:23: optimized: loop vectorized using 32 byte vectors`.
    const gcc = spawnSync("gcc", ["-O3", "-mavx2", "-fopenmp", "-c", "-fopt-info-vec-optimized", ...files], { cwd: dir, encoding: "utf8", timeout: compileBudgetMs(2) });
    expect(gcc.status, gcc.stderr).toBe(0);
    (["c", "openmp"] as const).forEach((t, x) => {
      const line = generateCode(shifts, t).deviceCode.split("\n").findIndex((l) => l.includes("for (int i")) + 1;
      expect(line, t).toBeGreaterThan(0);
      expect(gcc.stderr, t).toMatch(new RegExp(`${basename(files[x]!)}:${line}:\\d+: optimized: loop vectorized`));
    });
  }, compileBudgetMs(2) + 10_000);
});
