/**
 * Law: for every random kernel of a few independent statements, each over its own iname split by
 * a random length 1..17 whose inner iname is tagged vec (a random element type, random operators
 * and operands, a private temporary per lane or none, an extent a multiple of the length or not),
 * the kernel generated for OpenCL gives the interpreter's results on PoCL; and each vec loop is
 * vector code exactly when its length is an OpenCL vector width (2, 3, 4, 8, 16), its extent a
 * multiple of it, its element type one with vector types (float, double, int, uint) and its body
 * lane-wise (no gather, no `%`), and otherwise a plain loop that says why. One PoCL compile per
 * case, so few cases (LOOM_OPENCL_VEC_RUNS).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { autoTestVsRef, generateCode, makeKernel, split, type Kernel } from "../../src/index.js";
import { availableNative } from "../run/native-helpers.js";

const RUNS = Number(process.env.LOOM_OPENCL_VEC_RUNS ?? 3);
const OPENCL = availableNative(["opencl"]).length > 0;
const WIDTHS = new Set([2, 3, 4, 8, 16]);

type D = "float32" | "float64" | "int32" | "uint32" | "int16";
const FLOAT_OPS = ["+", "-", "*", "min", "max"] as const;
const INT_OPS = ["+", "-", "*", "&", "|", "^", "<<", ">>", "min", "max"] as const;
/** Operands: the statement's arrays at the lane (x, z), a parameter, a literal, the index, the reversed array (a gather). */
const LEAVES = ["x", "z", "z", "s", "lit", "idx", "rev"] as const;

interface Stmt {
  readonly dtype: D;
  readonly lanes: number;
  /** Groups of the vec length in the extent, and what is left over (0: the extent is a multiple). */
  readonly groups: number;
  readonly rest: number;
  readonly terms: readonly { readonly op: string; readonly leaf: (typeof LEAVES)[number] }[];
  readonly mod: boolean;
  readonly temp: boolean;
}

const stmtArb: fc.Arbitrary<Stmt> = fc.record({
  dtype: fc.constantFrom<D>("float32", "float64", "int32", "uint32", "float32", "int16"),
  lanes: fc.integer({ min: 1, max: 17 }),
  groups: fc.integer({ min: 1, max: 3 }),
  rest: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 16 })),
  terms: fc.array(fc.record({ op: fc.constantFrom(...INT_OPS), leaf: fc.constantFrom(...LEAVES) }), { minLength: 1, maxLength: 3 }),
  mod: fc.boolean(),
  temp: fc.boolean(),
}).map((s) => ({ ...s, mod: s.mod && s.dtype !== "float32" && s.dtype !== "float64" && s.terms.length === 1 }));

/** Statement `n`'s instructions: `y{n}[i{n}] = x{n}[i{n}] op leaf op leaf …` (through a private temporary where drawn). */
function instructions(s: Stmt, n: number): string[] {
  const float = s.dtype === "float32" || s.dtype === "float64";
  const i = `i${n}`;
  const leaf = (l: Stmt["terms"][number]["leaf"]): string => {
    switch (l) {
      case "x": return `x${n}[${i}]`;
      case "z": return `z${n}[${i}]`;
      case "s": return `s${n}`;
      case "lit": return float ? "1.5" : "3";
      // The index as a value: uint32 with int32 would compute in int64, which has no vector here.
      case "idx": return s.dtype === "uint32" || s.dtype === "int16" ? `z${n}[${i}]` : i;
      case "rev": return `z${n}[m${n} - 1 - ${i}]`;
    }
  };
  let e = `x${n}[${i}]`;
  for (const t of s.terms) {
    const op = float && !(FLOAT_OPS as readonly string[]).includes(t.op) ? "+" : t.op;
    const r = leaf(t.leaf);
    if (op === "min" || op === "max") e = `${op}(${e}, ${r})`;
    else if (op === "<<" || op === ">>") e = `(${e}) ${op} 3`;
    else e = `(${e}) ${op} ${r}`;
  }
  if (s.mod) e = `(${e}) % 7`;
  if (!s.temp) return [`y${n}[${i}] = ${e}`];
  return [`<${s.dtype}> t${n} = ${e} {id=t${n}}`, `y${n}[${i}] = t${n} * 2 + x${n}[${i}] {dep=t${n}}`];
}

