/**
 * Bitwise operators compute what C computes, dtype by dtype: a BigInt model of C (values promoted,
 * operated on in two's complement, converted back) is the reference. Loom's shift rule: a count
 * outside 0..31 (0..63 for 64-bit values) is an ExecutionError, where C leaves it undefined.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { ExecutionError, ParseError } from "../../src/errors.js";
import { allocArray, dtypeBits, dtypeKind, exprToString, type ArithOp, type Dtype, type Expr, type TypedArray } from "../../src/ir/index.js";
import { makeKernel } from "../../src/parse/index.js";
import { run } from "../../src/run/index.js";
import { nativeAvailable } from "./native-helpers.js";

const INT_DTYPES: readonly Dtype[] = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"];
type Op = "&" | "|" | "^" | "<<" | ">>" | "~";
const OPS: readonly Op[] = ["&", "|", "^", "<<", ">>", "~"];

/** C, in BigInt: the value of `a op b` in dtype `d` (shifts: `b` is a count in 0..width-1 of the promoted value). */
function cModel(op: Op, a: bigint, b: bigint, d: Dtype): bigint {
  const bits = dtypeBits(d);
  const back = (x: bigint) => (dtypeKind(d) === "int" ? BigInt.asIntN(bits, x) : BigInt.asUintN(bits, x));
  switch (op) {
    case "&": return back(a & b);
    case "|": return back(a | b);
    case "^": return back(a ^ b);
    case "~": return back(~a);
    // Promoted to (at least) 32 bits, shifted in two's complement (gcc defines signed <<), converted back.
    case "<<": return back(a << b);
    case ">>": return back(a >> b);
  }
}

/** A random value of `d` as a BigInt. */
function arbValue(d: Dtype): fc.Arbitrary<bigint> {
  const bits = dtypeBits(d);
  return dtypeKind(d) === "int" ? fc.bigInt(-(1n << BigInt(bits - 1)), (1n << BigInt(bits - 1)) - 1n) : fc.bigInt(0n, (1n << BigInt(bits)) - 1n);
}
const shiftWidth = (d: Dtype) => (dtypeBits(d) === 64 ? 64 : 32);

function toArray(d: Dtype, xs: readonly bigint[]): TypedArray {
  const arr = allocArray(d, xs.length);
  xs.forEach((x, i) => { (arr as unknown as (number | bigint)[])[i] = dtypeBits(d) === 64 ? x : Number(x); });
  return arr;
}
const fromArray = (arr: TypedArray): bigint[] => [...(arr as unknown as Iterable<number | bigint>)].map((x) => BigInt(x));

function kernelFor(op: Op, d: Dtype, countD: Dtype = d) {
  const rhs = op === "~" ? "~a[i]" : `a[i] ${op} b[i]`;
  return makeKernel("{[i]: 0<=i<n}", `out[i] = ${rhs} {id=op}`, [`a, out: ${d}[n]`, `b: ${countD}[n]`, "n: int32"]);
}

