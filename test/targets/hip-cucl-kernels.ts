/**
 * What the hip and cucl target tests generate, compile and run besides loopy's classics (which
 * every target shares: test/codegen/kernels.ts): a few more kernels (atomics, integer helpers,
 * float64 math), the OCCA corpus examples Loom imports, and the helpers that run and compare them.
 */
import { readFileSync } from "node:fs";
import { allocArray, arrayLayout, seededRandom } from "../../src/index.js";
import type { ArgValue } from "../../src/run/index.js";
import { withKernel, type Kernel, type TypedArray } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { ScheduleError } from "../../src/errors.js";
import { preprocess } from "../../src/schedule/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { splitIname, tagInames } from "../../transforms/index.js";
import { loopyClassics } from "../codegen/kernels.js";
import { corpusPresent, exampleCases } from "../okl/corpus-cases.js";

/** More kernels for the compilers: atomics of several dtypes, integer floor division and modulo, float64 math. */
export function extras(): Kernel[] {
  const hist = makeKernel("{[i]: 0<=i<n}", ["h[idx[i] % 8] = h[idx[i] % 8] + 1 {atomic}", "s[0] = s[0] + w[i] {atomic}", "mx[0] = max(mx[0], w[i]) {atomic}"],
    ["idx: int32[n]", "h: int32[8]", "w: float32[n]", "s: float64[1]", "mx: float32[1]", "n: int32"], { name: "hist" });
  return [
    tagInames(splitIname(hist, "i", 32), { i_outer: "g.0", i_inner: "l.0" }),
    splitIname(makeKernel("{[i]: 0<=i<n}", "out[i] = (i - 5) // 3 + (i - 7) % 4 + abs(i - 9)", ["out: int32[n]", "n: int32"], { name: "intops" }), "i", 64, { outerTag: "g.0", innerTag: "l.0" }),
    tagInames(makeKernel("{[i]: 0<=i<n}", "out[i] = sqrt(a[i]) + exp(a[i]) * 0.5 + fabs(a[i]) + min(a[i], 2.0) + rsqrt(a[i]*a[i] + 1)", ["a, out: float64[n]", "n: int32"], { name: "math64" }), { i: "g.0" }),
  ];
}

/**
 * The OCCA example kernels Loom imports and lowers (empty without the corpus): `[file, kernels]`.
 * Left out: files outside Loom's OKL subset (counted by test/okl/corpus.test.ts) and kernels that
 * race as written (OCCA's tests/files/addVectors.okl; refused by every target, test/okl/report.test.ts).
 */
export function corpusKernels(): [string, Kernel[]][] {
  if (!corpusPresent) return [];
  const out: [string, Kernel[]][] = [];
  for (const c of exampleCases()) {
    let ks: Kernel[];
    try {
      ks = parseOkl(readFileSync(c.source, "utf8"), c.options);
    } catch {
      continue;
    }
    out.push([c.rel, ks.filter((k) => !racesAsWritten(k))]);
  }
  return out;
}

function racesAsWritten(k: Kernel): boolean {
  try {
    preprocess(k);
    return false;
  } catch (e) {
    if (e instanceof ScheduleError && / races on /.test(e.message)) return true;
    throw e;
  }
}

/** Seeded inputs for `k` at `params`: every array argument of known dtype (outputs too, so unwritten cells agree), and the values. */
export function randomArgs(k: Kernel, params: Readonly<Record<string, number>>, seed: number): Record<string, ArgValue> {
  const rnd = seededRandom(seed);
  const out: Record<string, ArgValue> = { ...params };
  for (const a of k.args) {
    if (a.kind !== "array" || a.dtype === undefined) continue;
    const data = allocArray(a.dtype, arrayLayout(a, params)?.size ?? 1);
    for (let x = 0; x < data.length; x++) {
      const v = Math.floor(rnd() * 16) - 4;
      (data as unknown as (number | bigint)[])[x] = data instanceof BigInt64Array || data instanceof BigUint64Array ? BigInt(Math.abs(v)) : a.dtype.startsWith("uint") ? Math.abs(v) : v;
    }
    out[a.name] = data;
  }
  return out;
}

/** The arrays of `got` equal those of `want` (floats to `rtol` relative), with a message naming the first difference. */
export function sameOutputs(got: Record<string, TypedArray>, want: Record<string, TypedArray>, rtol = 1e-5): string | undefined {
  for (const [name, w] of Object.entries(want)) {
    const g = got[name];
    if (!g || g.length !== w.length) return `${name}: ${g ? `length ${g.length}` : "missing"}, expected length ${w.length}`;
    for (let x = 0; x < w.length; x++) {
      const [a, b] = [Number(g[x]), Number(w[x])];
      if (!(a === b || (Number.isNaN(a) && Number.isNaN(b)) || Math.abs(a - b) <= rtol * Math.max(1, Math.abs(b)))) return `${name}[${x}] = ${a}, expected ${b}`;
    }
  }
  return undefined;
}

/**
 * Generated files as one translation unit, for one compiler start-up: `prelude`, then the top
 * lines of every file once (includes, helper functions and `#if … #endif` blocks, which repeat
 * from file to file), then every file's kernels (whose names must differ: see `uniquelyNamed`).
 */
export function oneTranslationUnit(codes: readonly string[], prelude = ""): string {
  const top = new Set<string>();
  const kernels: string[] = [];
  for (const code of codes) {
    const cut = code.indexOf("\n\n");
    const lines = code.slice(0, cut).split("\n");
    for (let x = 0; x < lines.length; x++) {
      let end = x;
      if (lines[x]!.startsWith("#if")) while (end < lines.length - 1 && !lines[end]!.startsWith("#endif")) end++;
      top.add(lines.slice(x, end + 1).join("\n"));
      x = end;
    }
    kernels.push(code.slice(cut + 2));
  }
  return [prelude, ...top, "", ...kernels].join("\n");
}

/**
 * What a compiler check of hip or cucl code puts in one translation unit: loopy's classics, the
 * extras, the target's kernel of hostile names and the OCCA examples, uniquely named.
 */
export function compileCheckKernels(hostile: Kernel): Kernel[] {
  return uniquelyNamed([...Object.values(loopyClassics()).map((c) => c.knl), ...extras(), hostile, ...corpusKernels().flatMap(([, ks]) => ks)]);
}

/** `ks` renamed `k0_<name>`, `k1_<name>`, …: their device kernels' names differ in one translation unit. */
export function uniquelyNamed(ks: readonly Kernel[]): Kernel[] {
  return ks.map((k, n) => withKernel(k, { name: `k${n}_${k.name}` }));
}
