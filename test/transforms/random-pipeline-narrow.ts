/**
 * The random-pipeline law's kernels of narrow integers and bools: an elementwise kernel over
 * int8, uint8, int16, uint16, bool (and int32) arrays whose instructions are random expression trees (every
 * operator: + - * / // % ** & | ^ << >> ~, unary minus, comparisons, min, max, abs, if, casts,
 * and, or, not) on values near each type's limits (-128, 127, 255, -32768, 32767, 65535, 0, 1;
 * bool elements whose byte is 2 or 255 too),
 * stored into arrays of random dtypes, some reduced over j (sum, product, max, min: accumulators of
 * those types); then the random legal moves of gen-kernels.ts (splits,
 * g/l/vec tags, prefetches into narrow temporaries…). C computes char and short arithmetic in
 * int and keeps bools in a byte, where the interpreter wraps each node in its dtype: the class of
 * silent wrong results this law is for.
 *
 * An int32 input near its limits (and int32 arithmetic of mixed operands) wraps too, as the
 * C-family targets print it (in the unsigned type: C leaves signed overflow undefined, and gcc
 * folds `(x + 1) > x`); divisions of int32 include `INT32_MIN / -1`. The expressions stay where the
 * interpreter raises no error: a divisor is `(y | 1)` (never 0), a shift count or exponent
 * `y & 7` / `y & 3`.
 *
 *   fc.sample(genNarrowCase, 1)[0].source.instructions   // ["o0[i] = -(a[i] * c[i]) // (b[i] | 1)", …]
 */
import fc from "fast-check";
import { combineTypes, type Dtype, type TypeInfo } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { toJSON } from "../../transforms/pipeline.js";
import { buildPipeline, genMove, type Case, type KernelSource } from "./gen-kernels.js";

/** The input arrays, one per narrow dtype, and two bools. */
export const NARROW_INPUTS: Readonly<Record<string, Dtype>> = { a: "int8", b: "uint8", c: "int16", d: "uint16", p: "bool", q: "bool", e: "int32" };
const NARROW_TYPES: readonly Dtype[] = ["int8", "uint8", "int16", "uint16"];
/** Values at and near each type's limits; bools as bytes, 2 and 255 among them (true, as the interpreter reads them). */
export const EDGES: Readonly<Partial<Record<Dtype, readonly number[]>>> = {
  int8: [-128, -127, -1, 0, 1, 2, 63, 64, 126, 127],
  uint8: [0, 1, 2, 127, 128, 254, 255],
  int16: [-32768, -32767, -256, -129, -128, -1, 0, 1, 127, 128, 255, 256, 16384, 32767],
  uint16: [0, 1, 2, 127, 128, 255, 256, 32767, 32768, 65534, 65535],
  bool: [0, 1, 1, 0, 2, 255],
  int32: [-2147483648, -2147483647, -65536, -1, 0, 1, 2, 46341, 65535, 65536, 2147483646, 2147483647],
};
const LITERALS = [0, 1, 2, 3, -1, 7, 127, -128, 128, 255, 256, -32768, 32767, 65535, 2147483647];

/** An expression as instruction text with its type (as src/ir's exprType computes it). */
interface Node {
  readonly code: string;
  readonly t: TypeInfo;
}

const strong = (dtype: Dtype): TypeInfo => ({ dtype, weak: false });
const narrowOrBool = (t: TypeInfo) => NARROW_TYPES.includes(t.dtype) || t.dtype === "bool";
/** `x` as a narrow integer (`cast(int16, x)`), unless it is one already. */
const asNarrow = (x: Node, to: Dtype): Node => (x.t.dtype === to && !x.t.weak ? x : { code: `cast(${to}, ${x.code})`, t: strong(to) });

const BINARY = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "<", ">", "==", "!=", "min", "max", "and", "or"] as const;
type Op = (typeof BINARY)[number];

/** `l op r`, kept where C defines it (see the module comment); `to` is the narrow type a division or shift is cast to. */
function binary(op: Op, l: Node, r: Node, to: Dtype): Node {
  const both = combineTypes(l.t, r.t);
  switch (op) {
    case "/": case "//": case "%": {
      const x = asNarrow(l, to);
      const y = asNarrow(r, to);
      return { code: `${x.code} ${op} (${y.code} | 1)`, t: x.t };
    }
    case "**": {
      const x = asNarrow(l, to);
      return { code: `${x.code} ** (${asNarrow(r, to).code} & 3)`, t: x.t };
    }
    case "<<": case ">>": {
      const x = asNarrow(l, to === "bool" ? "uint8" : to);
      return { code: `${x.code} ${op} (${asNarrow(r, "uint8").code} & 7)`, t: x.t };
    }
    case "<": case ">": case "==": case "!=": case "and": case "or": return { code: `${l.code} ${op} ${r.code}`, t: strong("bool") };
    case "min": case "max": return { code: `${op}(${l.code}, ${r.code})`, t: both };
    // int32 wraps too (near its limits: the e input), as the C-family targets print it (computed unsigned).
    default: return { code: `${l.code} ${op} ${r.code}`, t: both };
  }
}

