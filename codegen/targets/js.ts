/**
 * JavaScript over typed arrays with the interpreter's arithmetic: `Math.fround` for float32,
 * `|0`/`Math.imul` for int32, BigInt for 64-bit integers, truncating `/` on integers, floor `//`
 * and sign-of-divisor `%` through the runtime helpers `H` (src/run/arith.ts) passed in at run time.
 * The templates mirror src/run/arith.ts (codegen may not import src/run): results are bit-identical.
 */
import { assertNever, CodegenError } from "../../src/errors.js";
import { isFloat, isWideInt, type Dtype } from "../../src/ir/index.js";
import { Printer, type Ex, type ExDtype, type ExprSyntax, type StmtSyntax } from "../ast.js";
import type { LoweredKernel } from "../lower.js";
import type { GeneratedCode } from "../types.js";

const EXACT_IN_F32: ReadonlySet<Dtype> = new Set<Dtype>(["float16", "int8", "int16", "uint8", "uint16", "bool"]);

export function convertJs(code: string, from: Dtype, to: Dtype): string {
  if (from === to) return code;
  const big = isWideInt(from);
  const num = big ? `Number(${code})` : code;
  switch (to) {
    case "float64": return num;
    case "float32": return EXACT_IN_F32.has(from) ? code : `Math.fround(${num})`;
    case "float16": return `H.f16(${num})`;
    case "bool": return `((${code}) != 0 ? 1 : 0)`;
    case "int64": return big ? `BigInt.asIntN(64, ${code})` : isFloat(from) ? `H.toBig(${code}, true)` : `BigInt(${code})`;
    case "uint64": return big ? `BigInt.asUintN(64, ${code})` : isFloat(from) ? `H.toBig(${code}, false)` : `BigInt.asUintN(64, BigInt(${code}))`;
    default: return wrap(big ? `Number(BigInt.asIntN(32, ${code}))` : code, to);
  }
}

function wrap(code: string, to: Dtype): string {
  switch (to) {
    case "int32": return `((${code})|0)`;
    case "int16": return `((${code})<<16>>16)`;
    case "int8": return `((${code})<<24>>24)`;
    case "uint32": return `((${code})>>>0)`;
    case "uint16": return `((${code})&65535)`;
    case "uint8": return `((${code})&255)`;
    case "bool": return `((${code}) != 0 ? 1 : 0)`;
    default: return code;
  }
}

const round = (code: string, d: Dtype) => (d === "float32" ? `Math.fround(${code})` : d === "float16" ? `H.f16(${code})` : code);

function binary(op: string, a: string, b: string, d: Dtype, insn: string): string {
  if (isFloat(d)) {
    switch (op) {
      case "+": case "-": case "*": case "/": return round(`(${a} ${op} ${b})`, d);
      case "//": return round(`Math.floor(${round(`${a} / ${b}`, d)})`, d);
      case "%": return round(`H.fmod(${a}, ${b})`, d);
      case "**": return round(`Math.pow(${a}, ${b})`, d);
    }
  }
  if (isWideInt(d)) {
    const w = (x: string) => (d === "int64" ? `BigInt.asIntN(64, ${x})` : `BigInt.asUintN(64, ${x})`);
    switch (op) {
      case "+": case "-": case "*": return w(`(${a} ${op} ${b})`);
      case "/": return w(`H.bdiv(${a}, ${b}, ${insn})`);
      case "//": return w(`H.bfloordiv(${a}, ${b}, ${insn})`);
      case "%": return w(`H.bmod(${a}, ${b}, ${insn})`);
      case "**": return w(`H.bpow(${a}, ${b}, ${insn})`);
    }
  }
  const wide = d === "int32" || d === "uint32";
  switch (op) {
    case "+": case "-": return wrap(`${a} ${op} ${b}`, d);
    case "*": return wrap(wide ? `Math.imul(${a}, ${b})` : `${a} * ${b}`, d);
    case "/": return wrap(`H.idiv(${a}, ${b}, ${insn})`, d);
    case "//": return wrap(`H.ifloordiv(${a}, ${b}, ${insn})`, d);
    case "%": return wrap(`H.imod(${a}, ${b}, ${insn})`, d);
    case "**": return wrap(`H.ipow(${a}, ${b}, ${JSON.stringify(d)}, ${insn})`, d);
  }
  throw new CodegenError(`js target: no operator ${op} for ${d}`);
}

function literal(v: number, d: ExDtype): string {
  if (d !== "idx" && isWideInt(d)) return `${BigInt(Math.trunc(v))}n`;
  if (v === Infinity) return "Infinity";
  if (v === -Infinity) return "-Infinity";
  if (Number.isNaN(v)) return "NaN";
  const s = Object.is(v, -0) ? "-0" : String(v);
  return s.startsWith("-") ? `(${s})` : s;
}

