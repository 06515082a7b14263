/**
 * The printer of the C-like AST (codegen/ast.ts): one `Printer` per dialect, given how the dialect
 * spells expressions (`ExprSyntax`) and statements (`StmtSyntax`); C's precedence and conversions
 * are written once here, as are the casts that make C compute what the interpreter computes.
 */
import { assertNever } from "../src/errors.js";
import type { Dtype } from "../src/ir/index.js";
import type { AtomicStore, BarrierMemory, Ex, ExDtype, IntTrapSite, Stmt } from "./ast.js";

// ---- printing -----------------------------------------------------------------------------

/** How a dialect spells what differs between targets; the printer does the rest. */
export interface ExprSyntax {
  /** The whole expression (JS replaces the C rendering entirely); undefined: C-style. */
  expr?(e: Ex, p: Printer): string;
  /** An array element as an assignment's target, from its printed index; undefined: `array[index]`. */
  element?(array: string, index: string): string;
  typeName(d: ExDtype): string;
  lit(value: number, d: ExDtype): string;
  hw(tag: "g" | "l", axis: number): string;
  /**
   * A math function call in dtype `d` (`sqrtf(x)` vs `sqrt(x)`), also int/float min and max;
   * `trap`: an integer `pow` whose exponent may be negative, checked at that site.
   */
  call(fn: string, d: Dtype, args: readonly string[], p: Printer, trap?: IntTrapSite): string;
  /** Integer floor division / modulo helpers (loopy's semantics), recorded as used. */
  /** `trap`: the divisor may be 0 or -1 (checked helpers: a division by 0 recorded at that site). */
  floorDiv(a: string, b: string, d: ExDtype, p: Printer, trap?: IntTrapSite): string;
  mod(a: string, b: string, d: ExDtype, p: Printer, trap?: IntTrapSite): string;
  /**
   * Integer (truncating) division by a divisor that may be 0 or -1 (C's `/` traps on x86 or is
   * undefined there); undefined: plain `/`.
   */
  div?(a: string, b: string, d: ExDtype, p: Printer, trap?: IntTrapSite): string;
  /**
   * A shift count `count` (of dtype `countDtype`) that may leave 0..width-1, checked and recorded
   * at `trap` (C leaves such shifts undefined); undefined: the count as it is.
   */
  shiftCount?(count: string, countDtype: ExDtype, trap: IntTrapSite, p: Printer): string;
  /**
   * The unsigned type in which signed data arithmetic of dtype `d` is computed so that it wraps
   * as the interpreter's does (C leaves signed overflow undefined, and gcc and clang fold
   * `x + 1 > x` to true); undefined: plain signed arithmetic.
   */
  unsignedOf?(d: Dtype): Dtype;
  cast(to: Dtype, code: string): string;
  /** `target = target op value` done atomically on a cell of dtype `d` (`atomicOr(&a[i], v)`). */
  atomic?(a: AtomicStore, target: string, value: string, d: Dtype, p: Printer): string;
  /** Around `for` loops (see `LoopTrapHook`); undefined: nothing. */
  readonly loopTraps?: LoopTrapHook;
}

/**
 * Around the printing of a `for` loop (c and openmp: the traps of an innermost loop accumulate in
 * local keys and are recorded after it, codegen/targets/int-trap-loops.ts): `enter` before its body,
 * `leave` after, with the lines to print before and after the loop and its pragmas' new text
 * (the loop is then put in a block of its own); undefined: the loop as it is.
 */
export interface LoopTrapHook {
  enter(s: Stmt & { k: "for" }): object;
  leave(token: object): { readonly before: readonly string[]; readonly pragmas: (pragma: string) => string; readonly after: readonly string[] } | undefined;
}

export interface StmtSyntax {
  forHead(v: string, lo: string, hi: string): string;
  decl(s: Stmt & { k: "decl" }, p: Printer): string;
  /** A work-group barrier ordering `memory` (CUDA's `__syncthreads()` orders both). */
  barrier(comment: string, memory: BarrierMemory): string;
  /** `target = value;` (JS stores float16 as bits). */
  store?(target: string, value: string, d: Dtype, isArray: boolean): string;
}

