/**
 * OKL's operators follow C's integer promotions and usual arithmetic conversions
 * (src/okl/lower/c-conversions.ts), not the IR's numpy types: with `int a = -1, unsigned u = 2`, C
 * gives `a / u == 2147483647` and `a < u == 0`, where numpy's int64 gave 0 and 1 on every backend (a
 * silent wrong result interp = openmp cannot see). Law: over operands of the eight integer types
 * (values at their limits, 0, 1, -1, small ones), every binary operator, the compound assignments
 * (kernel statement and opaque block) and unary - and ~ give C's value, computed here with BigInt
 * from C's rules written out independently, on interp and openmp. Results are stored to unsigned
 * long, which keeps C's result type visible (int -1 and unsigned 4294967295 store differently).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseOkl } from "../../src/okl/parse-okl.js";
import type { Kernel } from "../../src/ir/index.js";
import { run } from "../../src/run/index.js";
import { realWorldBackends } from "./real-world-helpers.js";

type T = "int8" | "uint8" | "int16" | "uint16" | "int32" | "uint32" | "int64" | "uint64";
const TYPES: readonly T[] = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"];
const C_NAME: Record<T, string> = {
  int8: "signed char", uint8: "unsigned char", int16: "short", uint16: "unsigned short",
  int32: "int", uint32: "unsigned int", int64: "long", uint64: "unsigned long",
};
const bits = (t: T): number => Number(t.replace(/\D/g, ""));
const unsigned = (t: T): boolean => t.startsWith("u");
const ARRAY: Record<T, new (n: number) => ArrayLike<number | bigint> & { [i: number]: number | bigint }> = {
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
};

// ---- C's rules (C11 6.3.1.1, 6.3.1.8), written out on their own --------------------------------------
/** Integer promotion: every value of a type narrower than int fits int. */
const promote = (t: T): T => (bits(t) < 32 ? "int32" : t);
/** Usual arithmetic conversions (int 32 bits, long 64, as on the LP64 hosts OCCA runs on). */
function common(a: T, b: T): T {
  a = promote(a);
  b = promote(b);
  if (a === b) return a;
  if (unsigned(a) === unsigned(b)) return bits(a) >= bits(b) ? a : b;
  const [s, u] = unsigned(a) ? [b, a] : [a, b];
  if (bits(u) >= bits(s)) return u;
  return s; // a signed type wider than the unsigned one holds all its values
}
const wrap = (v: bigint, t: T): bigint => (unsigned(t) ? BigInt.asUintN(bits(t), v) : BigInt.asIntN(bits(t), v));
/** The value if C defines it (signed overflow is undefined: skipped), else undefined. */
const defined = (exact: bigint, t: T): bigint | undefined => (unsigned(t) ? wrap(exact, t) : wrap(exact, t) === exact ? exact : undefined);

const OPS = ["+", "-", "*", "/", "%", "<", "==", ">=", "&", "|", "^", ">>", "<<"] as const;
type Op = (typeof OPS)[number];
/** C's `x op y` for x of type p and y of type q, or undefined where C leaves it undefined. */
function cOp(op: Op, x: bigint, p: T, y: bigint, q: T): bigint | undefined {
  if (op === ">>" || op === "<<") {
    const t = promote(p);
    const a = wrap(x, t);
    if (y < 0n || y >= BigInt(bits(t))) return undefined;
    return op === ">>" ? a >> y : unsigned(t) ? wrap(a << y, t) : a < 0n ? undefined : defined(a << y, t);
  }
  const t = common(p, q);
  const a = wrap(x, t), b = wrap(y, t);
  switch (op) {
    case "+": return defined(a + b, t);
    case "-": return defined(a - b, t);
    case "*": return defined(a * b, t);
    case "/": return b === 0n ? undefined : defined(a / b, t); // BigInt's / and % truncate, as C's
    case "%": return b === 0n || defined(a / b, t) === undefined ? undefined : a % b;
    case "<": return a < b ? 1n : 0n;
    case "==": return a === b ? 1n : 0n;
    case ">=": return a >= b ? 1n : 0n;
    case "&": return wrap(a & b, t);
    case "|": return wrap(a | b, t);
    case "^": return wrap(a ^ b, t);
  }
}

// ---- the kernel: each pair of types with one operator (rotated by `turn`: 13 turns cover all),
// compound assignments and unary forms. One kernel per turn keeps the native compile small.
const N = 4;
type Want = (v: Record<string, bigint[]>, i: number) => bigint | undefined;
interface Built { readonly lines: string[]; readonly wants: Want[]; readonly src: string }
const COMPOUND = ["+", "-", "*", "/", "%", "&", "|", "^", ">>"] as const;
/** The right operand's array: divisors from d (never 0), shift counts from c (0..7). */
const rightOf = (op: string, q: T): string => (op === "/" || op === "%" ? `d_${q}` : op === "<<" || op === ">>" ? `c_${q}` : `a_${q}`);

