/**
 * WGSL expressions from the typed AST (codegen/ast.ts) with the interpreter's meaning. WGSL is
 * strictly typed (no implicit conversion, `bool` apart from integers, shift counts `u32`) and
 * differs from C where the interpreter is defined: `x / 0` is `x` (the interpreter stops with an
 * error), `u32` has no negation, casts from float saturate (the interpreter wraps modulo 2^32),
 * `pow` of a negative base is undefined. Each such operation goes through a helper that gives the
 * interpreter's result; one that the interpreter refuses at run time (division by zero, a shift
 * count outside 0..31, a negative integer exponent) records a trap the runtime reports.
 */
import { assertNever, CodegenError } from "../../src/errors.js";
import type { Dtype } from "../../src/ir/index.js";
import type { BinOp, Ex, ExDtype, IntTrapSite } from "../ast.js";
import { intTrapMessage } from "./int-traps.js";
import { refuseMissingMath } from "./math-c99.js";


/** The WGSL types Loom's values have: int32 and index arithmetic `i32`, uint32 `u32`, float32 `f32`, bool `bool`. */
export type WType = "i32" | "u32" | "f32" | "bool";

/** What the wgsl target accepts, said in its refusals. */
export const WGSL_ACCEPTED = "int32, uint32, float32 (and bool for temporaries and conditions)";

const WTYPES: Readonly<Partial<Record<ExDtype, WType>>> = { idx: "i32", int32: "i32", uint32: "u32", float32: "f32", bool: "bool" };

/** Why a dtype has no WGSL type, for the refusal. */
const MISSING: Readonly<Partial<Record<Dtype, string>>> = {
  float64: "WGSL has no 64-bit floats", int64: "WGSL has no 64-bit integers", uint64: "WGSL has no 64-bit integers",
  float16: "f16 needs the shader-f16 extension, which Loom's webgpu backend does not ask for",
  int8: "WGSL has no 8-bit integers", uint8: "WGSL has no 8-bit integers", int16: "WGSL has no 16-bit integers", uint16: "WGSL has no 16-bit integers",
};

/** The WGSL type of `d`, or a CodegenError naming `what` and the accepted dtypes. */
export function wtypeOf(d: ExDtype, what: string): WType {
  const t = WTYPES[d];
  if (t) return t;
  throw new CodegenError(`the wgsl target cannot express ${what} of dtype ${d} (${MISSING[d as Dtype] ?? "no WGSL type"}); it accepts ${WGSL_ACCEPTED}`);
}

/** An operation the interpreter refuses at run time, found by the generated code: the runtime reports it (32-bit values only). */
export type WgslTrap = Omit<IntTrapSite, "width" | "unsigned">;

/** The interpreter's message for a trap, with the offending value the code recorded (the C family's, int-traps.ts). */
export function trapMessage(t: WgslTrap, value: number): string {
  return intTrapMessage(t, value);
}

/** Code of a WGSL type; `k`: a const-expression (WGSL folds those at compile time, and overflow there is an error). */
export interface Typed {
  readonly c: string;
  readonly t: WType;
  readonly k?: boolean;
}

/** What printing an expression needs from the kernel around it. */
export interface WgslScope {
  varType(name: string): WType;
  /** Arrays and scalars declared `atomic<…>`: read with `atomicLoad`. */
  readonly atomics: ReadonlySet<string>;
  /** Helper functions by name (their WGSL text), added as used. */
  readonly helpers: Map<string, string>;
  /** The number (from 1) of a trap site. */
  trap(t: WgslTrap): number;
}

/** The printer's names: reserved in WGSL (codegen/reserved-words.ts), so no user name is one of them. */
export const GROUP_ID = "loom_group";
export const LOCAL_ID = "loom_local";
export const ERR = "loom_err";
const XYZ = ["x", "y", "z"];

/** The shortest decimal that reads back as the same float32, as a WGSL literal. */
function f32Literal(v: number): string {
  if (Number.isNaN(v)) return "bitcast<f32>(0x7fc00000u)";
  if (v === Infinity) return "bitcast<f32>(0x7f800000u)";
  if (v === -Infinity) return "bitcast<f32>(0xff800000u)";
  let s = String(v);
  for (let p = 1; p <= 9; p++) {
    if (Math.fround(Number(v.toPrecision(p))) === Math.fround(v)) {
      s = String(Number(v.toPrecision(p)));
      break;
    }
  }
  if (Object.is(v, -0)) s = "-0.0";
  return `${s.includes("e") || s.includes(".") ? s : `${s}.0`}f`;
}