describe("the interpreter matches a BigInt model of C", () => {
  for (const d of INT_DTYPES) {
    it(`${d}: & | ^ ~ << >> for random operands`, async () => {
      for (const op of OPS) {
        const k = kernelFor(op, d);
        const count = fc.integer({ min: 0, max: Math.min(shiftWidth(d) - 1, dtypeKind(d) === "int" ? 2 ** (dtypeBits(d) - 1) - 1 : 2 ** 31) }).map(BigInt);
        const pair = fc.tuple(arbValue(d), op === "<<" || op === ">>" ? count : arbValue(d));
        await fc.assert(fc.asyncProperty(fc.array(pair, { minLength: 1, maxLength: 24 }), async (pairs) => {
          const a = pairs.map(([x]) => x);
          const b = pairs.map(([, y]) => y);
          const got = fromArray((await run(k, { a: toArray(d, a), b: toArray(d, b), n: pairs.length })).out!);
          expect(got, `${d} ${op}`).toEqual(pairs.map(([x, y]) => cModel(op, x, y, d)));
        }), { numRuns: 25, seed: 1234 });
      }
    });
  }

  it("known values: arithmetic right shift of negatives, wrap of narrow left shifts, ~ of unsigned", async () => {
    const r = async (op: Op, d: Dtype, a: bigint[], b: bigint[]) =>
      fromArray((await run(kernelFor(op, d), { a: toArray(d, a), b: toArray(d, b), n: a.length })).out!);
    expect(await r(">>", "int32", [-8n, -1n, -2147483648n], [1n, 31n, 31n])).toEqual([-4n, -1n, -1n]);
    expect(await r(">>", "uint32", [4294967295n], [31n])).toEqual([1n]);
    expect(await r("<<", "int8", [-1n, 1n, 3n], [3n, 7n, 9n])).toEqual([-8n, -128n, 0n]);
    expect(await r("<<", "int32", [1n, 3n], [31n, 31n])).toEqual([-2147483648n, -2147483648n]);
    expect(await r("~", "uint8", [5n], [0n])).toEqual([250n]);
    expect(await r("~", "uint64", [0n], [0n])).toEqual([18446744073709551615n]);
    expect(await r("<<", "int64", [1n], [63n])).toEqual([-9223372036854775808n]);
    // Within an expression, not only when stored: ~ of uint64 stays non-negative.
    const k = makeKernel("{[i]: 0<=i<n}", "out[i] = (~a[i] >> 60) + (~b[i] >> 14) {id=op}", ["a, out: uint64[n]", "b: uint16[n]", "n: int32"]);
    expect([...(await run(k, { a: BigUint64Array.of(0n), b: Uint16Array.of(0), n: 1 })).out!]).toEqual([18n]);
  });

  it("a count of another dtype shifts too (a 64-bit count on a 32-bit value and back)", async () => {
    const k1 = kernelFor("<<", "int32", "int64");
    expect([...(await run(k1, { a: Int32Array.of(3), b: BigInt64Array.of(4n), n: 1 })).out!]).toEqual([48]);
    const k2 = kernelFor(">>", "uint64", "int8");
    expect([...(await run(k2, { a: BigUint64Array.of(1n << 63n), b: Int8Array.of(62), n: 1 })).out!]).toEqual([2n]);
  });
});

describe("shift counts outside 0..width-1 are ExecutionErrors (undefined behaviour in C)", () => {
  const cases: [Dtype, bigint][] = [["int32", 32n], ["int32", -1n], ["uint8", 32n], ["int64", 64n], ["uint64", -3n]];
  for (const backend of ["interp", "js"] as const) {
    it(`${backend}: the error names the instruction and the count`, async () => {
      for (const [d, n] of cases) {
        for (const op of ["<<", ">>"] as const) {
          const p = run(kernelFor(op, d, "int64"), { a: toArray(d, [1n]), b: BigInt64Array.of(n), n: 1 }, { backend });
          await expect(p, `${d} ${op} ${n}`).rejects.toThrow(ExecutionError);
          await expect(run(kernelFor(op, d, "int64"), { a: toArray(d, [1n]), b: BigInt64Array.of(n), n: 1 }, { backend }))
            .rejects.toThrow(new RegExp(`"op": shift count ${n} is out of range`));
        }
      }
    });
  }
  it("the widths are C's promoted widths: an 8-bit value shifts by up to 31", async () => {
    const out = (await run(kernelFor("<<", "uint8", "int32"), { a: Uint8Array.of(1), b: Int32Array.of(31), n: 1 })).out!;
    expect([...out]).toEqual([0]);
  });
});

// ---- random expressions: js (and the c backend) against the interpreter -------------------------