/** A random expression over the inputs, at most `depth` operators deep. */
function genNode(depth: number): fc.Arbitrary<Node> {
  const leaf: fc.Arbitrary<Node> = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...Object.keys(NARROW_INPUTS)).map((x) => ({ code: `${x}[i]`, t: strong(NARROW_INPUTS[x]!) })) },
    { weight: 1, arbitrary: fc.constantFrom(...LITERALS).map((v) => ({ code: v < 0 ? `(${v})` : String(v), t: { dtype: "int32", weak: true } as TypeInfo })) },
  );
  if (depth === 0) return leaf;
  const sub = genNode(depth - 1);
  const to = fc.constantFrom<Dtype>(...NARROW_TYPES, "bool", "int32");
  const paren = (x: Node): Node => ({ code: `(${x.code})`, t: x.t });
  return fc.oneof(
    { weight: 2, arbitrary: leaf },
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...BINARY), sub, sub, to).map(([op, l, r, t]) => paren(binary(op, l, r, t))) },
    { weight: 1, arbitrary: sub.map((x): Node => (x.t.weak ? x : { code: `(-${x.code})`, t: x.t })) },
    { weight: 1, arbitrary: fc.tuple(sub, fc.constantFrom<Dtype>(...NARROW_TYPES)).map(([x, t]): Node => ({ code: `(~${asNarrow(x, t).code})`, t: strong(t) })) },
    { weight: 1, arbitrary: sub.map((x): Node => (x.t.weak ? x : { code: `abs(${x.code})`, t: x.t })) },
    { weight: 1, arbitrary: sub.map((x): Node => ({ code: `(not ${x.code})`, t: strong("bool") })) },
    { weight: 1, arbitrary: fc.tuple(sub, fc.constantFrom<Dtype>(...NARROW_TYPES, "bool")).map(([x, t]) => asNarrow(x, t)) },
    { weight: 1, arbitrary: fc.tuple(sub, sub, sub).map(([c, x, y]) => ({ code: `if(${c.code}, ${x.code}, ${y.code})`, t: combineTypes(x.t, y.t) })) },
  );
}

const REDUCTIONS = ["sum", "product", "max", "min"] as const;

/**
 * `x` or, where drawn and `x` is narrow or bool (its accumulator wraps, as an int32 one could
 * overflow), a reduction over `j` of `x` with the j-th value of a narrow type mixed in.
 */
function reduced(x: Node, r: (typeof REDUCTIONS)[number] | "none", op: "+" | "^" | "*", t: Dtype): Node {
  if (r === "none" || !narrowOrBool(x.t) || x.t.weak) return x;
  return { code: `${r}(j, ${x.code} ${op} cast(${t}, j - 1))`, t: x.t };
}

/** The kernel: outputs o0… of random dtypes (the expression's own among them), each a random expression (some reduced over j). */
export const genNarrowSource: fc.Arbitrary<KernelSource> = fc.array(
  fc.tuple(genNode(3), fc.constantFrom<Dtype | "own">("own", "own", "int8", "uint8", "int16", "uint16", "int32", "bool"),
    fc.constantFrom<(typeof REDUCTIONS)[number] | "none">("none", "none", "none", ...REDUCTIONS), fc.constantFrom("+", "^", "*"), fc.constantFrom<Dtype>(...NARROW_TYPES))
    .map(([x, d, r, op, t]) => [reduced(x, r, op as "+" | "^" | "*", t), d] as const),
  { minLength: 1, maxLength: 10 },
).map((outs) => {
  const dtypes = outs.map(([x, d]) => (d === "own" ? (x.t.weak ? "int32" : x.t.dtype) : d));
  return {
    family: "narrow",
    domains: ["{[i,j]: 0<=i<n and 0<=j<m}"],
    instructions: outs.map(([x], o) => `o${o}[i] = ${x.code}`),
    args: [...Object.entries(NARROW_INPUTS).map(([x, d]) => `${x}: ${d}[n]`), ...dtypes.map((d, o) => `o${o}: ${d}[n]`), "n, m: int32"],
    params: { n: [0, 12], m: [0, 4] },
  };
});

const ARRAYS: Readonly<Partial<Record<Dtype, { from(xs: readonly number[]): ArrayLike<number> }>>> = {
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, bool: Uint8Array, int32: Int32Array,
};

/** A case of the law, with the inputs (near the limits) it runs on. */
export interface NarrowCase extends Case {
  readonly args: Readonly<Record<string, ArrayLike<number> | number>>;
}

/** Input arrays of `n` elements, each drawn from its type's edges. */
const genInputs = (n: number) => fc.record(Object.fromEntries(Object.entries(NARROW_INPUTS).map(([x, d]) =>
  [x, fc.array(fc.constantFrom(...EDGES[d]!), { minLength: n, maxLength: n }).map((xs) => ARRAYS[d]!.from(xs))])));

/** A kernel of the class, its inputs, and a random legal pipeline (printed as JSON). */
export const genNarrowCase: fc.Arbitrary<NarrowCase> = fc.tuple(genNarrowSource, fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 4 }))
  .chain(([source, n, m]) => fc.tuple(fc.constant(source), genInputs(n).map((a) => ({ ...a, n, m })), fc.array(genMove, { minLength: 0, maxLength: 5 })))
  .map(([source, args, moves]) => {
    const kernel = makeKernel([...source.domains], [...source.instructions], [...source.args], { name: source.family });
    const { pipeline: p, transformed } = buildPipeline(kernel, moves);
    const c: NarrowCase = { source, kernel, ref: kernel, params: { n: args.n, m: args.m }, pipeline: p, json: toJSON(p), transformed, args };
    Object.defineProperty(c, fc.toStringMethod, {
      value: () => `{ kernel: ${JSON.stringify(source)}, args: ${JSON.stringify(Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === "number" ? v : [...v]])))}, pipeline: ${JSON.stringify(c.json)} }`,
    });
    return c;
  });