/** A literal of WGSL type `t`; negative ones parenthesized. */
export function literal(value: number, t: WType): Typed {
  const neg = (s: string) => (s.startsWith("-") ? `(${s})` : s);
  switch (t) {
    case "bool": return { c: value !== 0 ? "true" : "false", t, k: true };
    case "f32": return { c: neg(f32Literal(value)), t, k: true };
    case "u32": return { c: `${value >>> 0}u`, t, k: true };
    case "i32": return { c: value === -2147483648 ? "i32(-2147483648)" : neg(`${value | 0}i`), t, k: true };
    default: return assertNever(t, "WGSL type");
  }
}

const ZERO: Readonly<Record<WType, string>> = { i32: "0i", u32: "0u", f32: "0.0f", bool: "false" };

/** `x` as a condition. */
export function truth(x: Typed): string {
  return x.t === "bool" ? x.c : `(${x.c} != ${ZERO[x.t]})`;
}

/** Helper functions' WGSL text, by name; `ERR` is the trap buffer. */
const HELPERS: Readonly<Record<string, string>> = {
  loom_trap: `fn loom_trap(site: u32, value: i32) {\n  if (site != 0u) {\n    atomicStore(&${ERR}[1], bitcast<u32>(value));\n    atomicMax(&${ERR}[0], site);\n  }\n}`,
  loom_div_i32: "fn loom_div_i32(a: i32, b: i32, site: u32) -> i32 {\n  if (b == 0i) { loom_trap(site, 0i); return 0i; }\n  return a / b;\n}",
  loom_div_u32: "fn loom_div_u32(a: u32, b: u32, site: u32) -> u32 {\n  if (b == 0u) { loom_trap(site, 0i); return 0u; }\n  return a / b;\n}",
  loom_fdiv_i32: "fn loom_fdiv_i32(a: i32, b: i32, site: u32) -> i32 {\n  if (b == 0i) { loom_trap(site, 0i); return 0i; }\n  return loom_fdiv_c_i32(a, b);\n}",
  loom_mod_i32: "fn loom_mod_i32(a: i32, b: i32, site: u32) -> i32 {\n  if (b == 0i) { loom_trap(site, 0i); return 0i; }\n  return loom_mod_c_i32(a, b);\n}",
  // Without branches: index arithmetic calls these many times in one expression, and SwiftShader's
  // compile time grows steeply with the branches of inlined calls (minutes for a dozen calls).
  loom_fdiv_c_i32: "fn loom_fdiv_c_i32(a: i32, b: i32) -> i32 {\n  let q = a / b;\n  return select(q, q - 1i, (a % b != 0i) & ((a < 0i) != (b < 0i)));\n}",
  loom_mod_c_i32: "fn loom_mod_c_i32(a: i32, b: i32) -> i32 {\n  let r = a % b;\n  return select(r, r + b, (r != 0i) & ((r < 0i) != (b < 0i)));\n}",
  loom_mod_u32: "fn loom_mod_u32(a: u32, b: u32, site: u32) -> u32 {\n  if (b == 0u) { loom_trap(site, 0i); return 0u; }\n  return a % b;\n}",
  loom_mod_f32: "fn loom_mod_f32(a: f32, b: f32) -> f32 {\n  let r = a % b;\n  if (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) { return r + b; }\n  return r;\n}",
  loom_shc_i32: "fn loom_shc_i32(b: i32, site: u32) -> u32 {\n  if (b < 0i || b > 31i) { loom_trap(site, b); return 0u; }\n  return u32(b);\n}",
  loom_shc_u32: "fn loom_shc_u32(b: u32, site: u32) -> u32 {\n  if (b > 31u) { loom_trap(site, bitcast<i32>(b)); return 0u; }\n  return b;\n}",
  loom_pow_i32: "fn loom_pow_i32(a: i32, b: i32, site: u32) -> i32 {\n  if (b < 0i) { loom_trap(site, b); return 0i; }\n  var r = 1i;\n  var x = a;\n  for (var e = b; e > 0i; e = e >> 1u) { if ((e & 1i) != 0i) { r = r * x; } x = x * x; }\n  return r;\n}",
  loom_pow_u32: "fn loom_pow_u32(a: u32, b: u32) -> u32 {\n  var r = 1u;\n  var x = a;\n  for (var e = b; e > 0u; e = e >> 1u) { if ((e & 1u) != 0u) { r = r * x; } x = x * x; }\n  return r;\n}",
  // pow(x, y) is exp2(y * log2(x)) in WGSL: undefined for x < 0, where C's pow has integral y.
  loom_pow_f32: "fn loom_pow_f32(a: f32, b: f32) -> f32 {\n  if (a >= 0.0f || b != trunc(b)) { return pow(a, b); }\n  let r = pow(-a, b);\n  if (fract(b * 0.5f) != 0.0f) { return -r; }\n  return r;\n}",
  // C's cast as the interpreter does it (JavaScript's ToUint32): truncate, wrap modulo 2^32, not finite is 0.
  loom_f2u: "fn loom_f2u(x: f32) -> u32 {\n  if ((bitcast<u32>(x) & 0x7f800000u) == 0x7f800000u) { return 0u; }\n  let t = trunc(x);\n  if (abs(t) < 2147483648.0f) { return bitcast<u32>(i32(t)); }\n  return u32(t - 4294967296.0f * floor(t / 4294967296.0f));\n}",
  // erf to about 1e-7 (Abramowitz and Stegun 7.1.26 beyond 0.5, its Taylor series below).
  loom_erf: "fn loom_erf(x: f32) -> f32 {\n  let a = abs(x);\n  if (a < 0.5f) {\n    let a2 = a * a;\n    return x * 1.1283791671f * (1.0f - a2 * (0.3333333333f - a2 * (0.1f - a2 * (0.0238095238f - a2 * 0.0046296296f))));\n  }\n  let t = 1.0f / (1.0f + 0.3275911f * a);\n  let y = 1.0f - t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f)))) * exp(-a * a);\n  return sign(x) * y;\n}",
};