const VARS: readonly { name: string; dtype: Dtype }[] = [
  { name: "a", dtype: "int8" }, { name: "b", dtype: "uint16" }, { name: "c", dtype: "int32" },
  { name: "d", dtype: "uint32" }, { name: "e", dtype: "int64" }, { name: "f", dtype: "uint64" },
];
const sub = (name: string): Expr => ({ kind: "subscript", array: name, indices: [{ kind: "var", name: "i" }] });
const arbLeaf: fc.Arbitrary<Expr> = fc.oneof(
  fc.constantFrom(...VARS.map((x) => sub(x.name))),
  fc.integer({ min: 0, max: 4096 }).map((value): Expr => ({ kind: "const", value, isFloat: false })),
);
/** Random expressions over `binops`, shifts and `~`. */
function arbExprOver(binops: readonly ArithOp[]): fc.Arbitrary<Expr> {
  return fc.letrec<{ expr: Expr }>((tie) => ({
    expr: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      arbLeaf,
      fc.tuple(fc.constantFrom(...binops), tie("expr"), tie("expr")).map(([op, left, right]): Expr => ({ kind: "arith", op, left, right })),
      // Counts are kept in range (`& 31`) or are small literals; out-of-range counts have their own tests.
      fc.tuple(fc.constantFrom<ArithOp>("<<", ">>"), tie("expr"), fc.oneof(
        tie("expr").map((x): Expr => ({ kind: "arith", op: "&", left: x, right: { kind: "const", value: 31, isFloat: false } })),
        fc.integer({ min: 0, max: 31 }).map((value): Expr => ({ kind: "const", value, isFloat: false })),
      )).map(([op, left, right]): Expr => ({ kind: "arith", op, left, right })),
      tie("expr").map((operand): Expr => ({ kind: "bitnot", operand })),
    ),
  })).expr;
}
const arbOut = fc.constantFrom<Dtype>("int8", "uint8", "int16", "int32", "uint32", "int64", "uint64");

function randomInputs(seed: number, n: number): Record<string, TypedArray> {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s);
  const out: Record<string, TypedArray> = {};
  for (const { name, dtype } of VARS) {
    const bits = dtypeBits(dtype);
    out[name] = toArray(dtype, Array.from({ length: n }, () => {
      const raw = (BigInt(next()) << 32n) | BigInt(next());
      return dtypeKind(dtype) === "int" ? BigInt.asIntN(bits, raw) : BigInt.asUintN(bits, raw);
    }));
  }
  return out;
}

async function outcome(k: ReturnType<typeof makeKernel>, inputs: Record<string, TypedArray>, backend: "interp" | "js" | "c") {
  try {
    return { out: fromArray((await run(k, { ...inputs, n: 8 }, { backend })).out!) };
  } catch (e) {
    if (e instanceof ExecutionError) return { error: e.message };
    throw e;
  }
}

/** The kernel `out[i] = e`, or undefined where e is ill-typed (uint64 + int8 is float64, as in numpy). */
function exprKernel(e: Expr, outD: Dtype) {
  try {
    return makeKernel("{[i]: 0<=i<n}", `out[i] = ${exprToString(e)} {id=op}`, [...VARS.map((x) => `${x.name}: ${x.dtype}[n]`), `out: ${outD}[n]`, "n: int32"]);
  } catch (err) {
    if (err instanceof ParseError && /needs (integer|an integer)/.test(err.message)) return undefined;
    throw err;
  }
}

describe("js is bit-identical with the interpreter", () => {
  it("for random expressions over every integer dtype (values and errors alike)", async () => {
    await fc.assert(fc.asyncProperty(arbExprOver(["&", "|", "^", "+", "-", "*"]), arbOut, fc.nat(), async (e, outD, seed) => {
      const k = exprKernel(e, outD);
      fc.pre(k !== undefined);
      const inputs = randomInputs(seed, 8);
      expect(await outcome(k!, inputs, "js"), exprToString(e)).toEqual(await outcome(k!, inputs, "interp"));
    }), { numRuns: 200, seed: 99 });
  });
});

describe.skipIf(!nativeAvailable("c"))("the c backend agrees with the interpreter", () => {
  // Bitwise operators only: C computes + - * of narrow types in int, without the wrap Loom gives each node.
  it("for random bitwise expressions (compiled by the C compiler)", async () => {
    await fc.assert(fc.asyncProperty(arbExprOver(["&", "|", "^"]), arbOut, fc.nat(), async (e, outD, seed) => {
      const k = exprKernel(e, outD);
      fc.pre(k !== undefined);
      const inputs = randomInputs(seed, 8);
      expect(await outcome(k!, inputs, "c"), exprToString(e)).toEqual(await outcome(k!, inputs, "interp"));
    }), { numRuns: 40, seed: 7 });
  });
});