/** Precedence of C (and JS) operators: higher binds tighter. */
const PREC: Readonly<Record<string, number>> = {
  "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "<<": 8, ">>": 8, "==": 6, "!=": 6, "<": 7, "<=": 7, ">": 7, ">=": 7, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
};
const UNARY = 11;
/** `c ? x : y`, which binds looser than every infix operator. */
const COND = 0.5;
const ATOM = 13;
/**
 * 8- and 16-bit integers: C computes `-x`, `~x`, `x << n`, `x + y`, `x - y`, `x * y` and `x / y`
 * on them in int, so the result is cast back to the type (its wraparound, as the
 * interpreter computes it: `(short) (x + x) > x`, where `x + x > x` would compare ints; `-x` of
 * int8 -128 is -128, not 128).
 */
export const NARROW: ReadonlySet<string> = new Set(["int8", "int16", "uint8", "uint16"]);
/** Operators whose result C computes in int for narrow operands, and may leave the type (`-128 / -1`). */
const NARROW_WRAPS: ReadonlySet<string> = new Set(["+", "-", "*", "/"]);
const UNSIGNED: ReadonlySet<string> = new Set(["uint8", "uint16", "uint32", "uint64", "bool"]);
/** Signed data (not index) types whose `+ - *` and negation C leaves undefined on overflow: printed wrapping. */
const WRAPPED: ReadonlySet<string> = new Set(["int32", "int64"]);
const WRAPPED_OPS: ReadonlySet<string> = new Set(["+", "-", "*"]);
/** Integer dtypes, the index type included (division by a value that may be 0 or -1 goes through a helper). */
const INT_RANK_OR_IDX: Readonly<Record<string, true>> = {
  idx: true, int8: true, int16: true, int32: true, int64: true, uint8: true, uint16: true, uint32: true, uint64: true,
};

/** Floating-point dtypes: a math call's argument converted to one keeps its cast (Printer.callArg). */
const FLOAT: ReadonlySet<string> = new Set(["float16", "float32", "float64"]);

/** Integer dtypes by width. */
const INT_RANK: Readonly<Record<string, number>> = { int8: 1, int16: 2, int32: 3, int64: 4, uint8: 1, uint16: 2, uint32: 3, uint64: 4 };

/** C integer conversions that need no cast: value-preserving, or what C's usual conversions do anyway. */
function implicitOk(from: Dtype, to: Dtype): boolean {
  if (from === to || from === "bool") return true;
  const w = INT_RANK;
  if (to === "float64") return from !== "int64" && from !== "uint64";
  if (to === "float32") return from !== "float64" && from !== "int64" && from !== "uint64" && from !== "uint32";
  const signed = (d: string) => d.startsWith("int");
  if (w[from] && w[to]) return signed(from) === signed(to) && w[from]! <= w[to]!;
  return false;
}

/** Whether an integer divisor may be 0 or -1 (where C's `/` and `%` trap or are undefined): anything but another literal. */
function mayTrap(divisor: Ex): boolean {
  return !(divisor.k === "lit" && divisor.value !== 0 && divisor.value !== -1);
}

const SIGNED_INT: ReadonlySet<string> = new Set(["int8", "int16", "int32", "int64"]);

/** Each loop variable's values in the loops around the code being printed (loops with literal bounds). */
type LoopRanges = ReadonlyMap<string, readonly [number, number]>;

/**
 * The values an integer expression provably takes, from the expression and the loops around it
 * (for shift counts: a literal, a loop variable, `x % 8`, `x & 7`, a conditional of such), else undefined.
 */
function intRange(e: Ex, loops: LoopRanges): readonly [number, number] | undefined {
  switch (e.k) {
    case "lit": return Number.isSafeInteger(e.value) ? [e.value, e.value] : undefined;
    case "var": return loops.get(e.name);
    case "cast": {
      const r = intRange(e.e, loops);
      return r && r[0] >= 0 && r[1] <= 127 && e.to in INT_RANK ? r : undefined;
    }
    case "cond": {
      const t = intRange(e.t, loops);
      const f = intRange(e.f, loops);
      return t && f ? [Math.min(t[0], f[0]), Math.max(t[1], f[1])] : undefined;
    }
    case "bin": {
      // Floor modulo by d > 0 is in 0..d-1; `x & m` with m >= 0 in 0..m.
      const lit = (x: Ex) => (x.k === "lit" && Number.isSafeInteger(x.value) ? x.value : undefined);
      if (e.op === "%" && (lit(e.r) ?? 0) > 0) return [0, lit(e.r)! - 1];
      const m = e.op === "&" ? lit(e.r) ?? lit(e.l) : undefined;
      return m !== undefined && m >= 0 ? [0, m] : undefined;
    }
    default: return undefined;
  }
}

