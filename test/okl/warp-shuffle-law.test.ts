/**
 * The law of CUDA's warp shuffles in OKL (src/okl/lower/warp-shuffles.ts): random widths (powers of
 * two up to 32), work-groups of one or two @inner axes whose size is a multiple of the width, chains
 * of one to three shuffles (`__shfl_up_sync`, `_down_`, `_xor_`, `__shfl_sync`, and the forms without
 * `_sync` and the mask) with random deltas, lane masks and source lanes (constant or per work-item,
 * negative and past the width), on double and int values, under conditions uniform over each
 * sub-group (blockShflScan's `if (w == 0)`, `l < 2*width`, `l < width*N` with N known only at run
 * time; as an `if` or a `?:` around each call)
 * or none: the run equals a serial model of CUDA's definition (PTX `shfl`: the partner lane j is
 * computed within the sub-group of `width` lanes; where j leaves it, for up, down and xor, the
 * work-item gets its own value back), on the interpreter and on OpenMP. Under a condition that may
 * differ between the lanes of one sub-group (`l < k` or `l < k*N` with k not a multiple of the width, odd lanes,
 * the value itself), in an `if`, a `?:` arm or the right operand of `&&` / `||`, CUDA's result is
 * undefined: an OklError at the call.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseOkl } from "../../src/okl/parse-okl.js";
import { run } from "../../src/run/index.js";
import { nativeAvailable } from "../run/native-helpers.js";
import { oklError } from "./helpers.js";

type Op = "up" | "down" | "xor" | "idx";
interface Shuffle {
  readonly op: Op;
  readonly sync: boolean;
  /** delta (up, down), lane mask (xor, < width) or source lane (idx). */
  readonly k: number;
  /** idx only: the source lane is `k + 3*l` per work-item, not the constant k. */
  readonly perItem: boolean;
}
interface Case {
  readonly width: number;
  readonly Dx: number;
  readonly Dy: number;
  readonly type: "double" | "int";
  readonly chain: readonly Shuffle[];
  readonly groups: number;
  /** A condition around the chain that is uniform over each sub-group (blockShflScan's `if (w == 0)`), or none. */
  readonly guard: Guard;
  /** The guard as an `if` around the chain, or as `?:` around each call. */
  readonly ternary: boolean;
}
type Guard = "none" | "odd sub-groups" | "first sub-group" | "group 1" | "two sub-groups" | "run-time multiple" | "run-time multiple, flipped";
/** Whether the guard holds for work-item i of group b (sub-groups of `width`). */
function guardHolds(g: Guard, b: number, i: number, width: number, groups: number): boolean {
  switch (g) {
    case "none": return true;
    case "odd sub-groups": return Math.floor(i / width) % 2 === 1;
    case "first sub-group": return Math.floor(i / width) === 0;
    case "group 1": return b === 1;
    case "two sub-groups": return i < 2 * width;
    // N is the number of groups: a bound known only at run time, a multiple of the width.
    case "run-time multiple": return i < width * groups;
    case "run-time multiple, flipped": return 2 * width * groups - width > i;
  }
}
const GUARD_C = (g: Guard, width: number): string =>
  ({ none: "", "odd sub-groups": `(l / ${width}) % 2 == 1`, "first sub-group": `l / ${width} == 0`, "group 1": "b == 1", "two sub-groups": `l < ${2 * width}`,
    "run-time multiple": `l < ${width}*N`, "run-time multiple, flipped": `${2 * width}*N - ${width} > l` })[g];

const shuffleArb = (width: number): fc.Arbitrary<Shuffle> => fc.record({
  op: fc.constantFrom<Op>("up", "down", "xor", "idx"),
  sync: fc.boolean(),
  k: fc.integer({ min: -3, max: 40 }),
  perItem: fc.boolean(),
}).map((s) => ({
  ...s,
  k: s.op === "xor" ? ((s.k % width) + width) % width : s.op === "idx" ? s.k : Math.abs(s.k),
  perItem: s.op === "idx" && s.perItem,
}));