/** Whether statement `s`'s vec loop must be vector code. */
function vectorExpected(s: Stmt): boolean {
  const gather = s.terms.some((t) => t.leaf === "rev");
  return WIDTHS.has(s.lanes) && s.rest === 0 && s.dtype !== "int16" && !gather && !s.mod;
}

function kernelOf(stmts: readonly Stmt[]): { ref: Kernel; k: Kernel; params: Record<string, number> } {
  const domains = stmts.map((s, n) => `{[i${n}]: 0<=i${n}<m${n}}`);
  const args = stmts.flatMap((s, n) => [`x${n}, z${n}, y${n}: ${s.dtype}[m${n}]`, `s${n}: ${s.dtype}`, `m${n}: int32`]);
  const assumptions = stmts.flatMap((s, n) => (s.rest === 0 && s.lanes > 1 ? [`m${n} mod ${s.lanes} = 0`] : [])).join(" and ");
  const ref = makeKernel(domains, stmts.flatMap(instructions), args, { name: "vecs", ...(assumptions ? { assumptions } : {}) });
  const k = stmts.reduce((kk, s, n) => split(`i${n}`, s.lanes, { innerTag: "vec" })(kk), ref);
  const params: Record<string, number> = {};
  stmts.forEach((s, n) => {
    params[`m${n}`] = s.groups * s.lanes + (s.rest % s.lanes);
    params[`s${n}`] = s.dtype.startsWith("float") ? 0.75 : 5;
  });
  return { ref, k, params };
}

describe("vec loops on OpenCL: a random kernel's vec loops (lengths 1..17) are vector code exactly where lane-wise, with the interpreter's results", () => {
  it("which loops are vector code (generated code only, 40 cases)", () => {
    fc.assert(fc.property(fc.array(stmtArb, { minLength: 1, maxLength: 4 }), (stmts) => {
      const code = generateCode(kernelOf(stmts).k, "opencl").deviceCode;
      stmts.forEach((s, n) => {
        const plain = new RegExp(`/\\* vec i${n}_inner: a plain loop: `).test(code);
        if (vectorExpected(s)) {
          expect(plain, `statement ${n}: ${JSON.stringify(s)}\n${code}`).toBe(false);
          // (y0 is C's Bessel function: printed y0_0.)
          expect(code).toMatch(new RegExp(`vstore${s.lanes}\\(.*, 0, (y|t)${n}(_0)?( \\+|\\))`));
        } else {
          // A split by 1 (or an extent below the length with a remainder) may leave no loop at all.
          expect(plain || s.lanes === 1 || !code.includes(`i${n}_inner <=`), `statement ${n}: ${JSON.stringify(s)}\n${code}`).toBe(true);
        }
      });
    }), { numRuns: Number(process.env.LOOM_OPENCL_VEC_CODE_RUNS ?? 40) });
  });

  it.skipIf(!OPENCL)(`run on PoCL against the interpreter (${RUNS} kernels of 3 statements)`, async () => {
    await fc.assert(fc.asyncProperty(fc.array(stmtArb, { minLength: 3, maxLength: 3 }), async (stmts) => {
      const { ref, k, params } = kernelOf(stmts);
      const r = await autoTestVsRef(ref, k, { params, backend: "opencl", seed: 3 });
      expect(r.ok, `${r.mismatches.slice(0, 3).join("; ")}\n  statements ${JSON.stringify(stmts)}\n${generateCode(k, "opencl").deviceCode}`).toBe(true);
    }), { numRuns: RUNS });
  }, 60_000 * Math.max(1, RUNS));
});