/** The trap site of a shift `e` whose count may leave 0..width-1 (`width` 64 for 64-bit values, else C's promoted 32). */
function shiftTrap(e: Ex & { k: "bin" }, loops: LoopRanges): IntTrapSite | undefined {
  const width = e.dtype === "int64" || e.dtype === "uint64" ? 64 : 32;
  const r = intRange(e.r, loops);
  if (r && r[0] >= 0 && r[1] < width) return undefined;
  return { insn: e.insn ?? "?", what: "shift", width, ...((e.countDtype ?? e.dtype) === "uint64" ? { unsigned: true } : {}) };
}

/** The trap site of an integer `a ** b` whose exponent may be negative (signed dtypes), else undefined. */
function powerTrap(e: Ex & { k: "bin" }, loops: LoopRanges): IntTrapSite | undefined {
  if (!SIGNED_INT.has(e.dtype)) return undefined;
  const r = intRange(e.r, loops);
  return r && r[0] >= 0 ? undefined : { insn: e.insn ?? "?", what: "power" };
}

/** An int32 or index sum (a module function: a closure per printed node is a cost under tsx). */
function isIntSum(x: Ex): boolean {
  return x.k === "bin" && x.op === "+" && (x.dtype === "idx" || x.dtype === "int32");
}

/** Prints statements and expressions for one dialect, recording which helpers were used. */
export class Printer {
  readonly helpers = new Set<string>();
  /** The loops with literal bounds around what is being printed: their variables' ranges prove shift counts and exponents. */
  private readonly loops = new Map<string, readonly [number, number]>();
  constructor(readonly ex: ExprSyntax, readonly st: StmtSyntax, readonly indentUnit = "  ") {}

  /** `e` as code; parenthesized when its precedence is below `min`. */
  expr(e: Ex, min = 0): string {
    if (this.ex.expr) return this.ex.expr(e, this);
    // The leaves, most of a big kernel's nodes, without cexpr's pair (as cexpr prints them: atoms, a negative literal unary).
    if (e.k === "var") return e.name;
    if (e.k === "load" && e.dtype !== "bool") return `${e.array}[${this.expr(e.index)}]`;
    if (e.k === "lit") {
      const s = this.ex.lit(e.value, e.dtype);
      return UNARY < min && s.startsWith("-") ? `(${s})` : s;
    }
    const [code, prec] = this.cexpr(e);
    return prec < min ? `(${code})` : code;
  }