const MATH: Readonly<Record<string, (a: readonly string[]) => string>> = {
  sqrt: (a) => `Math.sqrt(${a[0]})`, exp: (a) => `Math.exp(${a[0]})`, log: (a) => `Math.log(${a[0]})`,
  log10: (a) => `Math.log10(${a[0]})`, log2: (a) => `Math.log2(${a[0]})`, sin: (a) => `Math.sin(${a[0]})`,
  cos: (a) => `Math.cos(${a[0]})`, tan: (a) => `Math.tan(${a[0]})`, asin: (a) => `Math.asin(${a[0]})`,
  acos: (a) => `Math.acos(${a[0]})`, atan: (a) => `Math.atan(${a[0]})`, atan2: (a) => `Math.atan2(${a[0]}, ${a[1]})`,
  sinh: (a) => `Math.sinh(${a[0]})`, cosh: (a) => `Math.cosh(${a[0]})`, tanh: (a) => `Math.tanh(${a[0]})`,
  pow: (a) => `Math.pow(${a[0]}, ${a[1]})`, fabs: (a) => `Math.abs(${a[0]})`, floor: (a) => `Math.floor(${a[0]})`,
  ceil: (a) => `Math.ceil(${a[0]})`, rsqrt: (a) => `(1 / Math.sqrt(${a[0]}))`, erf: (a) => `H.erf(${a[0]})`,
  fmod: (a) => `(${a[0]} % ${a[1]})`, fma: (a) => `(${a[0]} * ${a[1]} + ${a[2]})`,
};

const JS_COMPARE: Readonly<Record<string, string>> = { "<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "===", "!=": "!==" };

function call(fn: string, args: readonly string[], t: Dtype): string {
  if (fn === "min" || fn === "max") return isFloat(t) ? `Math.${fn}(${args.join(", ")})` : args.reduce((acc, a) => `H.${fn}(${acc}, ${a})`);
  if (fn === "abs") {
    if (isFloat(t)) return `Math.abs(${args[0]})`;
    if (isWideInt(t)) return convertJs(`H.babs(${args[0]})`, "int64", t);
    return convertJs(`Math.abs(${args[0]})`, "float64", t);
  }
  const m = MATH[fn];
  if (!m) throw new CodegenError(`js target: unknown function ${fn}`);
  return round(m(args), t);
}

/** The JS rendering of a typed AST expression. */
function jsExpr(e: Ex, p: Printer): string {
  const x = (a: Ex) => jsExpr(a, p);
  switch (e.k) {
    case "var": return e.name;
    case "lit": return literal(e.value, e.dtype);
    case "hw": throw new CodegenError("the js target has no hardware axes");
    case "load": {
      const el = `${e.array}[${x(e.index)}]`;
      return e.dtype === "float16" ? `H.h2f(${el})` : e.dtype === "bool" ? `(${el} !== 0 ? 1 : 0)` : el;
    }
    case "cast": return convertJs(x(e.e), e.from, e.to);
    case "not": return `((${x(e.e)}) != 0 ? 0 : 1)`;
    case "neg": {
      const a = x(e.e);
      if (e.dtype === "idx" || isFloat(e.dtype)) return `(-${a})`;
      if (e.dtype === "int64") return `BigInt.asIntN(64, -${a})`;
      if (e.dtype === "uint64") return `BigInt.asUintN(64, -${a})`;
      return wrap(`-${a}`, e.dtype);
    }
    case "cond": return `((${x(e.c)}) != 0 ? ${x(e.t)} : ${x(e.f)})`;
    case "call": return call(e.fn, e.args.map(x), e.dtype);
    case "bin": {
      const a = x(e.l);
      const b = x(e.r);
      if (e.dtype === "idx") {
        switch (e.op) {
          case "//": return `Math.floor(${a} / ${b})`;
          case "min": case "max": return `Math.${e.op}(${a}, ${b})`;
          case "==": return `(${a} === ${b})`;
          case "&&": case "||": return `(${a} ${e.op} ${b})`;
          default: return `(${a} ${e.op} ${b})`;
        }
      }
      if (e.op in JS_COMPARE) return `(${a} ${JS_COMPARE[e.op]} ${b} ? 1 : 0)`;
      if (e.op === "&&" || e.op === "||") return `((${a}) != 0 ${e.op} (${b}) != 0 ? 1 : 0)`;
      if (e.op === "min" || e.op === "max") return call(e.op, [a, b], e.dtype);
      return binary(e.op, a, b, e.dtype, JSON.stringify(e.insn ?? "?"));
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

const stmts: StmtSyntax = {
  forHead: (v, lo, hi) => `for (let ${v} = ${lo}, ${v}_hi = ${hi}; ${v} <= ${v}_hi; ${v}++)`,
  decl: (s, p) => {
    if (s.size !== undefined) return `const ${s.name} = new ${ARRAYS[s.dtype as Dtype]}(${s.size});`;
    const zero = s.dtype !== "idx" && isWideInt(s.dtype) ? "0n" : "0";
    return `${s.isConst ? "const" : "let"} ${s.name} = ${s.init ? p.expr(s.init) : zero};`;
  },
  barrier: (comment) => `/* barrier: ${comment} */`,
  store: (target, value, d, isArray) => (isArray && d === "float16" ? `${target} = H.f2h(${value});` : `${target} = ${value};`),
};

/** JS source of each kernel: `function name(H, a, out, n) { … }` (H: the runtime helpers). */
export function renderJs(kernels: readonly LoweredKernel[]): GeneratedCode {
  const p = new Printer(syntax, stmts);
  const fns = kernels.map((lk) => {
    const head = `function ${lk.name}(H${lk.args.map((a) => `, ${a.name}`).join("")})`;
    return [head, ...p.stmt({ k: "block", body: [...lk.decls, ...lk.body] }, "")].join("\n");
  });
  return {
    target: "js",
    deviceCode: fns.join("\n\n") + "\n",
    kernels: kernels.map((lk) => ({ name: lk.name, globalSize: [], localSize: [], args: lk.args.map((a) => a.name) })),
  };
}
