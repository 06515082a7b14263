/**
 * The random-pipeline law's kernels imported from OKL (parseOkl): a small random OKL kernel — an
 * @outer loop over work-groups of G work-items, a first @inner loop writing @shared memory and an
 * @exclusive value (optionally through a device function, optionally with a sequential loop over
 * neighbours), the barrier between @inner loops, a second @inner loop reading other work-items'
 * @shared cells (optionally summing some in a sequential loop) and its own @exclusive value — then the random legal moves of gen-kernels.ts (on
 * the imported g/l inames, the sequential loop, the temporaries the import makes).
 *
 *   fc.sample(genOklCase, 1)[0].source.instructions[0]   // the OKL source
 */
import fc from "fast-check";
import type { Kernel } from "../../src/ir/index.js";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { toJSON } from "../../transforms/pipeline.js";
import { buildPipeline, genMove, type Case, type KernelSource } from "./gen-kernels.js";

/** The shape of one random OKL kernel (see the module comment). */
export interface OklShape {
  readonly group: number;
  /** The @exclusive value of the first loop, as an expression of `v` (the element), `t` (the work-item) and `acc`. */
  readonly first: string;
  /** What the second loop writes, from `s[(t + shift) % G]`, `e` (the @exclusive value) and `t`. */
  readonly second: string;
  readonly shift: number;
  /** A device function `float dev(float x, int k)` applied to the element (else `v` as it is). */
  readonly device: boolean;
  /** A sequential loop over `window` neighbours summed into `acc`. */
  readonly window: number;
  /** A sequential loop in the second @inner loop summing `reach` @shared cells into `sum` (0: none). */
  readonly reach: number;
  /** The @shared cell is a function of e (else of v alone). */
  readonly sharedOfE: boolean;
  /** Both @inner loops inside a plain loop of trips (absent: none), with a private value carried across them (genOklCarriedShape). */
  readonly carried?: CarriedShape;
}

/**
 * nekRS's weightedInnerProdMulti class: the @inner loops inside a plain `for` (or a `while` with a
 * counter, while-trips.ts) loop of `trips` trips, which holds the barrier between them; the first
 * @inner loop alone touches a private value carried from one trip to the next: `c` assigned on the
 * first trip only, `c` read then updated each trip (the previous trip's value), or the cells of an
 * @exclusive array `ca[2]` assigned on the first trip and updated each trip. The second loop's `out`
 * (each trip's, the last kept) adds `e`, which reads it. On CPU targets a phase runs for each work-item in turn: one slot for all
 * work-items hands the last one's value to every work-item's next trip.
 */
export interface CarriedShape {
  readonly trips: number;
  readonly how: "first" | "previous" | "array";
  readonly loop: "for" | "while";
}

export const genCarriedShape: fc.Arbitrary<CarriedShape> = fc.record({
  trips: fc.integer({ min: 1, max: 3 }),
  how: fc.constantFrom("first", "previous", "array"),
  loop: fc.constantFrom("for", "while"),
});

/** A small float expression tree over `leaves` (+, *, a C max by ?:, literals). */
const expr = (leaves: readonly string[]): fc.Arbitrary<string> => fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof({ depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...leaves, "0.5f", "2"),
    fc.tuple(tie("e"), fc.constantFrom("+", "*"), tie("e")).map(([l, op, r]) => `(${l} ${op} ${r})`),
    fc.tuple(tie("e"), tie("e")).map(([l, r]) => `(${l} > ${r} ? ${l} : ${r})`)),
})).e;

export const genOklShape: fc.Arbitrary<OklShape> = fc.record({
  group: fc.integer({ min: 1, max: 8 }),
  first: expr(["v", "(float) t", "acc"]),
  second: expr(["s[(t + SHIFT) % G]", "e", "(float) t", "sum"]),
  shift: fc.integer({ min: 0, max: 7 }),
  device: fc.boolean(),
  window: fc.integer({ min: 1, max: 3 }),
  reach: fc.integer({ min: 0, max: 3 }),
  sharedOfE: fc.boolean(),
});

/** The carried value's declarations, its statements before and after `e`'s assignment, and what `e` adds of it. */
function carriedLines(c: CarriedShape | undefined): { decl: string[]; pre: string[]; read: string; post: string[] } {
  if (c === undefined) return { decl: [], pre: [], read: "", post: [] };
  switch (c.how) {
    case "first": return { decl: ["    @exclusive float c;"], pre: ["      if (it == 0) c = v * 0.5f + (float) t;"], read: " + c", post: [] };
    case "previous": return { decl: ["    @exclusive float c;"], pre: ["      if (it == 0) c = (float) t;"], read: " + c", post: ["      c = c * 0.5f + v;"] };
    case "array": return { decl: ["    @exclusive float ca[2];"], pre: ["      if (it == 0) { ca[0] = v; ca[1] = (float) t; }"], read: " + ca[0] * ca[1]", post: ["      ca[1] = ca[1] + 1;"] };
  }
}