  private cexpr(e: Ex): [string, number] {
    switch (e.k) {
      case "var": return [e.name, ATOM];
      case "lit": {
        const s = this.ex.lit(e.value, e.dtype);
        return [s, s.startsWith("-") ? UNARY : ATOM];
      }
      case "hw": return [this.ex.hw(e.tag, e.axis), ATOM];
      case "neg": {
        // -b of a bool is b (the interpreter: -1 converted to bool is true); C would give -1.
        if (e.dtype === "bool") return this.cexpr(e.e);
        const u = WRAPPED.has(e.dtype) ? this.ex.unsignedOf?.(e.dtype as Dtype) : undefined;
        if (u !== undefined) {
          const [x, xp] = this.unsignedForm(e.e, e.dtype, u);
          return [this.ex.cast(e.dtype as Dtype, `(0 - ${xp <= PREC["-"]! ? `(${x})` : x})`), UNARY];
        }
        const code = `-${this.expr(e.e, UNARY + 1)}`;
        return NARROW.has(e.dtype) ? [this.ex.cast(e.dtype as Dtype, `(${code})`), UNARY] : [code, UNARY];
      }
      case "not": return [`!${this.expr(e.e, UNARY)}`, UNARY];
      case "bitnot": {
        const code = `~${this.expr(e.e, UNARY)}`;
        return NARROW.has(e.dtype) ? [this.ex.cast(e.dtype, `(${code})`), UNARY] : [code, UNARY];
      }
      case "load": {
        const el = `${e.array}[${this.expr(e.index)}]`;
        // A bool element is true where its byte is not 0, as the interpreter reads it (a byte 2 from
        // the caller is true, and true > true is false).
        return e.dtype === "bool" ? [`(${el} != 0)`, ATOM] : [el, ATOM];
      }
      // Below `||`, as in C: `(c ? x : y) && z` keeps its parentheses.
      case "cond": return [`${this.expr(e.c, 4)} ? ${this.expr(e.t, 4)} : ${this.expr(e.f, COND)}`, COND];
      case "cast":
        if (implicitOk(e.from, e.to)) return this.cexpr(e.e);
        // To bool: any value not 0 is true (bool is a byte in C, and (uint8_t) 256 would be 0).
        if (e.to === "bool") return [`(${this.expr(e.e, PREC["!="]! + 1)} != 0)`, ATOM];
        return [this.ex.cast(e.to, this.expr(e.e, UNARY)), UNARY];
      case "call": {
        // abs of an unsigned value (or a bool) is the value: C's abs would take it as an int.
        if (e.fn === "abs" && e.args.length === 1 && UNSIGNED.has(e.dtype)) return this.cexpr(e.args[0]!);
        return [this.ex.call(e.fn, e.dtype, e.args.map((a) => this.callArg(a)), this), ATOM];
      }
      case "bin": {
        switch (e.op) {
          case "min": case "max":
            // Of bools (0 or 1): and, or (OpenCL has no min of a uchar and an int, which a bool sum is).
            if (e.dtype === "bool") return [`${this.expr(e.l, PREC["&&"]! + 1)} ${e.op === "min" ? "&&" : "||"} ${this.expr(e.r, PREC["&&"]! + 1)}`, e.op === "min" ? PREC["&&"]! : PREC["||"]!];
            return [this.ex.call(e.op, e.dtype === "idx" ? "int32" : e.dtype, [this.callArg(e.l, true), this.callArg(e.r, true)], this), ATOM];
          case "**": return [this.ex.call("pow", e.dtype === "idx" ? "float64" : e.dtype, [this.expr(e.l), this.expr(e.r)], this, powerTrap(e, this.loops)), ATOM];
          case "//":
            if (e.dtype === "float32" || e.dtype === "float64" || e.dtype === "float16") {
              return [this.ex.call("floor", e.dtype, [`${this.expr(e.l, 10)} / ${this.expr(e.r, 11)}`], this), ATOM];
            }
            if (e.nonneg) return [`${this.expr(e.l, 10)} / ${this.expr(e.r, 11)}`, 10];
            return [this.ex.floorDiv(this.expr(e.l), this.expr(e.r), e.dtype, this, mayTrap(e.r) ? { insn: e.insn ?? "?", what: "division" } : undefined), ATOM];
          case "%":
            if (e.dtype === "float32" || e.dtype === "float64" || e.dtype === "float16") {
              return [this.ex.call("loopy_fmod", e.dtype, [this.expr(e.l), this.expr(e.r)], this), ATOM];
            }
            if (e.nonneg) return [`${this.expr(e.l, 10)} % ${this.expr(e.r, 11)}`, 10];
            return [this.ex.mod(this.expr(e.l), this.expr(e.r), e.dtype, this, mayTrap(e.r) ? { insn: e.insn ?? "?", what: "modulo" } : undefined), ATOM];
          case "&": case "|": case "^": case "<<": case ">>": {
            // Operands that are other infix operators get parentheses, as gcc -Wparentheses asks.
            const side = (x: Ex) => (x.k === "bin" && x.op !== e.op && x.op in PREC ? `(${this.expr(x)})` : this.expr(x, PREC[e.op]! + 1));
            // A shift has its left operand's (promoted) type: a widening cast there is not implicit.
            const widened = (e.op === "<<" || e.op === ">>") && e.l.k === "cast" && e.l.from !== e.l.to && e.l.to in INT_RANK && !NARROW.has(e.l.to);
            const left = widened ? this.ex.cast(e.l.to as Dtype, this.expr(e.l.e, UNARY))
              : e.l.k === "bin" && e.l.op === e.op && e.op !== "<<" && e.op !== ">>" ? this.expr(e.l, PREC[e.op]!) : side(e.l);
            const trap = (e.op === "<<" || e.op === ">>") && this.ex.shiftCount ? shiftTrap(e, this.loops) : undefined;
            const count = trap ? this.ex.shiftCount!(this.expr(e.r), e.countDtype ?? e.dtype, trap, this) : side(e.r);
            const code = `${left} ${e.op} ${count}`;
            if (e.op === "<<" && NARROW.has(e.dtype)) return [this.ex.cast(e.dtype as Dtype, `(${code})`), UNARY];
            return [code, PREC[e.op]!];
          }
          default: {
            // Integer division by what may be 0 or -1: a helper (C's `/` traps or is undefined there).
            if (e.op === "/" && e.dtype in INT_RANK_OR_IDX && this.ex.div && mayTrap(e.r)) {
              return [this.ex.div(this.expr(e.l), this.expr(e.r), e.dtype, this, { insn: e.insn ?? "?", what: "division" }), ATOM];
            }
            // Signed data arithmetic wraps, as the interpreter's: computed in the unsigned type.
            const u = WRAPPED.has(e.dtype) && WRAPPED_OPS.has(e.op) ? this.ex.unsignedOf?.(e.dtype as Dtype) : undefined;
            if (u !== undefined) return [this.ex.cast(e.dtype as Dtype, `(${this.unsignedForm(e, e.dtype, u)[0]})`), UNARY];
            const p = PREC[e.op]!;
            // Exact index sums are associative: `a + (b + c)` prints as `a + b + c`.
            const assoc = isIntSum(e) && isIntSum(e.r);
            const code = `${this.expr(e.l, p)} ${e.op} ${this.expr(e.r, assoc ? p : p + 1)}`;
            if (NARROW.has(e.dtype) && NARROW_WRAPS.has(e.op)) return [this.ex.cast(e.dtype as Dtype, `(${code})`), UNARY];
            // A bool sum or difference is a bool (numpy's and the interpreter's: true + true is true):
            // C computes it in int, so it is compared with 0.
            if (e.dtype === "bool" && (e.op === "+" || e.op === "-")) return [`(${code}) != 0`, PREC["!="]!];
            return [code, p];
          }
        }
      }
      default: return assertNever(e, "AST expression");
    }
  }