/** Width w, then axes Dx (x, @inner(0)) and Dy whose product is a multiple of w, at most 64 work-items. */
const caseArb: fc.Arbitrary<Case> = fc.constantFrom(1, 2, 4, 8, 16, 32).chain((width) => fc.record({
  width: fc.constant(width),
  Dx: fc.constantFrom(1, 2, 3, 4, 6, 8, 16, 32),
  Dy: fc.constantFrom(1, 1, 2, 3),
  type: fc.constantFrom<"double" | "int">("double", "int"),
  chain: fc.array(shuffleArb(width), { minLength: 1, maxLength: 3 }),
  groups: fc.integer({ min: 0, max: 2 }),
  guard: fc.constantFrom<Guard>("none", "none", "odd sub-groups", "first sub-group", "group 1", "two sub-groups", "run-time multiple", "run-time multiple, flipped"),
  ternary: fc.boolean(),
}).filter((c) => (c.Dx * c.Dy) % width === 0 && c.Dx * c.Dy <= 64));

const NAMES: Record<Op, string> = { up: "__shfl_up", down: "__shfl_down", xor: "__shfl_xor", idx: "__shfl" };

const call = (s: Shuffle, j: number, width: number): string => {
  const k = s.perItem ? `${s.k} + 3*l` : String(s.k);
  return s.sync ? `${NAMES[s.op]}_sync(0xffffffff, v${j}, ${k}, ${width})` : `${NAMES[s.op]}(v${j}, ${k}, ${width})`;
};

function source(c: Case): string {
  const g = GUARD_C(c.guard, c.width);
  const calls = c.chain.map((s, j) => `const ${c.type} v${j + 1} = ${c.guard !== "none" && c.ternary ? `(${g}) ? ${call(s, j, c.width)} : v${j}` : call(s, j, c.width)};`);
  const chain = c.guard === "none" || c.ternary
    ? `${calls.join("\n        ")}\n        r = v${c.chain.length};`
    : `if (${g}) {\n          ${calls.join("\n          ")}\n          r = v${c.chain.length};\n        }`;
  return kernelSource(c, chain);
}

/** The kernel around `chain` (which reads v0 and the sub-group's lane l, and sets r). */
function kernelSource(c: Omit<Case, "chain" | "guard" | "ternary">, chain: string): string {
  const L = c.Dx * c.Dy;
  const body = `const int l = t + ${c.Dx}*y;
        const ${c.type} v0 = x[b*${L} + l];
        ${c.type} r = v0;
        ${chain}
        out[b*${L} + l] = r;`;
  const inner = c.Dy > 1
    ? `for (int y = 0; y < ${c.Dy}; ++y; @inner(1)) { for (int t = 0; t < ${c.Dx}; ++t; @inner(0)) {\n        ${body}\n      } }`
    : `for (int t = 0; t < ${c.Dx}; ++t; @inner) {\n        const int y = 0;\n        ${body}\n      }`;
  return `@kernel void f(const int N, const ${c.type} *x, ${c.type} *out) {
  for (int b = 0; b < N; ++b; @outer) {
    ${inner}
  }
}`;
}

/**
 * CUDA's result of one shuffle for every work-item of a group (linear index i = x + Dx*y, lane i % 32
 * of warp i / 32), after PTX's `shfl`: the sub-group of `width` lanes is [first, last]; up reads
 * lane i - k unless it is below first, down i + k unless past last, xor i ^ k unless past last;
 * idx reads first + (src & (width - 1)).
 */
function shuffle(vals: readonly number[], s: Shuffle, width: number): number[] {
  return vals.map((own, i) => {
    const first = i - (i % width);
    const last = first + width - 1;
    switch (s.op) {
      case "up": return i - s.k >= first ? vals[i - s.k]! : own;
      case "down": return i + s.k <= last ? vals[i + s.k]! : own;
      case "xor": return (i ^ s.k) <= last ? vals[i ^ s.k]! : own;
      case "idx": return vals[first + ((s.perItem ? s.k + 3 * i : s.k) & (width - 1))]!;
    }
  });
}

const input = (c: Case) => Array.from({ length: c.groups * c.Dx * c.Dy }, (_, j) => (c.type === "int" ? 7 * j - 40 : j * 0.5 - 3.25));