/** The OKL source of `x`. */
export function oklShapeSource(x: OklShape): string {
  const G = x.group;
  const second = x.second.replaceAll("SHIFT", String(x.shift)).replaceAll("% G", `% ${G}`);
  const c = x.carried;
  const carry = carriedLines(c);
  const inTrips = (lines: string[]): string[] => c === undefined ? lines : c.loop === "for"
    ? [`    for (int it = 0; it < ${c.trips}; ++it) {`, ...lines.map((l) => `  ${l}`), "    }"]
    : ["    int it = 0;", `    while (it < ${c.trips}) {`, ...lines.map((l) => `  ${l}`), "      ++it;", "    }"];
  return [
    ...(x.device ? ["float dev(float x, int k) {", "  const float y = x * k;", "  return y + 1;", "}"] : []),
    "@kernel void oklRandom(const int n, const float *a, float *out) {",
    `  for (int g = 0; g < (n + ${G - 1}) / ${G}; ++g; @outer) {`,
    `    @shared float s[${G}];`,
    "    @exclusive float e;",
    ...carry.decl,
    ...inTrips([
      `    for (int t = 0; t < ${G}; ++t; @inner) {`,
      `      const int i = g * ${G} + t;`,
      `      const float v = i < n ? ${x.device ? "dev(a[i], t)" : "a[i]"} : 0;`,
      "      float acc = 0;",
      `      for (int j = 0; j < ${x.window}; ++j) {`,
      `        const int q = g * ${G} + (t + j) % ${G};`,
      "        if (q < n) acc += a[q];",
      "      }",
      ...carry.pre,
      `      e = ${x.first}${carry.read};`,
      ...carry.post,
      `      s[t] = ${x.sharedOfE ? "e * 2" : "v + 1"};`,
      "    }",
      `    for (int t = 0; t < ${G}; ++t; @inner) {`,
      `      const int i = g * ${G} + t;`,
      "      float sum = 0;",
      ...(x.reach > 0 ? [`      for (int r = 0; r < ${x.reach}; ++r) sum += s[(t + r) % ${G}];`] : []),
      `      if (i < n) out[i] = ${second}${c === undefined ? "" : " + e"};`,
      "    }",
    ]),
    "  }",
    "}",
  ].join("\n");
}

/** genOklShape with a loop of trips around the @inner loops and a private value carried across them (CarriedShape). */
export const genOklCarriedShape: fc.Arbitrary<OklShape> = fc.tuple(genOklShape, genCarriedShape).map(([x, carried]) => ({ ...x, carried }));

/** The imported kernel of `x` (parseOkl's), memoized by source: the law's reference. */
const imported = new Map<string, Kernel>();
export function oklShapeKernel(x: OklShape): Kernel {
  const src = oklShapeSource(x);
  let k = imported.get(src);
  if (k === undefined) imported.set(src, (k = parseOkl(src)[0]!));
  return k;
}

/** A random OKL kernel, n from 0 to 19, then random legal moves (printed with its OKL source). */
export const genOklCase: fc.Arbitrary<Case> = oklCasesOf(genOklShape);

/** genOklCase's kernels with a private value carried across the trips of a loop holding a barrier (CarriedShape). */
export const genOklCarriedCase: fc.Arbitrary<Case> = oklCasesOf(genOklCarriedShape);

function oklCasesOf(shapes: fc.Arbitrary<OklShape>): fc.Arbitrary<Case> {
  return fc.tuple(shapes, fc.integer({ min: 0, max: 19 }), fc.array(genMove, { minLength: 0, maxLength: 5 }))
  .map(([shape, n, moves]) => {
    const src = oklShapeSource(shape);
    const kernel = oklShapeKernel(shape);
    const { pipeline, transformed } = buildPipeline(kernel, moves, { scheduled: true });
    // The source: the OKL text stands for the domains and instructions its import makes.
    const source: KernelSource = { family: "okl", domains: [], instructions: [src], args: [], params: { n: [n, n] } };
    const c: Case = { source, kernel, ref: kernel, params: { n }, pipeline, json: toJSON(pipeline), transformed };
    Object.defineProperty(c, fc.toStringMethod, { value: () => `{ okl:\n${src}\n, params: { n: ${n} }, pipeline: ${JSON.stringify(c.json)} }` });
    return c;
  });
}

/** The arguments of a case: `a` random (seeded) over whole work-groups, `out` zero (its cells past n stay 0). */
export function oklArgs(c: Case): Record<string, unknown> {
  const n = c.params.n!;
  const len = Math.max(1, Math.ceil(n / 8) * 8);
  let seed = 7 + n;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  return { n, a: Float32Array.from({ length: len }, () => Math.fround(rnd() * 2 - 0.5)), out: new Float32Array(len) };
}

/**
 * The mismatches of `c`'s transformed kernel on `backend` against its OKL kernel on the
 * interpreter (relative 1e-5: a native compiler may contract `x*y + z`), the first few.
 */
export async function oklMismatches(c: Case, backend: string, run: (k: Kernel, args: Record<string, unknown>, opts: object) => Promise<Record<string, unknown>>): Promise<string[]> {
  const want = (await run(c.ref, oklArgs(c), {})).out as Float32Array;
  const got = (await run(c.transformed, oklArgs(c), { backend })).out as Float32Array;
  const bad: string[] = [];
  want.forEach((w, i) => {
    if (!(Math.abs(got[i]! - w) <= 1e-5 * Math.max(1, Math.abs(w)))) bad.push(`out[${i}]: expected ${w}, got ${got[i]}`);
  });
  return bad.slice(0, 3);
}