  /**
   * `x` computed in the unsigned type `u` (for a wrapping signed `d` result): sums, differences and
   * products of `d` stay unsigned inside (`(int32_t) ((uint32_t) n - 1u - (uint32_t) i)`, not a
   * cast back and forth per node), literals are unsigned literals, anything else is converted.
   */
  private unsignedForm(x: Ex, d: ExDtype, u: Dtype): [string, number] {
    if (x.k === "bin" && x.dtype === d && WRAPPED_OPS.has(x.op)) {
      const p = PREC[x.op]!;
      const [l, lp] = this.unsignedForm(x.l, d, u);
      const [r, rp] = this.unsignedForm(x.r, d, u);
      return [`${lp < p ? `(${l})` : l} ${x.op} ${rp < p + 1 ? `(${r})` : r}`, p];
    }
    if (x.k === "lit" && Number.isSafeInteger(x.value) && x.value >= 0) return [this.ex.lit(x.value, u), ATOM];
    return [this.ex.cast(u, this.expr(x, UNARY)), UNARY];
  }

  /**
   * An integer argument of min or max with its conversion spelled out: C would convert it anyway,
   * but OpenCL's min and max are overloads, and `max(char, ushort)` has no one of them.
   */
  /**
   * A call's argument, its conversion printed even where C makes it implicitly: C++'s overloads
   * (CUDA, HIP, SYCL) have no one `fmin` for a float and a double, as C's prototype has (found on a
   * GPU, where NVRTC rejected `fmin(xf[i], xd[i] + xf[i])` of an OKL kernel); min and max
   * (`ints`) also keep an integer widening, as C has no one min of an int and a long.
   * (Narrow arguments are converted by the dialect, which knows its overloads.)
   */
  private callArg(x: Ex, ints = false): string {
    if (x.k !== "cast" || x.from === x.to || !implicitOk(x.from, x.to) || NARROW.has(x.to) || !(FLOAT.has(x.to) || (ints && x.to in INT_RANK))) return this.expr(x);
    return this.ex.cast(x.to, this.expr(x.e, UNARY));
  }