/** The WGSL printer of typed expressions for one kernel. */
export class WgslExprPrinter {
  constructor(private readonly s: WgslScope) {}

  private helper(name: string): string {
    const text = HELPERS[name];
    if (!text) throw new CodegenError(`internal: the wgsl target has no helper ${name}`);
    this.s.helpers.set(name, text);
    // The helpers a helper calls.
    for (const [, called] of text.matchAll(/\b(loom_\w+)\(/g)) if (called !== name && !this.s.helpers.has(called!)) this.helper(called!);
    return name;
  }

  /** A trap site as a `u32` argument; under `guard`, only where the guard holds (a branch of a select). */
  private site(insn: string | undefined, what: WgslTrap["what"], guard: string | undefined): string {
    const n = `${this.s.trap({ insn: insn ?? "?", what })}u`;
    return guard ? `select(0u, ${n}, ${guard})` : n;
  }

  /** `e` as WGSL; `guard`: the condition under which a select's branch is the one taken. */
  ex(e: Ex, guard?: string): Typed {
    switch (e.k) {
      case "var": {
        const t = this.s.varType(e.name);
        return { c: this.s.atomics.has(e.name) ? atomicRead(e.name, t) : e.name, t };
      }
      case "lit": {
        const t = wtypeOf(e.dtype, "a literal");
        // WGSL has no infinite or NaN constants: their bits, made a run-time value.
        if (t === "f32" && !Number.isFinite(e.value)) return { c: literal(e.value, t).c.replace(/\((0x[0-9a-f]+u)\)/, (_, bits: string) => `(${this.runtime({ c: bits, t: "u32", k: true }).c})`), t };
        return literal(e.value, t);
      }
      case "hw": return { c: `i32(${e.tag === "g" ? GROUP_ID : LOCAL_ID}.${XYZ[e.axis]})`, t: "i32" };
      case "load": {
        const el = `${e.array}[${this.index(e.index, guard).replace(/^\((.*)\)$/s, (m, inner: string) => (balanced(inner) ? inner : m))}]`;
        const t = wtypeOf(e.dtype, `array "${e.array}"`);
        return { c: this.s.atomics.has(e.array) ? atomicRead(el, t) : el, t };
      }
      case "cast": return this.convert(this.ex(e.e, guard), wtypeOf(e.to, "a conversion"));
      case "neg": {
        const x = this.runtime(this.ex(e.e, guard));
        // -b of a bool is b, as in the interpreter (-1 converted to bool is true); WGSL has no `-` on bool.
        if (x.t === "bool") return x;
        return { c: x.t === "u32" ? `(0u - ${x.c})` : `(-${x.c})`, t: x.t };
      }
      case "bitnot": {
        const x = this.runtime(this.ex(e.e, guard));
        return { c: `(~${x.c})`, t: x.t };
      }
      case "not": return { c: `(!${truth(this.ex(e.e, guard))})`, t: "bool" };
      case "cond": {
        const c = truth(this.ex(e.c, guard));
        const both = (g: string) => (guard ? `(${guard} && ${g})` : g);
        const t = this.ex(e.t, both(c));
        const f = this.convert(this.ex(e.f, both(`(!${c})`)), t.t);
        return { c: `select(${f.c}, ${t.c}, ${c})`, t: t.t };
      }
      case "call": return this.call(e.fn, e.args.map((a) => this.ex(a, guard)), wtypeOf(e.dtype, `the result of ${e.fn}`));
      case "bin": return this.bin(e, guard);
      default: return assertNever(e, "AST expression");
    }
  }

  /** An array index: an `i32` or `u32`. */
  index(e: Ex, guard?: string): string {
    const x = this.ex(e, guard);
    return x.t === "i32" || x.t === "u32" ? x.c : this.convert(x, "i32").c;
  }

  /**
   * `x`, no longer a const-expression: WGSL evaluates those while compiling and refuses the
   * program where one overflows or divides by zero; the interpreter wraps or stops at run time.
   */
  private runtime(x: Typed): Typed {
    if (!x.k || x.t === "bool") return x;
    const name = `loom_rt_${x.t}`;
    this.s.helpers.set(name, `fn ${name}(x: ${x.t}) -> ${x.t} {\n  return x;\n}`);
    return { c: `${name}(${x.c})`, t: x.t };
  }

  /** `x` converted to `to` as a C cast does, the interpreter's way. */
  convert(x: Typed, to: WType): Typed {
    if (x.t === to) return x;
    if (to === "bool") return { c: truth(x), t: to };
    if (x.t === "bool") return { c: `${to}(${x.c})`, t: to };
    if (to === "f32") return { c: `f32(${x.c})`, t: to };
    if (x.t === "f32") {
      const u = `${this.helper("loom_f2u")}(${x.c})`;
      return { c: to === "u32" ? u : `bitcast<i32>(${u})`, t: to };
    }
    // i32 <-> u32: the same bits.
    return { c: `bitcast<${to}>(${x.c})`, t: to };
  }

  private call(fn: string, args: readonly Typed[], t: WType): Typed {
    const a = args.map((x) => this.convert(x, t));
    // One operand made a run-time value keeps WGSL from evaluating the call while compiling.
    if (a.length > 0 && a.every((x) => x.k)) a[0] = this.runtime(a[0]!);
    const list = a.map((x) => x.c).join(", ");
    const float = (name: string): Typed => {
      if (t !== "f32") throw new CodegenError(`the wgsl target has ${fn} of float32 only, not of ${t}`);
      return { c: `${name}(${list})`, t };
    };
    // Of bools (0 or 1), as the interpreter computes them: min is and, max is or, abs the value.
    if (t === "bool" && (fn === "min" || fn === "max" || fn === "abs")) return fn === "abs" ? a[0]! : { c: `(${a.map((x) => x.c).join(fn === "min" ? " & " : " | ")})`, t };
    refuseMissingMath("wgsl", fn);
    switch (fn) {
      case "min": case "max": case "abs": return { c: `${fn}(${list})`, t };
      case "fabs": return float("abs");
      case "rsqrt": return float("inverseSqrt");
      case "pow": return float(this.helper("loom_pow_f32"));
      case "erf": return float(this.helper("loom_erf"));
      case "log10": return { c: `(log2(${list}) * 0.30102999566f)`, t };
      case "fmod": return { c: `(${a[0]!.c} % ${a[1]!.c})`, t };
      case "sqrt": case "exp": case "log": case "log2": case "sin": case "cos": case "tan": case "asin": case "acos": case "atan":
      case "atan2": case "sinh": case "cosh": case "tanh": case "floor": case "ceil": case "fma": case "exp2": case "trunc":
        return float(fn);
      default: throw new CodegenError(`the wgsl target has no function ${fn}`);
    }
  }

  private bin(e: Ex & { k: "bin" }, guard: string | undefined): Typed {
    if (e.op === "&&" || e.op === "||") {
      const l = truth(this.ex(e.l, guard));
      const r = truth(this.ex(e.r, guard));
      // WGSL's `&` and `|` on bools evaluate both sides without a branch: where the right side
      // cannot trap, the same value, and SwiftShader compiles a kernel of many guards in seconds
      // rather than minutes.
      const op = TRAPPING.test(r) ? e.op : e.op === "&&" ? "&" : "|";
      return { c: `(${l} ${op} ${r})`, t: "bool" };
    }
    // Arithmetic in bool, as the interpreter does it: on 0 and 1, the result made 0 or 1 again.
    if (wtypeOf(e.dtype, `the operands of "${e.op}"`) === "bool") {
      const x = this.bin({ ...e, dtype: "int32" }, guard);
      return x.t === "bool" ? x : { c: truth(x), t: "bool" };
    }
    const t = wtypeOf(e.dtype, `the operands of "${e.op}"`);
    let l = this.convert(this.ex(e.l, guard), t);
    const r0 = this.ex(e.r, guard);
    if (e.op === "<<" || e.op === ">>") return this.shift(e, l, r0, guard);
    let r = this.convert(r0, t);
    if (l.k && r.k) l = this.runtime(l);
    if (COMPARE.has(e.op)) return { c: `(${l.c} ${e.op} ${r.c})`, t: "bool" };
    const literalDivisor = r.k && Number(r.c.replace(/[iu()]/g, "")) !== 0;
    // By 1 (a chunk or split of size 1): nothing to compute.
    if (r.k && /^1[iu]$/.test(r.c) && (e.op === "/" || e.op === "//")) return l;
    if (r.k && /^1[iu]$/.test(r.c) && e.op === "%") return literal(0, t);
    // A literal divisor other than 0 cannot trap: the helper without a trap site.
    const trapped = (name: string, what: WgslTrap["what"]) => (literalDivisor
      ? { c: `${this.helper(name.replace(/_(i32|u32)$/, "_c_$1"))}(${l.c}, ${r.c})`, t }
      : { c: `${this.helper(name)}(${l.c}, ${r.c}, ${this.site(e.insn, what, guard)})`, t });
    switch (e.op) {
      case "+": case "-": case "*": case "&": case "|": case "^": return { c: `(${l.c} ${e.op} ${r.c})`, t };
      case "min": case "max": return { c: `${e.op}(${l.c}, ${r.c})`, t };
      case "/":
        if (t === "f32" || literalDivisor) return { c: `(${l.c} / ${r.c})`, t };
        return trapped(`loom_div_${t}`, "division");
      case "//":
        if (t === "f32") return { c: `floor(${l.c} / ${r.c})`, t };
        if (t === "u32" || e.nonneg) return literalDivisor ? { c: `(${l.c} / ${r.c})`, t } : trapped(`loom_div_${t}`, "division");
        return trapped("loom_fdiv_i32", "division");
      case "%":
        if (t === "f32") return { c: `${this.helper("loom_mod_f32")}(${l.c}, ${r.c})`, t };
        if (t === "u32" && literalDivisor) return { c: `(${l.c} % ${r.c})`, t };
        return trapped(`loom_mod_${t}`, "modulo");
      case "**":
        if (t === "f32") return { c: `${this.helper("loom_pow_f32")}(${l.c}, ${r.c})`, t };
        if (t === "u32") return { c: `${this.helper("loom_pow_u32")}(${l.c}, ${r.c})`, t };
        return { c: `${this.helper("loom_pow_i32")}(${l.c}, ${r.c}, ${this.site(e.insn, "power", guard)})`, t };
      default: throw new CodegenError(`internal: the wgsl target has no operator "${e.op}"`);
    }
  }

  /** `l << r`, `l >> r`: WGSL takes a `u32` count below 32 (arithmetic `>>` on `i32`); other counts trap, as in the interpreter. */
  private shift(e: Ex & { k: "bin" }, l0: Typed, r: Typed, guard: string | undefined): Typed {
    const l = this.runtime(l0);
    if (l.t !== "i32" && l.t !== "u32") throw new CodegenError(`the wgsl target shifts int32 and uint32 values, not ${l.t}`);
    const lit = /^\(?(-?[0-9]+)[iu]\)?$/.exec(r.c);
    let count: string;
    if (lit && Number(lit[1]) >= 0 && Number(lit[1]) < 32) count = `${lit[1]}u`;
    else {
      const c = r.t === "u32" ? r : this.convert(r, "i32");
      count = `${this.helper(`loom_shc_${c.t}`)}(${c.c}, ${this.site(e.insn, "shift", guard)})`;
    }
    return { c: `(${l.c} ${e.op} ${count})`, t: l.t };
  }
}

/** A read of an atomic cell (a float32 is kept as its bits in an `atomic<u32>`). */
function atomicRead(cell: string, t: WType): string {
  return t === "f32" ? `bitcast<f32>(atomicLoad(&${cell}))` : `atomicLoad(&${cell})`;
}

/** Whether the parentheses of `code` pair up (so that `(code)` may lose its outer pair). */
function balanced(code: string): boolean {
  let depth = 0;
  for (const ch of code) {
    if (ch === "(") depth++;
    else if (ch === ")" && --depth < 0) return false;
  }
  return depth === 0;
}

/** A call of a helper that may trap (a division, modulo, shift count or power the interpreter refuses). */
const TRAPPING = /\bloom_(div|fdiv|mod|shc|pow)_[iu]32\(/;

const COMPARE: ReadonlySet<BinOp> = new Set<BinOp>(["<", "<=", ">", ">=", "==", "!="]);
