/**
 * JavaScript over typed arrays with the interpreter's arithmetic: `Math.fround` for float32,
 * `|0`/`Math.imul` for int32, BigInt for 64-bit integers, truncating `/` on integers, floor `//`
 * and sign-of-divisor `%` through the runtime helpers `H` (src/run/arith-helpers.ts) passed in at run time.
 * The templates are codegen/js-arith-code.ts, which the interpreter uses too: results are bit-identical.
 */
import { assertNever, CodegenError } from "../../src/errors.js";
import { isWideInt, type ArithOp, type Dtype } from "../../src/ir/index.js";
import { type Ex, type ExDtype } from "../ast.js";
import { Printer, type ExprSyntax, type StmtSyntax } from "../printer.js";
import { binaryCode, bitNotCode, convertCode, literalCode, mathCallCode, negCode } from "../js-arith-code.js";
import type { LoweredKernel, LowerOptions } from "../lower.js";
import { NameAllocator } from "../names.js";
import type { GeneratedCode } from "../types.js";
import { printedKernels } from "./rename.js";

/** The C-cast conversion template shared with the interpreter. */
export const convertJs = convertCode;

/** What the js target asks of the lowering: no hardware axes (the CPU lowering made them loops), plain atomics (one thread). */
export const JS_LOWER_OPTIONS: LowerOptions = { hwAxes: false, atomics: "plain" };

/**
 * The checked mode's per-axis check, a call the js printer alone knows: its name carries the array
 * (the user's name), the axis and the instruction as JSON, its arguments are the index and the extent.
 * `a[i, j]` with `j` past its row is caught here even where the flat index stays inside the storage.
 */
const AXIS_CHECK = "H.ix ";
export const JS_CHECKED_LOWER_OPTIONS: LowerOptions = {
  ...JS_LOWER_OPTIONS,
  checkAxis: (index, extent, array, axis, insn) => ({ k: "call", fn: AXIS_CHECK + JSON.stringify([insn, array, axis]), args: [index, extent], dtype: "int32" }),
};

/** `H.ix(index, extent, insn, array, axis)`, which throws an ExecutionError naming them where the index is outside `0..extent-1`. */
function axisCheck(fn: string, args: readonly string[]): string {
  const [insn, array, axis] = JSON.parse(fn.slice(AXIS_CHECK.length)) as [string, string, number];
  return `H.ix(${args[0]}, ${args[1]}, ${JSON.stringify(insn)}, ${JSON.stringify(array)}, ${axis})`;
}

/** A literal; index arithmetic ("idx") is plain JS numbers. Negative literals are parenthesized. */
function literal(v: number, d: ExDtype): string {
  const s = literalCode(v, d === "idx" ? "float64" : d);
  return s.startsWith("-") && s !== "-Infinity" ? `(${s})` : s;
}