function serial(c: Case): number[] {
  const L = c.Dx * c.Dy;
  const x = input(c);
  const out: number[] = [];
  for (let b = 0; b < c.groups; b++) {
    const v0 = x.slice(b * L, b * L + L);
    // A sub-group the guard leaves out keeps its values; one it lets in shuffles among its own lanes only.
    const shuffled = c.chain.reduce((v, s) => shuffle(v, s, c.width), v0);
    out.push(...v0.map((own, i) => (guardHolds(c.guard, b, i, c.width, c.groups) ? shuffled[i]! : own)));
  }
  return out;
}

async function check(c: Case, backend: string): Promise<void> {
  const src = source(c);
  const [k] = parseOkl(src);
  const make = (xs: number[]) => (c.type === "int" ? Int32Array.from(xs) : Float64Array.from(xs));
  const r = await run(k!, { N: c.groups, x: make(input(c)), out: make(input(c).map(() => 0)) }, { backend, checkBounds: false } as never);
  expect(Array.from(r.out as ArrayLike<number>), `${backend}\n${src}`).toEqual(serial(c));
}

/** A shuffle under a condition that may differ between the lanes of one sub-group. */
interface Divergent {
  readonly c: Omit<Case, "chain" | "guard" | "ternary">;
  readonly shuffle: Shuffle;
  readonly form: "if" | "?:" | "&&" | "||";
  /** `l < k` or `l < k*N` (k not a multiple of the width), odd lanes, or the value shuffled (not provable). */
  readonly cond: "prefix" | "run-time prefix" | "odd lanes" | "value";
  readonly k: number;
}
const divergentArb: fc.Arbitrary<Divergent> = caseArb.filter((c) => c.width > 1).chain((c) => fc.record({
  c: fc.constant(c),
  shuffle: fc.constant(c.chain[0]!),
  form: fc.constantFrom<Divergent["form"]>("if", "?:", "&&", "||"),
  cond: fc.constantFrom<Divergent["cond"]>("prefix", "prefix", "run-time prefix", "odd lanes", "value"),
  // m*width + r with 0 < r < width: some lanes of sub-group m hold l < k, others not.
  k: fc.tuple(fc.integer({ min: 0, max: (c.Dx * c.Dy) / c.width - 1 }), fc.integer({ min: 1, max: c.width - 1 })).map(([m, r]) => m * c.width + r),
}));
function divergentSource(d: Divergent): string {
  const cond = { prefix: `l < ${d.k}`, "run-time prefix": `l < ${d.k}*N`, "odd lanes": "l % 2 == 1", value: "v0 > 0" }[d.cond];
  const shfl = call(d.shuffle, 0, d.c.width);
  const chain = {
    if: `if (${cond}) r = ${shfl};`,
    "?:": `r = (${cond}) ? ${shfl} : v0;`,
    "&&": `r = ((${cond}) && ${shfl} > 0) ? 1 : 0;`,
    "||": `r = ((${cond}) || ${shfl} > 0) ? 1 : 0;`,
  }[d.form];
  return kernelSource(d.c, chain);
}

describe("CUDA warp shuffles in OKL, as a law", () => {
  it("under a condition that may differ between the lanes of one sub-group: an OklError at the call, saying why", () => {
    fc.assert(fc.property(divergentArb, (d) => {
      const src = divergentSource(d);
      const e = oklError(() => parseOkl(src));
      const lines = src.split("\n");
      const line = lines.findIndex((x) => x.includes("__shfl"));
      expect(e.message, src).toContain(`may differ between the lanes of one sub-group of ${d.c.width} work-items`);
      expect(e.message).toContain("Accepted: a condition uniform over each sub-group");
      expect([e.line, e.column], src).toEqual([line + 1, lines[line]!.indexOf("__shfl") + 1]);
    }), { numRuns: 50 });
  });

  it("equal CUDA's definition on random widths, groups and chains (interp)", async () => {
    await fc.assert(fc.asyncProperty(caseArb, (c) => check(c, "interp")), { numRuns: 30 });
  });

  it.skipIf(!nativeAvailable("openmp"))("and on OpenMP (a few kernels: each is a compile)", async () => {
    await fc.assert(fc.asyncProperty(caseArb.filter((c) => c.groups > 0), (c) => check(c, "openmp")), { numRuns: 3 });
  });
});