  /** Lines of `s` at indentation `ind`. */
  stmt(s: Stmt, ind: string): string[] {
    switch (s.k) {
      case "block": return [`${ind}{`, ...s.body.flatMap((x) => this.stmt(x, ind + this.indentUnit)), `${ind}}`];
      case "for": {
        const head = `${ind}${this.st.forHead(s.v, this.expr(s.lo), this.expr(s.hi))}`;
        if (this.ex.loopTraps) return this.trapLoop(s, head, ind, this.ex.loopTraps);
        if (s.lo.k !== "lit" || s.hi.k !== "lit") return [...(s.pragmas ?? []).map((p) => `${ind}${p}`), head, ...this.body(s.body, ind)];
        this.loops.set(s.v, [s.lo.value, s.hi.value]);
        const body = this.body(s.body, ind);
        this.loops.delete(s.v);
        return [...(s.pragmas ?? []).map((p) => `${ind}${p}`), head, ...body];

      }
      case "if": {
        const out = [`${ind}if (${this.expr(s.cond)})`, ...this.body(s.then, ind)];
        if (s.else) out.push(`${ind}else`, ...this.body(s.else, ind));
        return out;
      }
      case "while": return [`${ind}while (${this.expr(s.cond)})`, ...this.body(s.body, ind)];
      case "doWhile": {
        const body = this.stmt(s.body.k === "block" ? s.body : { k: "block", body: [s.body] }, ind);
        return [`${ind}do`, ...body.slice(0, -1), `${body[body.length - 1]} while (${this.expr(s.cond)});`];
      }
      case "break": case "continue": return [`${ind}${s.k};`];
      case "decl": return [`${ind}${this.st.decl(s, this)}`];
      case "assign": {
        const target = s.array === undefined ? s.name! : this.ex.element ? this.ex.element(s.array, this.expr(s.index!)) : `${s.array}[${this.expr(s.index!)}]`;
        if (s.atomic) return [`${ind}${this.ex.atomic!(s.atomic, target, this.expr(s.rhs), s.dtype, this)};`];
        if (this.st.store) return [`${ind}${this.st.store(target, this.expr(s.rhs), s.dtype, s.array !== undefined)}`];
        return [`${ind}${target} = ${this.expr(s.rhs)};`];
      }
      case "barrier": return [`${ind}${this.st.barrier(s.comment, s.memory)}`];
      case "comment": return [`${ind}/* ${s.text} */`];
      case "raw": return s.text.split("\n").map((l) => `${ind}${l}`);
      default: return assertNever(s, "AST statement");
    }
  }

  /** A `for` loop printed through the dialect's `LoopTrapHook` (in a block of its own where the hook adds lines). */
  private trapLoop(s: Stmt & { k: "for" }, head: string, ind: string, hook: LoopTrapHook): string[] {
    const token = hook.enter(s);
    const lits = s.lo.k === "lit" && s.hi.k === "lit";
    if (lits) this.loops.set(s.v, [(s.lo as Ex & { k: "lit" }).value, (s.hi as Ex & { k: "lit" }).value]);
    const body = this.body(s.body, ind);
    if (lits) this.loops.delete(s.v);
    const around = hook.leave(token);
    if (!around) return [...(s.pragmas ?? []).map((p) => `${ind}${p}`), head, ...body];
    const in2 = ind + this.indentUnit;
    return [`${ind}{`, ...around.before.map((l) => in2 + l), ...(s.pragmas ?? []).map((p) => in2 + around.pragmas(p)),
      this.indentUnit + head, ...body.map((l) => this.indentUnit + l), ...around.after.map((l) => in2 + l), `${ind}}`];
  }

  /** The body of a for/if: a block is printed with braces, a single statement indented under it. */
  private body(s: Stmt, ind: string): string[] {
    if (s.k === "block" && s.body.length === 1 && s.body[0]!.k !== "decl" && s.body[0]!.k !== "if") return this.body(s.body[0]!, ind);
    return s.k === "block" ? this.stmt(s, ind) : this.stmt(s, ind + this.indentUnit);
  }
}