const JS_COMPARE: Readonly<Record<string, string>> = { "<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "===", "!=": "!==" };

function call(fn: string, args: readonly string[], t: Dtype): string {
  const code = mathCallCode(fn, args, t);
  if (code === undefined) throw new CodegenError(`js target: unknown function ${fn}`);
  return code;
}

/** `array[index]` with the index checked against the array's length as it runs (`H.at`). */
const checkedElement = (array: string, index: string) => `${array}[H.at(${array}, ${index}, ${JSON.stringify(array)})]`;

/**
 * The JS rendering of a typed AST expression. `checked`: every array element's index goes through
 * `H.at`, which throws an ExecutionError outside the array (a read or write the runtime could not
 * prove in bounds before the run; a typed array would give undefined or drop the write silently).
 */
function jsExpr(e: Ex, p: Printer, checked = false): string {
  const x = (a: Ex) => jsExpr(a, p, checked);
  switch (e.k) {
    case "var": return e.name;
    case "lit": return literal(e.value, e.dtype);
    case "hw": throw new CodegenError("the js target has no hardware axes");
    case "load": {
      const el = checked ? checkedElement(e.array, x(e.index)) : `${e.array}[${x(e.index)}]`;
      return e.dtype === "float16" ? `H.h2f(${el})` : e.dtype === "bool" ? `(${el} !== 0 ? 1 : 0)` : el;
    }
    case "cast": return convertJs(x(e.e), e.from, e.to);
    case "not": return `((${x(e.e)}) != 0 ? 0 : 1)`;
    case "neg": {
      const a = x(e.e);
      if (e.dtype !== "idx") return negCode(a, e.dtype);
      return a.startsWith("-") ? `(-(${a}))` : `(-${a})`;
    }
    case "bitnot": return bitNotCode(x(e.e), e.dtype);
    case "cond": return `((${x(e.c)}) != 0 ? ${x(e.t)} : ${x(e.f)})`;
    case "call": return e.fn.startsWith(AXIS_CHECK) ? axisCheck(e.fn, e.args.map(x)) : call(e.fn, e.args.map(x), e.dtype);
    case "bin": {
      const a = x(e.l);
      const b = x(e.r);
      if (e.dtype === "idx") {
        switch (e.op) {
          case "//": return `Math.floor(${a} / ${b})`;
          case "%": return `H.imod(${a}, ${b}, "index")`;
          case "min": case "max": return `Math.${e.op}(${a}, ${b})`;
          case "==": return `(${a} === ${b})`;
          case "&&": case "||": return `(${a} ${e.op} ${b})`;
          default: return `(${a} ${e.op} ${b})`;
        }
      }
      // A numerator proved in [0, INT32_MAX] over a positive constant (codegen/lower/divisions.ts):
      // no helper call, no trap site; the result is in range, so no wrap either.
      if (e.nonneg && e.op === "//") return `Math.floor(${a} / ${b})`;
      if (e.nonneg && e.op === "%") return `(${a} % ${b})`;
      if (e.op in JS_COMPARE) return `(${a} ${JS_COMPARE[e.op]} ${b} ? 1 : 0)`;
      if (e.op === "&&" || e.op === "||") return `((${a}) != 0 ${e.op} (${b}) != 0 ? 1 : 0)`;
      if (e.op === "min" || e.op === "max") return call(e.op, [a, b], e.dtype);
      return binaryCode(e.op as ArithOp, a, b, e.dtype, JSON.stringify(e.insn ?? "?"));
    }
    default: return assertNever(e, "AST expression");
  }
}

const ARRAYS: Readonly<Record<Dtype, string>> = {
  float16: "Uint16Array", float32: "Float32Array", float64: "Float64Array", int8: "Int8Array", int16: "Int16Array",
  int32: "Int32Array", int64: "BigInt64Array", uint8: "Uint8Array", uint16: "Uint16Array", uint32: "Uint32Array",
  uint64: "BigUint64Array", bool: "Uint8Array",
};

const syntax: ExprSyntax = {
  expr: jsExpr,
  typeName: (t) => t,
  lit: literal,
  hw: () => {
    throw new CodegenError("the js target has no hardware axes");
  },
  call: (fn, t, args) => call(fn, args, t),
  floorDiv: (a, b) => `Math.floor(${a} / ${b})`,
  mod: (a, b) => `H.imod(${a}, ${b}, "?")`,
  cast: (to, code) => code,
};

/** Statements; a loop's upper bound is kept in a local from `names` (a user's `i_hi` is never shadowed). */
const stmts = (names: NameAllocator): StmtSyntax => ({
  forHead: (v, lo, hi) => {
    const h = names.derived(`${v}_hi`);
    return `for (let ${v} = ${lo}, ${h} = ${hi}; ${v} <= ${h}; ${v}++)`;
  },
  decl: (s, p) => {
    if (s.size !== undefined) return `const ${s.name} = new ${ARRAYS[s.dtype as Dtype]}(${s.size});`;
    const zero = s.dtype !== "idx" && isWideInt(s.dtype) ? "0n" : "0";
    return `${s.isConst ? "const" : "let"} ${s.name} = ${s.init ? p.expr(s.init) : zero};`;
  },
  barrier: (comment) => `/* barrier: ${comment} */`,
  store: (target, value, d, isArray) => (isArray && d === "float16" ? `${target} = H.f2h(${value});` : `${target} = ${value};`),
});

/**
 * JS source of each kernel: `function name(H, a, out, n) { … }` (H: the runtime helpers), every
 * identifier printed through `names`; the launch information keeps the user's argument names.
 */
export function renderJs(kernels: readonly LoweredKernel[], names = new NameAllocator("js"), opts: { readonly checkedAccess?: boolean } = {}): GeneratedCode {
  const printed = printedKernels(kernels, names);
  const p = new Printer(opts.checkedAccess ? { ...syntax, expr: (e, pr) => jsExpr(e, pr, true), element: checkedElement } : syntax, stmts(names));
  const fns = printed.map((lk) => {
    const head = `function ${lk.name}(H${lk.args.map((a) => `, ${a.name}`).join("")})`;
    return [head, ...p.stmt({ k: "block", body: [...lk.decls, ...lk.body] }, "")].join("\n");
  });
  return {
    target: "js",
    deviceCode: fns.join("\n\n") + "\n",
    kernels: kernels.map((lk, n) => ({ name: printed[n]!.name, globalSize: [], localSize: [], args: lk.args.map((a) => a.name) })),
  };
}