function build(turn: number): Built {
  const lines: string[] = [];
  const wants: Want[] = [];
  const out = (expr: string, want: Want, pre = ""): void => {
    lines.push(`${pre}out[${wants.length} * n + i] = ${expr};`);
    wants.push(want);
  };
  TYPES.forEach((p, a) => TYPES.forEach((q, b) => {
    const op = OPS[(a * TYPES.length + b + turn) % OPS.length]!;
    const right = rightOf(op, q);
    out(`a_${p}[i] ${op} ${right}[i]`, (v, i) => cOp(op, v[`a_${p}`]![i]!, p, v[right]![i]!, q));
  }));
  // Compound assignments, as a kernel statement and inside an opaque block (a while loop):
  // x op= y is x = (type of x)(x op y).
  TYPES.forEach((p, a) => {
    for (const opaque of [false, true]) {
      const q = TYPES[(a * 3 + turn + (opaque ? 5 : 0)) % TYPES.length]!;
      const op = COMPOUND[(a + turn + (opaque ? 4 : 0)) % COMPOUND.length]!;
      const right = rightOf(op, q);
      const x = `x${wants.length}`;
      const update = `${x} ${op}= ${right}[i];`;
      const pre = `${C_NAME[p]} ${x} = a_${p}[i]; ${opaque ? `int k${x} = 0; while (k${x} < 1) { ${update} k${x}++; }` : update} `;
      out(x, (v, i) => {
        const r = cOp(op, v[`a_${p}`]![i]!, p, v[right]![i]!, q);
        return r === undefined ? undefined : wrap(r, p);
      }, pre);
    }
  });
  for (const p of TYPES) {
    out(`-a_${p}[i]`, (v, i) => defined(-wrap(v[`a_${p}`]![i]!, promote(p)), promote(p)));
    out(`~a_${p}[i]`, (v, i) => wrap(~v[`a_${p}`]![i]!, promote(p)));
  }
  // Suffixed and unsuffixed literals: `-1 < 1u` is 0 in C (-1 converts to UINT_MAX); 1u makes a uint.
  out(`(a_int32[i] < 1u)`, (v, i) => (BigInt.asUintN(32, v["a_int32"]![i]!) < 1n ? 1n : 0n));
  out(`a_int32[i] + 1u`, (v, i) => BigInt.asUintN(32, v["a_int32"]![i]! + 1n));
  out(`a_uint32[i] > -1`, () => 0n);
  out(`a_int8[i] * 2`, (v, i) => v["a_int8"]![i]! * 2n);
  const params = TYPES.flatMap((t) => [`const ${C_NAME[t]} *a_${t}`, `const ${C_NAME[t]} *d_${t}`, `const ${C_NAME[t]} *c_${t}`]);
  const src = `@kernel void conv(const int n, ${params.join(", ")}, unsigned long *out) {
  for (int e = 0; e < 1; ++e; @outer) {
    for (int i = 0; i < n; ++i; @inner) {
      ${lines.join("\n      ")}
    }
  }
}`;
  return { lines, wants, src };
}

/** Values of type t: its limits, 0, 1, -1 (converted), small ones and any. */
function values(t: T): fc.Arbitrary<bigint> {
  const lo = unsigned(t) ? 0n : -(1n << BigInt(bits(t) - 1));
  const hi = (unsigned(t) ? 1n << BigInt(bits(t)) : 1n << BigInt(bits(t) - 1)) - 1n;
  return fc.oneof(fc.constantFrom(lo, hi, 0n, 1n, wrap(-1n, t), 2n, lo + 1n, hi - 1n, wrap(-7n, t), 7n), fc.bigInt({ min: lo, max: hi }));
}
const row = (t: T, ok: (v: bigint) => boolean) => fc.array(values(t).filter(ok), { minLength: N, maxLength: N });
const inputs = fc.record(Object.fromEntries(TYPES.flatMap((t) => [
  [`a_${t}`, row(t, () => true)],
  // Divisors: never 0, and not -1 where C's division could overflow (INT_MIN / -1 traps on x86).
  [`d_${t}`, row(t, (v) => v !== 0n && !(v === -1n && bits(t) >= 32))],
  [`c_${t}`, fc.array(fc.bigInt({ min: 0n, max: 7n }), { minLength: N, maxLength: N })],
])) as Record<string, fc.Arbitrary<bigint[]>>);

const typeOf = (name: string): T => name.slice(2) as T;
function toArray(name: string, v: readonly bigint[]): ArrayLike<number | bigint> {
  const t = typeOf(name);
  const a = new ARRAY[t](v.length);
  v.forEach((x, i) => void (a[i] = bits(t) === 64 ? x : Number(x)));
  return a;
}

describe("OKL operators follow C's integer conversions", () => {
  it("law: every operator on every pair of integer types, compound assignments and unary - ~ give C's value on every backend", async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: OPS.length - 1 }), inputs, async (turn, v) => {
      const { lines, wants, src } = build(turn);
      const [k] = parseOkl(src) as unknown as [Kernel];
      const args: Record<string, unknown> = { n: N, out: new BigUint64Array(wants.length * N) };
      for (const [name, xs] of Object.entries(v)) args[name] = toArray(name, xs);
      for (const backend of realWorldBackends()) {
        const got = ((await run(k, args as never, { backend, checkBounds: false } as never)) as { out: BigUint64Array }).out;
        wants.forEach((want, j) => {
          for (let i = 0; i < N; i++) {
            const w = want(v, i);
            if (w === undefined) continue; // C leaves it undefined
            if (got[j * N + i] !== BigInt.asUintN(64, w)) {
              const operands = Object.entries(v).filter(([n]) => lines[j]!.includes(`${n}[`)).map(([n, x]) => `${n}=${x[i]}`).join(", ");
              expect(got[j * N + i], `${backend}: ${lines[j]} at ${operands}`).toBe(BigInt.asUintN(64, w));
            }
          }
        });
      }
    }), { numRuns: 2 });
  });

  it("a kernel whose operands all have one type is lowered without a cast", () => {
    const [same] = parseOkl(`@kernel void f(const int n, const int *a, const double *x, int *o, double *y) {
      for (int e = 0; e < 1; ++e; @outer) for (int i = 0; i < n; ++i; @inner) { o[i] = a[i] * 3 / (i + 1) - (a[i] < n); y[i] = 2.0 * x[i] + i; }
    }`) as unknown as [Kernel];
    expect(JSON.stringify(same.instructions)).not.toContain('"cast"');
  });
});
